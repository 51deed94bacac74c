"""Quoting what the model sent for a sentence (the table's wording fills its templates with
it).

Every value the model sent is quoted as JSON, with control, format and line-separator
characters escaped, and cut to a fixed width; so a template's length is bounded by its text
plus the widths of its placeholders, which the loader checks once.
"""

from __future__ import annotations

import math
import unicodedata
from typing import Any, Iterable

from .decoding import integer_text
from .kinds import kind_of

ELLIPSIS = "…"

_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                  "\b": "\\b", "\f": "\\f"}
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_PLAIN_NAME_BREAKERS = frozenset('.[]"\\ ')


def escaped(text: str) -> str:
    """Text with every character that would break or colour a line escaped as in JSON, and
    nothing else changed (for showing the model's text outside quotes)."""
    if text.isprintable():
        return text
    return "".join(_escape_char(char) if char not in '"\\' else char for char in text)


def _escape_char(char: str) -> str:
    short = _SHORT_ESCAPES.get(char)
    if short is not None:
        return short
    if char.isascii() and char.isprintable():
        return char
    if unicodedata.category(char) not in _ESCAPED_CATEGORIES:
        return char
    code = ord(char)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def quote_text(text: str, width: int, keep_end: bool = False) -> str:
    """`text` as a JSON string of at most `width` characters, cut with an ellipsis
    (at its end, or with `keep_end` at its start)."""
    room = width - 2
    if len(text) <= room and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    window = text[-room - 1:] if keep_end else text[: room + 1]
    if len(window) > room and window.isprintable() and '"' not in window and "\\" not in window:
        # Nothing to escape: what the loop below would keep, without a step per character.
        return f'"{ELLIPSIS}{window[2:]}"' if keep_end else f'"{window[:room - 1]}{ELLIPSIS}"'
    pieces: list[str] = []
    used = 0
    for char in reversed(window) if keep_end else window:
        piece = _escape_char(char)
        if used + len(piece) > room:
            break
        pieces.append(piece)
        used += len(piece)
    else:
        if len(window) == len(text):
            return '"' + "".join(reversed(pieces) if keep_end else pieces) + '"'
    while pieces and used + len(ELLIPSIS) > room:
        used -= len(pieces.pop())
    pieces.append(ELLIPSIS)
    return '"' + "".join(reversed(pieces) if keep_end else pieces) + '"'


def quote_scalar(value: object, width: int) -> str:
    """A scalar as JSON text: null, true, 5, 2.5, "text"."""
    kind = kind_of(value)
    if kind == "text":
        return quote_text(value, width)  # type: ignore[arg-type]
    if kind == "null":
        return "null"
    if kind == "boolean":
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return _cut(float.__repr__(value), width)
    if kind is None:  # nothing JSON can make (a host's own object): not written at all
        return _cut("a value that is not JSON", width)
    return _cut(shown_integer(value), width)  # type: ignore[arg-type]


def shown_integer(number: int) -> str:
    """An integer's digits; one of more digits than Python writes at once, by its size."""
    try:
        return int.__repr__(number)
    except ValueError:
        digits = int(number.bit_length() * math.log10(2)) + 1
        return f"an integer of about {digits} digits"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + ELLIPSIS


def quote_any(value: object, width: int = 40) -> str:
    """A scalar quoted; a list or object by a short, cut JSON-like form."""
    if kind_of(value) in ("list", "object"):
        return _cut(_brief(value, 3), width)
    return quote_scalar(value, width)


def _brief(value: object, depth: int) -> str:
    if kind_of(value) == "list":
        inner = ", ".join(_brief(item, depth - 1) for item in list(value)[:4]) if depth else "…"  # type: ignore[call-overload]
        return f"[{inner}]"
    if kind_of(value) == "object":
        items = list(value.items())[:4] if depth else []  # type: ignore[attr-defined]
        inner = ", ".join(f"{quote_text(k, 20) if type(k) is str else quote_any(k, 20)}: {_brief(v, depth - 1)}"
                          for k, v in items)
        return "{" + (inner if depth else "…") + "}"
    return quote_scalar(value, 20)


