"""Loading a rule table: parse a `.rules` file with lark, merge it over the table it extends,
check every reference, and return a frozen `Table`.

Any error names the file, line and column of the entry at fault and says what is wrong.
"""

from __future__ import annotations

import json
import threading
import unicodedata
from functools import lru_cache
from pathlib import Path

from attrs import frozen
from lark import Lark, Token, Transformer, UnexpectedInput, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken, VisitError

from .checks import check_table
from .errors import Position, TableError
from .table import (AnswerEntry, LimitEntry, MessageEntry, RuleEntry, SkipEntry, Table,
                    TypeEntry, ValueEntry)

_PACKAGE = Path(__file__).resolve().parent
#: Installed from a wheel, the tables sit in the package; in a checkout, beside it.
RULES_DIRS = (_PACKAGE / "rules", _PACKAGE.parent / "rules")
DEFAULT_TABLE = "adr246"

_PARSER = Lark.open("table.lark", rel_to=__file__, parser="lalr", propagate_positions=True,
                    maybe_placeholders=False)


@frozen
class Header:
    name: str
    parent: str | None
    parent_is_path: bool


@frozen
class Drop:
    key: tuple


@frozen
class Placed:
    """A rule entry with where it goes relative to another rule ("before"/"after")."""

    entry: RuleEntry
    place: str | None = None
    anchor: str | None = None


@frozen
class Sourced:
    item: object
    position: Position


def entry_key(entry: object) -> tuple:
    """What a child table's entry replaces in its parent's."""
    if isinstance(entry, SkipEntry):
        return ("skip", entry.trigger, entry.argument)
    if isinstance(entry, ValueEntry):
        return ("value", entry.kind)
    if isinstance(entry, TypeEntry):
        return ("type", entry.name)
    if isinstance(entry, RuleEntry):
        return ("rule", entry.name)
    if isinstance(entry, MessageEntry):
        return ("message", entry.code, tuple(sorted(entry.guards)))
    if isinstance(entry, AnswerEntry):
        return ("answer", entry.name)
    return ("limit", entry.name)  # type: ignore[attr-defined]


#: Characters a table's text may not hold: they break a line or a terminal where the text is
#: shown (control, format, surrogate, private-use and unassigned characters, line and
#: paragraph separators).
UNSHOWABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: A number of a table has at most this many digits (limits are checked for range later).
MOST_DIGITS = 9


def _text(token: Token, file: str) -> str:
    try:
        text = json.loads(token)
    except json.JSONDecodeError:
        raise Position(file, token.line, token.column).error(
            "this quoted text has a broken escape (use \\\" for a quote, \\\\ for a backslash)"
        ) from None
    unshowable = next((char for char in text if unicodedata.category(char) in UNSHOWABLE), None)
    if unshowable is not None:
        raise Position(file, token.line, token.column).error(
            f"this quoted text holds the character {json.dumps(unshowable)} (U+{ord(unshowable):04X}, "
            f"{unicodedata.category(unshowable)}), which would break or colour the line it is shown on")
    return text


def _number(token: Token, file: str) -> int:
    if len(token) > MOST_DIGITS:
        raise Position(file, token.line, token.column).error(f"this number has more than {MOST_DIGITS} digits")
    return int(token)


