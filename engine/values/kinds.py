"""Kinds of value the model can send, and the loose forms enum members are compared by.

Only values JSON can produce are judged; anything else (a set, bytes, an object) has no
kind, and every rule lets it pass.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .decoding import decode_json
from .stack import on_a_fresh_stack

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

#: JSON Schema's own type names -> the kind of value each admits, as the specification reads
#: them (whatever a table calls its types).
JSON_SCHEMA_KINDS: dict[str, str] = {"string": "text", "integer": "number", "number": "number", "boolean": "boolean",
                                     "array": "list", "object": "object", "null": "null"}


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


def _scalar_text(value: object, kind: str | None) -> str | tuple[Any, ...]:
    if kind == "null":
        return "null"
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "number":
        return _number_text(value)  # type: ignore[arg-type]
    raise Unjudged


def _number_text(number: int | float) -> str | tuple[Any, ...]:
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


def canonical_form(value: object) -> object:
    """The form two values equal as JSON values share; raises `Unjudged` past the depth."""
    return _canonical(value, CANONICAL_DEPTH)


def json_equal(a: object, b: object) -> bool:
    """Equal as JSON values: 1 equals 1.0, true does not equal 1, "2" does not equal 2."""
    try:
        return _canonical(a, CANONICAL_DEPTH) == _canonical(b, CANONICAL_DEPTH)
    except Unjudged:
        return False


def _canonical(value: object, depth: int) -> object:
    if depth <= 0:
        raise Unjudged
    kind = kind_of(value)
    if kind == "list":
        return ("list", tuple(_canonical(item, depth - 1) for item in value))  # type: ignore[attr-defined]
    if kind == "object":
        items = value.items()  # type: ignore[attr-defined]
        if not all(type(key) is str for key, _ in items):
            raise Unjudged
        return ("object", frozenset((key, _canonical(item, depth - 1)) for key, item in items))
    if kind == "text":
        return ("text", str(value))
    if kind == "number":
        return ("number", _number_text(value))  # type: ignore[arg-type]
    return (kind, _scalar_text(value, kind))


_NUMBER_TEXT = re.compile(r"\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*")
#: Text longer than this is not decoded to see whether it holds JSON: bounded work.
LONGEST_JSON_TEXT = 1_000_000


def text_number(text: str) -> int | float | None:
    """The number a text holds ("5", " 2.5 ", "1e3"), or None; whole numbers as int."""
    if len(text) > 400 or not _NUMBER_TEXT.fullmatch(text):
        return None
    number = float(text)
    if not math.isfinite(number):
        return None
    stripped = text.strip().lstrip("+")
    if stripped.lstrip("-").isdigit():
        return int(stripped)
    return int(number) if number.is_integer() else number


def text_json(text: str) -> object:
    """The list or object a text holds as JSON, or None."""
    if len(text) > LONGEST_JSON_TEXT or text.lstrip()[:1] not in ("{", "["):
        return None
    try:
        decoded = decode_json(text)
    except ValueError:  # not JSON
        return None
    except RecursionError:
        if not on_a_fresh_stack():
            raise  # the host's own depth, maybe: decided again on a fresh stack (`stack`)
        return None  # nested too deeply
    return decoded if isinstance(decoded, (dict, list)) else None


def _is_whole_number(value: int | float) -> bool:
    return isinstance(value, int) or (math.isfinite(value) and value.is_integer())


def _is_whole_text(value: str) -> bool:
    return isinstance(text_number(value), int)


#: Kinds that narrow a base kind: a value of the base kind is of the narrower kind when it
#: passes the test. Tables name them like base kinds (the `strict` and `extended` tables).
REFINED_KINDS: dict[str, tuple[str, object]] = {
    "whole-number": ("number", _is_whole_number),
    "numeric-text": ("text", lambda value: text_number(value) is not None),
    "whole-text": ("text", _is_whole_text),
    "boolean-text": ("text", lambda value: value.strip().casefold() in ("true", "false")),
    "object-json-text": ("text", lambda value: isinstance(text_json(value), dict)),
    "list-json-text": ("text", lambda value: isinstance(text_json(value), list)),
}


def base_kind(kind: str) -> str:
    return REFINED_KINDS[kind][0] if kind in REFINED_KINDS else kind
