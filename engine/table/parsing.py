"""Reading a `.rules` file with lark: the grammar (`grammar.lark`), a Transformer that
turns the parse tree into entries with their positions, and errors that name the file, line
and column of the entry at fault and say what is wrong in a sentence."""

from __future__ import annotations

import json
from typing import Any
import unicodedata
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from attrs import frozen
from lark import Lark, Token, Transformer, UnexpectedInput, v_args
from lark.tree import Meta
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken, VisitError

from .entries import AnswerEntry, LimitEntry, MessageEntry, RuleEntry, SkipEntry, TypeEntry, ValueEntry
from .errors import Position, TableError



@cache
def _parser() -> Lark:
    """The grammar, built when the first table is read (a fifth of `import turngate` when it
    was built at import; a host that never reads a table never builds it)."""
    return Lark.open("grammar.lark", rel_to=__file__, parser="lalr", propagate_positions=True,
                     maybe_placeholders=False)


@frozen
class Header:
    name: str
    parent: str | None
    parent_is_path: bool


@frozen
class Drop:
    key: tuple[Any, ...]


@frozen
class Placed:
    """A rule entry with where it goes relative to another rule ("before"/"after")."""

    entry: RuleEntry
    place: str | None = None
    anchor: str | None = None


@frozen
class Sourced:
    item: Any  # an entry, a header, a placed rule or a drop
    position: Position


def entry_key(entry: object) -> tuple[Any, ...]:
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
        text: str = json.loads(token)
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
class _ToEntries(Transformer[Token, Any]):
    """Parse tree -> `Sourced` domain objects; nothing of lark leaves this class."""

    def __init__(self, file: str):
        super().__init__()
        self.file = file

    def _at(self, meta: Meta) -> Position:
        return Position(self.file, meta.line, meta.column)

    def start(self, meta: Meta, items: list[Any]) -> list[Sourced]:
        return [entry for item in items for entry in (item if isinstance(item, list) else [item])]

    def header(self, meta: Meta, children: list[Any]) -> Sourced:
        parent: Token | None = children[1] if len(children) > 1 else None
        is_path = parent is not None and parent.type == "STRING"
        parent_name = _text(parent, self.file) if is_path else (str(parent) if parent else None)  # type: ignore[arg-type]
        return Sourced(Header(str(children[0]), parent_name, is_path), self._at(meta))

    def skip(self, meta: Meta, children: list[Any]) -> list[Sourced]:
        trigger, arguments = str(children[0]), [_text(t, self.file) for t in children[1:]]
        entries = [SkipEntry(trigger, argument) for argument in arguments] or [SkipEntry(trigger)]
        return [Sourced(entry, self._at(meta)) for entry in entries]

    def value(self, meta: Meta, children: list[Any]) -> Sourced:
        return Sourced(ValueEntry(str(children[0]), _text(children[1], self.file)), self._at(meta))

    def type(self, meta: Meta, children: list[Any]) -> Sourced:
        name, phrase, native, *casts = children
        entry = TypeEntry(str(name), _text(phrase, self.file), str(native), [str(c) for c in casts])
        return Sourced(entry, self._at(meta))

    def rule(self, meta: Meta, children: list[Any]) -> Sourced:
        name, kind, *rest = [str(c) for c in children]
        stops = bool(rest) and rest[0] == "stops"  # the STOPS token
        rest = rest[1:] if stops else rest
        placed = Placed(RuleEntry(name, kind, stops), *(rest or [None, None]))  # type: ignore[list-item]
        return Sourced(placed, self._at(meta))

    def message(self, meta: Meta, children: list[Any]) -> Sourced:
        code, *guards, template = children
        entry = MessageEntry(str(code), _text(template, self.file), [str(g) for g in guards])
        return Sourced(entry, self._at(meta))

    def answer(self, meta: Meta, children: list[Any]) -> Sourced:
        return Sourced(AnswerEntry(str(children[0]), _text(children[1], self.file)), self._at(meta))

    def limit(self, meta: Meta, children: list[Any]) -> Sourced:
        return Sourced(LimitEntry(str(children[0]), _number(children[1], self.file)), self._at(meta))

    def drop(self, meta: Meta, children: list[Any]) -> list[Sourced]:
        category, name, *rest = children
        guards = tuple(sorted(str(t) for t in rest if t.type == "NAME"))
        texts = [_text(t, self.file) for t in rest if t.type == "STRING"]
        by_category: dict[str, list[tuple[Any, ...]]] = {
            "skip": [("skip", str(name), text) for text in texts] or [("skip", str(name), None)],
            "message": [("message", str(name), guards)],
        }
        keys = by_category.get(str(category), [(str(category), str(name))])
        return [Sourced(Drop(key), self._at(meta)) for key in keys]


_WORDS = {"NAME": "a name", "STRING": "a quoted text", "INT": "a whole number",
          "_NL": "the end of the line", "$END": "the end of the file",
          "PLACE": '"before" or "after"', "STOPS": '"stops"',
          "DROPPED": "what to drop (skip, value, type, rule, message or answer)"}


def _expected(names: Iterable[str]) -> str:
    keywords = {t.name: t.pattern.value.removesuffix("\\b") for t in _parser().terminals}
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
        tree = _parser().parse(text)
        entries: list[Sourced] = _ToEntries(shown).transform(tree)
        return entries
    except UnexpectedInput as error:
        raise TableError(shown, error.line, error.column, _explain(error)) from None
    except VisitError as error:
        if isinstance(error.orig_exc, TableError):
            raise error.orig_exc from None
        raise
