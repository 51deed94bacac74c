"""Kinds of value the model can send, and the loose forms enum members are compared by.

Only values JSON can produce are judged; anything else (a set, bytes, an object) has no
kind, and every rule lets it pass.
"""

from __future__ import annotations

import math

#: The kinds of value of semantics.md, each with the Python types JSON decodes it to.
#: A tuple counts as a list. Order matters: bool before the number types it subclasses.
BASE_KINDS: dict[str, tuple[type, ...]] = {
    "null": (type(None),),
    "boolean": (bool,),
    "number": (int, float),
    "text": (str,),
    "list": (list, tuple),
    "object": (dict,),
}

#: Exact Python type -> kind; the fast path of `kind_of`.
KIND_BY_TYPE: dict[type, str] = {
    python_type: kind for kind, types in BASE_KINDS.items() for python_type in types
}

LIST_TYPES = (list, tuple)


def kind_of(value: object) -> str | None:
    """The kind of a value, or None when JSON cannot produce it (it is then not judged)."""
    kind = KIND_BY_TYPE.get(type(value))
    if kind is not None:
        return kind
    for name, types in BASE_KINDS.items():
        if isinstance(value, types):
            return name
    return None


class Unjudged(Exception):
    """A value has no loose form: too deep, or not something JSON can produce."""


#: Deeper structures than this have no canonical form; no schema's enum nests so deep.
CANONICAL_DEPTH = 64


def loose_form(value: object) -> object:
    """The form a value is compared to enum members by.

    Scalars compare by text form, case-folded: 2 matches "2", "Draft" matches "draft" and
    "true" matches true. A list or object compares structurally, with its numbers normalised
    (1.0 equals 1) and booleans kept apart from numbers, as JSON equality has it.
    """
    kind = kind_of(value)
    if kind == "text":
        return str.casefold(value)  # type: ignore[arg-type]
    if kind in ("list", "object"):
        return _canonical(value, CANONICAL_DEPTH)
    return _scalar_text(value, kind)


def _scalar_text(value: object, kind: str | None) -> str | tuple:
    if kind == "null":
        return "null"
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "number":
        return _number_text(value)  # type: ignore[arg-type]
    raise Unjudged


def _number_text(number: int | float) -> str | tuple:
    if isinstance(number, float):
        if math.isfinite(number) and number.is_integer():
            number = int(number)
        else:
            return float.__repr__(number)
    try:
        return int.__repr__(number)
    except ValueError:
        # Python refuses the text form of an integer of thousands of digits; such an
        # integer still equals itself.
        return ("integer", int(number))


def _canonical(value: object, depth: int) -> object:
    if depth <= 0:
        raise Unjudged
    kind = kind_of(value)
    if kind == "list":
        return ("list", tuple(_canonical(item, depth - 1) for item in value))  # type: ignore[union-attr]
    if kind == "object":
        items = value.items()  # type: ignore[union-attr]
        if not all(type(key) is str for key, _ in items):
            raise Unjudged
        return ("object", frozenset((key, _canonical(item, depth - 1)) for key, item in items))
    if kind == "text":
        return ("text", str(value))
    if kind == "number":
        return ("number", _number_text(value))  # type: ignore[arg-type]
    return (kind, _scalar_text(value, kind))