@v_args(meta=True)
class _ToEntries(Transformer):
    """Parse tree -> `Sourced` domain objects; nothing of lark leaves this class."""

    def __init__(self, file: str):
        super().__init__()
        self.file = file

    def _at(self, meta) -> Position:
        return Position(self.file, meta.line, meta.column)

    def start(self, meta, items):
        return [entry for item in items for entry in (item if isinstance(item, list) else [item])]

    def header(self, meta, children):
        parent = children[1] if len(children) > 1 else None
        is_path = parent is not None and parent.type == "STRING"
        parent_name = _text(parent, self.file) if is_path else (str(parent) if parent else None)
        return Sourced(Header(str(children[0]), parent_name, is_path), self._at(meta))

    def skip(self, meta, children):
        trigger, arguments = str(children[0]), [_text(t, self.file) for t in children[1:]]
        entries = [SkipEntry(trigger, argument) for argument in arguments] or [SkipEntry(trigger)]
        return [Sourced(entry, self._at(meta)) for entry in entries]

    def value(self, meta, children):
        return Sourced(ValueEntry(str(children[0]), _text(children[1], self.file)), self._at(meta))

    def type(self, meta, children):
        name, phrase, native, *casts = children
        entry = TypeEntry(str(name), _text(phrase, self.file), str(native), [str(c) for c in casts])
        return Sourced(entry, self._at(meta))

    def rule(self, meta, children):
        name, kind, *rest = [str(c) for c in children]
        stops = bool(rest) and rest[0] == "stops"  # the STOPS token
        rest = rest[1:] if stops else rest
        placed = Placed(RuleEntry(name, kind, stops), *(rest or [None, None]))
        return Sourced(placed, self._at(meta))

    def message(self, meta, children):
        code, *guards, template = children
        entry = MessageEntry(str(code), _text(template, self.file), [str(g) for g in guards])
        return Sourced(entry, self._at(meta))

    def answer(self, meta, children):
        return Sourced(AnswerEntry(str(children[0]), _text(children[1], self.file)), self._at(meta))

    def limit(self, meta, children):
        return Sourced(LimitEntry(str(children[0]), _number(children[1], self.file)), self._at(meta))

    def drop(self, meta, children):
        category, name, *rest = children
        guards = tuple(sorted(str(t) for t in rest if t.type == "NAME"))
        texts = [_text(t, self.file) for t in rest if t.type == "STRING"]
        keys = {
            "skip": [("skip", str(name), text) for text in texts] or [("skip", str(name), None)],
            "message": [("message", str(name), guards)],
        }.get(str(category), [(str(category), str(name))])
        return [Sourced(Drop(key), self._at(meta)) for key in keys]


_WORDS = {"NAME": "a name", "STRING": "a quoted text", "INT": "a whole number",
          "_NL": "the end of the line", "$END": "the end of the file",
          "PLACE": '"before" or "after"', "STOPS": '"stops"',
          "DROPPED": "what to drop (skip, value, type, rule, message or answer)"}


def _expected(names) -> str:
    keywords = {t.name: t.pattern.value.removesuffix("\\b") for t in _PARSER.terminals}
    words = sorted({_WORDS.get(n) or f'"{keywords.get(n, n.lower())}"' for n in names})
    return words[0] if len(words) == 1 else "one of " + ", ".join(words)


def _explain(error: UnexpectedInput) -> str:
    if isinstance(error, UnexpectedCharacters):
        return f"the character {json.dumps(error.char)} cannot appear here; expected {_expected(error.allowed)}"
    if isinstance(error, UnexpectedEOF):
        return "the file ends in the middle of an entry"
    assert isinstance(error, UnexpectedToken)
    if error.token.type == "_NL":
        return f"the entry stops too early; expected {_expected(error.expected)}"
    if error.token.type == "$END":
        return f"the file ends in the middle of an entry; expected {_expected(error.expected)}"
    return f"{json.dumps(str(error.token))} cannot appear here; expected {_expected(error.expected)}"


def parse_table_file(path: Path, shown: str) -> list[Sourced]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TableError(shown, None, None, f"the table cannot be read ({error.__class__.__name__})") from None
    try:
        tree = _PARSER.parse(text)
        return _ToEntries(shown).transform(tree)
    except UnexpectedInput as error:
        raise TableError(shown, error.line, error.column, _explain(error)) from None
    except VisitError as error:
        if isinstance(error.orig_exc, TableError):
            raise error.orig_exc from None
        raise


def shipped_tables() -> dict[str, Path]:
    """The tables that ship with turngate, by name."""
    return dict(_shipped())


