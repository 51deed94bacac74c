"""Casts made explicit, opt-in: a passing call's arguments with each exact cast applied.

Many MCP servers validate strictly and refuse "5" for an integer, so a value the lenient
check lets through can still fail there. A host that asks gets a new arguments object: "5"
and 5.0 become 5 for an integer, "true"/"false"/1/0 a boolean, a number text for a string,
an enum value the enum's own spelling, and (where the table admits it) JSON text the list or
object it holds. A value no exact cast fits stays as sent and is listed as not cast. The
caller's object is never changed: what changes is copied, the rest is shared. Off by default:
ADR 246 rejected changing what tools receive as a default.
"""

from __future__ import annotations

import json
import math
from typing import Callable

from attrs import field, frozen

from .values import kind_of, text_json, text_number

NOT_CAST: object = object()


def _finite(value: object) -> bool:
    """A number that is not NaN or infinite (an int of any size is finite)."""
    return kind_of(value) == "number" and (isinstance(value, int) or math.isfinite(value))  # type: ignore[arg-type]


def _to_integer(value: object) -> object:
    if _finite(value) and (isinstance(value, int) or value.is_integer()):  # type: ignore[union-attr]
        return int(value)  # type: ignore[arg-type]
    number = text_number(value) if kind_of(value) == "text" else None  # type: ignore[arg-type]
    return number if isinstance(number, int) else NOT_CAST


def _to_number(value: object) -> object:
    number = text_number(value) if kind_of(value) == "text" else None  # type: ignore[arg-type]
    return NOT_CAST if number is None else number


def _to_boolean(value: object) -> object:
    if kind_of(value) == "text" and value.strip().casefold() in ("true", "false"):  # type: ignore[union-attr]
        return value.strip().casefold() == "true"  # type: ignore[union-attr]
    if kind_of(value) == "number" and value in (0, 1):
        return value == 1
    return NOT_CAST


def _to_text(value: object) -> object:
    if _finite(value):
        try:
            return json.dumps(float(value) if isinstance(value, float) else int(value))  # type: ignore[arg-type]
        except ValueError:  # an integer of thousands of digits has no text form in Python
            return NOT_CAST
    return NOT_CAST


def _from_json_text(kind: type) -> Callable[[object], object]:
    def cast(value: object) -> object:
        decoded = text_json(value) if kind_of(value) == "text" else None  # type: ignore[arg-type]
        return decoded if isinstance(decoded, kind) else NOT_CAST
    return cast


#: Per JSON Schema type: is a value already of it, and its exact cast. Types a table adds
#: under other names (BFCL's "dict") are not cast.
CASTS: dict[str, tuple[Callable[[object], bool], Callable[[object], object]]] = {
    "string": (lambda v: kind_of(v) == "text", _to_text),
    "integer": (lambda v: kind_of(v) == "number" and isinstance(v, int), _to_integer),
    "number": (lambda v: kind_of(v) == "number", _to_number),
    "boolean": (lambda v: kind_of(v) == "boolean", _to_boolean),
    "array": (lambda v: kind_of(v) == "list", _from_json_text(list)),
    "object": (lambda v: kind_of(v) == "object", _from_json_text(dict)),
    "null": (lambda v: v is None, lambda v: NOT_CAST),
}


#: JSON text is cast to a list or object only where the table admits such text.
_JSON_TEXT_KIND = {"array": "list-json-text", "object": "object-json-text"}


def cast_to_types(types: tuple[str, ...], value: object, admitted: frozenset[str]) -> object:
    """The value cast to the first declared type that has an exact cast for it; the value
    itself when it already is of a declared type (or null); NOT_CAST when nothing fits."""
    known = [CASTS[name] for name in types if name in CASTS]
    if value is None or len(known) < len(types) or any(is_of(value) for is_of, _ in known):
        return value
    for name in types:
        if name in _JSON_TEXT_KIND and _JSON_TEXT_KIND[name] not in admitted:
            continue
        cast = CASTS[name][1](value)
        if cast is not NOT_CAST:
            return cast
    return NOT_CAST


def apply_type_cast(types: tuple[str, ...], value: object, admitted: frozenset[str], caster) -> object:
    """`cast_to_types`, noting on the caster whether the value changed or was left as sent."""
    cast = cast_to_types(types, value, admitted)
    if cast is value:
        return value
    caster.note(cast is not NOT_CAST)
    return value if cast is NOT_CAST else cast


@frozen
class Cast:
    """A passing call's arguments with casts applied, and the paths that changed or that no
    exact cast fits (left as sent), in the order of the arguments."""

    arguments: object
    changed: tuple[tuple[str | int, ...], ...] = field(converter=tuple, default=())
    not_cast: tuple[tuple[str | int, ...], ...] = field(converter=tuple, default=())


class Caster:
    """One cast walk's state: the path to the node and what changed so far."""

    __slots__ = ("path", "changed", "not_cast")

    def __init__(self) -> None:
        self.path: list = []
        self.changed: list[tuple] = []
        self.not_cast: list[tuple] = []

    def note(self, changed: bool) -> None:
        where = tuple(self.path)
        (self.changed if changed else self.not_cast).append(where)

    def below(self, key: str | int, node, value: object) -> object:
        self.path.append(key)
        try:
            return node.cast(value, self)
        finally:
            self.path.pop()
