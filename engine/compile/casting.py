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
from typing import Any, Callable

from attrs import field, frozen

from ..values.converters import as_tuple
from ..values.decoding import integer_text
from ..values.jsonvalue import JSON
from ..values.kinds import kind_of, text_json, text_number
from .budget import Judging
from .drafts import Draft
from .validators import type_verdict

NOT_CAST: object = object()


def _finite(value: object) -> bool:
    """A number that is not NaN or infinite (an int of any size is finite)."""
    return kind_of(value) == "number" and (isinstance(value, int) or math.isfinite(value))  # type: ignore[arg-type]


def _to_integer(value: object) -> object:
    if _finite(value) and (isinstance(value, int) or value.is_integer()):  # type: ignore[attr-defined]
        return int(value)  # type: ignore[call-overload]
    number = text_number(value) if kind_of(value) == "text" else None  # type: ignore[arg-type]
    return number if isinstance(number, int) else NOT_CAST


def _to_number(value: object) -> object:
    number = text_number(value) if kind_of(value) == "text" else None  # type: ignore[arg-type]
    return NOT_CAST if number is None else number


def _to_boolean(value: object) -> object:
    if kind_of(value) == "text" and value.strip().casefold() in ("true", "false"):  # type: ignore[attr-defined]
        return value.strip().casefold() == "true"  # type: ignore[attr-defined]
    if kind_of(value) == "number" and value in (0, 1):
        return value == 1
    return NOT_CAST


def _to_text(value: object) -> object:
    """A number as the text JSON writes it; an integer of any size in full."""
    if not _finite(value):
        return NOT_CAST
    if isinstance(value, float):
        return json.dumps(float(value))
    return integer_text(int(value))  # type: ignore[call-overload]


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


_KIND_OF_TYPE = {"string": "text", "integer": "number", "number": "number", "boolean": "boolean",
                 "array": "list", "object": "object", "null": "null"}
#: JSON text is cast to a list or object only where the table admits such text.
_JSON_TEXT_KIND = {"array": "list-json-text", "object": "object-json-text"}


def cast_to_types(types: tuple[str, ...], value: object, admitted: frozenset[str]) -> object:
    """The value cast to the first declared type that has an exact cast for it, those made
    for its own kind first (5.0 becomes 5 rather than "5.0"); NOT_CAST when none has, or a
    declared type has no exact casts at all (a table's own type name)."""
    if any(name not in CASTS for name in types):
        return NOT_CAST
    kind = kind_of(value)
    for name in sorted(types, key=lambda name: _KIND_OF_TYPE.get(name) != kind):
        if name in _JSON_TEXT_KIND and _JSON_TEXT_KIND[name] not in admitted:
            continue
        cast = CASTS[name][1](value)
        if cast is not NOT_CAST:
            return cast
    return NOT_CAST


@frozen
class Casting:
    """How a node of a tree compiled for casts casts: its exact judge (see `exact`), whether
    casts below it (members, elements, a `$ref`'s target, a union's branch) are safe, and the
    draft its declared types are read by."""

    judge: Callable[[object], bool | None]
    below: bool
    draft: Draft


def cast_node(node: Any, value: object, caster: Caster) -> object:
    """A value cast as a node allows. A value the node's judge finds valid as sent is handed
    back as it is; one it finds invalid is cast itself (to a declared type, to an enum
    member's own spelling) only where the node's judge finds the cast value valid; below a
    node, each member or element is cast by its own node where casting below is safe (a list
    or object of its declared type is judged there, member by member: a valid one is valid
    under each member's node, since the keywords of a node that casts below read each member
    on its own)."""
    casting = node.casting
    if casting is None:
        return value
    if casting.below and type(value) in (dict, list) and (
            not node.types or type_verdict(node.types, value, casting.draft) is True):
        # A list or object of its declared type casts only below, where casts are safe: each
        # member is judged by its own node, so one that is valid as sent stays as sent. (The
        # loop of `_cast_below`, here: casting recurses once per level, a frame fewer.)
        for rule, _ in node.entries:
            below = getattr(rule, "cast", None)
            if below is not None:
                value = below(value, caster)
        return value
    verdict = casting.judge(value)
    if verdict is True:
        return value
    if verdict is False and value is not None:
        itself = _cast_itself(node, value, casting.draft)
        if itself is not value:
            probe = caster.probe()
            cast = _cast_below(node, itself, probe) if casting.below else itself
            if casting.judge(cast) is True:
                caster.note(True)
                caster.merge(probe)
                return cast
        if node.types and type_verdict(node.types, value, casting.draft) is False:
            caster.note(False)
            return value
    return _cast_below(node, value, caster) if casting.below else value


def _cast_itself(node: Any, value: object, draft: Draft) -> object:
    cast = value
    if node.types and type_verdict(node.types, value, draft) is False:
        cast = cast_to_types(node.types, value, node.admitted)
        if cast is NOT_CAST:
            return value
    for rule, _ in node.entries:
        spelled = getattr(rule, "cast_value", None)
        if spelled is not None:
            cast = spelled(cast)
    return cast


def _cast_below(node: Any, value: object, caster: Caster) -> object:
    for rule, _ in node.entries:
        below = getattr(rule, "cast", None)
        if below is not None:
            value = below(value, caster)
    return value


@frozen
class Cast:
    """A passing call's arguments with casts applied, and the paths that changed or that no
    exact cast fits (left as sent), in the order of the arguments."""

    arguments: JSON
    changed: tuple[tuple[str | int, ...], ...] = field(converter=as_tuple, default=())
    not_cast: tuple[tuple[str | int, ...], ...] = field(converter=as_tuple, default=())


class Caster:
    """One cast walk's state: the path to the node, what changed so far, and the cast's
    judging (its budget, see `budget`; None: unbounded)."""

    __slots__ = ("path", "changed", "not_cast", "judging")

    def __init__(self, judging: Judging | None = None) -> None:
        self.path: list[Any] = []
        self.changed: list[tuple[Any, ...]] = []
        self.not_cast: list[tuple[Any, ...]] = []
        self.judging = judging

    def note(self, changed: bool) -> None:
        where = tuple(self.path)
        (self.changed if changed else self.not_cast).append(where)

    def spend(self, units: int = 1) -> None:
        """Units of the cast's budget spent (see `budget`): `CastTooCostly` past it."""
        if self.judging is not None:
            self.judging.spend(units)

    def probe(self) -> Caster:
        """A caster for a cast that may yet be dropped, tried at a unit of the cast's budget:
        what it notes counts once merged."""
        self.spend()
        probe = Caster(self.judging)
        probe.path = list(self.path)
        return probe

    def merge(self, probe: Caster) -> None:
        self.changed.extend(probe.changed)
        self.not_cast.extend(probe.not_cast)

    def below(self, key: str | int, node: Any, value: object) -> object:
        self.path.append(key)
        try:
            return node.cast(value, self)
        finally:
            self.path.pop()