def quote_list(values: Iterable[object], width: int) -> str:
    """Values quoted and joined with commas; cut with how many there are in all. A tuple (an
    enum's members, a node's allowed names: one per compiled rule) is quoted once, kept by
    the tuple itself: a key by value would take 1, 1.0 and true for one another."""
    if type(values) is tuple:
        found = _QUOTED_LISTS.by_identity.get((id(values), width))
        if found is not None and found[0] is values:
            return found[1]
        return _QUOTED_LISTS.quoted(values, width)
    values = tuple(values)
    return _quote_list(values[: width // 3 + 2], len(values), width)


class QuotedLists:
    """Tuples of values already quoted, by identity (each kept, so its id stays its own),
    at most `SIZE` at a time. A tuple that cannot be hashed (it holds a list or an object,
    which could change) is quoted afresh each time."""

    SIZE = 4096

    def __init__(self) -> None:
        self.by_identity: dict[tuple[int, int], tuple[tuple[Any, ...], str]] = {}

    def quoted(self, values: tuple[Any, ...], width: int) -> str:
        """The text of a tuple not quoted yet (`quote_list` looks in `by_identity` first)."""
        # each value shown takes a character and a ", " at least: the rest are only counted
        text = _quote_list(values[: width // 3 + 2], len(values), width)
        try:
            hash(values)
        except TypeError:
            return text
        if len(self.by_identity) >= self.SIZE:
            self.by_identity.clear()
        self.by_identity[(id(values), width)] = (values, text)
        return text


_QUOTED_LISTS = QuotedLists()


def _quote_list(head: tuple[Any, ...], total: int, width: int) -> str:
    """The first values quoted until `width` is reached, then how many there are in all."""
    quoted: list[str] = []
    for index, value in enumerate(head):
        piece = quote_any(value, 30)
        rest = total - index
        tail = f", {ELLIPSIS} ({total} in all)" if rest > 1 else ""
        if len(", ".join([*quoted, piece])) + len(tail) > width:
            return ", ".join(quoted) + f", {ELLIPSIS} ({total} in all)"
        quoted.append(piece)
    return ", ".join(quoted)


def name_path(path: tuple[Any, ...], width: int) -> str:
    """The argument a path leads to, as a message names it: "elements[2].uid"."""
    if not path:
        return "the arguments"
    if len(path) == 1 and type(path[0]) is str and len(path[0]) <= width - 2 and path[0].isidentifier():
        return f'"{path[0]}"'
    return quote_text(path_text(path), width, keep_end=True)


def path_text(path: tuple[Any, ...]) -> str:
    """A path as text, unquoted: `elements[2].uid`, `fields['a.b']`; each name cut at 100
    characters."""
    if len(path) == 1 and type(path[0]) is str and path[0].isidentifier() and len(path[0]) <= 100:
        return path[0]
    text = ""
    for step in path:
        if type(step) is int:
            text += f"[{shown_integer(step)}]"
            continue
        if not isinstance(step, str):  # a key JSON cannot make (a host's object): as JSON would show it
            text += f"[{quote_any(step, 40)}]"
            continue
        name = str(step)
        name = name if len(name) <= 100 else name[:99] + ELLIPSIS
        if name and not _PLAIN_NAME_BREAKERS.intersection(name) and (
                name.isprintable() or all(_escape_char(c) == c for c in name)):
            text += f".{name}" if text else name
        else:
            text += "['" + name.replace("\\", "\\\\").replace("'", "\\'") + "']"
    return text


def join_phrases(phrases: list[str] | tuple[str, ...], width: int) -> str:
    text = phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " or " + phrases[-1]
    return _cut(text, width)


def pointer_step(key: object) -> str:
    """One step of a JSON pointer, `~` and `/` escaped; an integer key (a host's object) of
    any size in full."""
    if type(key) is str:
        text = key
    elif isinstance(key, int) and not isinstance(key, bool):
        text = integer_text(int(key))
    else:
        text = str(key)
    return text.replace("~", "~0").replace("/", "~1")