@lru_cache(maxsize=1)
def _shipped() -> tuple[tuple[str, Path], ...]:
    for folder in RULES_DIRS:
        if folder.is_dir():
            return tuple((path.stem, path) for path in sorted(folder.glob("*.rules")))
    return ()


_cache: dict[tuple, Table] = {}
_cache_lock = threading.Lock()


def load_table(name_or_path: str | Path = DEFAULT_TABLE) -> Table:
    """A shipped table by name (`adr246`, the default), or a `.rules` file by path."""
    reference = str(name_or_path)
    shipped = shipped_tables()
    path = shipped[reference] if reference in shipped else Path(reference).resolve()
    if not path.is_file():
        known = ", ".join(shipped) or "none"
        raise TableError(_shown(path), None, None,
                         f"there is no table file here, and no shipped table of that name ({known})")
    key = (path, path.stat().st_mtime_ns)
    with _cache_lock:
        table = _cache.get(key)
        if table is None:
            table = _cache[key] = check_table(*_load_entries(path, ()), _shown(path))
    return table


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _load_entries(path: Path, chain: tuple[Path, ...]) -> tuple[str, list[Sourced]]:
    """A table's name and merged entries with their positions (what a child builds on)."""
    items = parse_table_file(path, _shown(path))
    header, items = _split_header(items)
    merged: list[Sourced] = []
    if header is not None and header.item.parent is not None:
        merged = _parent_entries(header, path, chain)
    for item in items:
        _merge(merged, item)
    return (header.item.name if header else path.stem), merged


def _split_header(items: list[Sourced]) -> tuple[Sourced | None, list[Sourced]]:
    headers = [i for i, item in enumerate(items) if isinstance(item.item, Header)]
    if headers and headers[0] != 0:
        raise items[headers[0]].position.error("the table line must come first")
    if len(headers) > 1:
        raise items[headers[1]].position.error("a file holds one table; this is a second table line")
    return (items[0], items[1:]) if headers else (None, items)


def _parent_entries(header: Sourced, path: Path, chain: tuple[Path, ...]) -> list[Sourced]:
    parent = header.item.parent
    shipped = shipped_tables()
    if header.item.parent_is_path:
        parent_path = (path.parent / parent).resolve()
        if not parent_path.is_file():
            raise header.position.error(f"the table file {json.dumps(parent)} to extend does not exist")
    elif parent in shipped:
        parent_path = shipped[parent].resolve()
    else:
        known = ", ".join(shipped) or "none"
        raise header.position.error(f'there is no shipped table "{parent}" to extend (shipped: {known})')
    if parent_path in (*chain, path):
        raise header.position.error(f"extending {json.dumps(parent)} makes a cycle of tables")
    return _load_entries(parent_path, (*chain, path))[1]


def _merge(merged: list[Sourced], item: Sourced) -> None:
    entry = item.item
    keys = [entry_key(_plain(m.item)) for m in merged]
    if isinstance(entry, Drop):
        if entry.key not in keys:
            raise item.position.error(f"there is no {_describe(entry.key)} to drop")
        del merged[keys.index(entry.key)]
        return
    key = entry_key(_plain(entry))
    index = keys.index(key) if key in keys else None
    if isinstance(entry, Placed) and entry.place is not None:
        if index is not None:
            del merged[index]
            keys.pop(index)
        anchor = ("rule", entry.anchor)
        if anchor not in keys:
            raise item.position.error(f'there is no rule "{entry.anchor}" to place this rule {entry.place}')
        at = keys.index(anchor) + (entry.place == "after")
        merged.insert(at, item)
    elif index is not None:
        merged[index] = item
    else:
        merged.append(item)


def _plain(item: object) -> object:
    return item.entry if isinstance(item, Placed) else item


def _describe(key: tuple) -> str:
    category, name, *rest = key
    if category == "message" and rest and rest[0]:
        return f'message for "{name}" with {" ".join(rest[0])}'
    if category == "skip" and rest and rest[0] is not None:
        return f'skip {name} {json.dumps(rest[0])}'
    return f'{category} "{name}"'
