"""JSON for the tests' own bookkeeping, whatever the size of its numbers: Python refuses to
write or read an integer of more than 4,300 digits at once, and the tests send such integers
on purpose. The limit is lifted only around the tests' own conversions, never while turngate
runs, so that what turngate does with such numbers is still what a host's process sees."""

from __future__ import annotations

import contextlib
import json
import math
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def any_digits() -> Iterator[None]:
    """Python's limit on the digits of an int written or read at once lifted, for the block."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


def dumps(value: object, **options: object) -> str:
    """JSON text of a value the tests made (NaN and Infinity written as Python does)."""
    with any_digits():
        return json.dumps(value, **options)  # type: ignore[arg-type]


def shown(value: object) -> str:
    """A value as JSON for a failure's message, or as Python writes it where JSON cannot
    (a key that is not text, a tuple, NaN: JSON text would hide what it is)."""
    try:
        if json_clean(value):
            return dumps(value)
    except RecursionError:
        pass
    try:
        with any_digits():
            return repr(value)
    except (ValueError, RecursionError):
        return f"<{type(value).__name__} that Python cannot write>"


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def strict_loads(text: str) -> object:
    """JSON text read as a strict reader (JavaScript's JSON.parse) reads it: NaN, Infinity
    and -Infinity are not JSON; integers of any length are. Raises ValueError otherwise."""
    with any_digits():
        return json.loads(text, parse_constant=_no_constant)


def holds_no_nan(value: object) -> bool:
    """Whether a decoded value holds no NaN or infinity anywhere (keys included)."""
    waiting = [value]
    while waiting:
        value = waiting.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return False
        if isinstance(value, dict):
            waiting.extend(value)
            waiting.extend(value.values())
        elif isinstance(value, (list, tuple)):
            waiting.extend(value)
    return True


def same_json(one: object, other: object) -> bool:
    """Equal as JSON text is, but for the order of keys: 1 is not true, 5 is not 5.0, -0.0
    is not 0.0; integers of any size compared as numbers. (Compared without recursion, as
    each of these helpers walks: a fuzzed value may be nested deeper than the stack.)"""
    waiting = [(one, other)]
    while waiting:
        one, other = waiting.pop()
        if isinstance(one, dict) and isinstance(other, dict):
            if one.keys() != other.keys():
                return False
            waiting.extend((one[key], other[key]) for key in one)
        elif isinstance(one, (list, tuple)) and isinstance(other, (list, tuple)):
            if len(one) != len(other):
                return False
            waiting.extend(zip(one, other))
        elif isinstance(one, (dict, list, tuple)) or isinstance(other, (dict, list, tuple)):
            return False
        elif isinstance(one, float) and isinstance(other, float):
            if repr(one) != repr(other):
                return False
        elif not (type(one) is type(other) and one == other):
            return False
    return True


def same_data(one: object, other: object) -> bool:
    """Equal as Python data, types and key order included: what a host gave, unchanged."""
    waiting = [(one, other)]
    while waiting:
        one, other = waiting.pop()
        if type(one) is not type(other):
            return False
        if isinstance(one, dict):
            if list(one) != list(other):  # type: ignore[call-overload]
                return False
            waiting.extend((one[key], other[key]) for key in one)  # type: ignore[index]
        elif isinstance(one, (list, tuple)):
            if len(one) != len(other):  # type: ignore[arg-type]
                return False
            waiting.extend(zip(one, other))  # type: ignore[call-overload]
        elif isinstance(one, float):
            if repr(one) != repr(other):
                return False
        elif one != other:
            return False
    return True


def unshared(value: object) -> object:
    """A copy in which no two places hold the same list or object (a deep copy keeps the
    sharing of the original): what one call is handed can then be changed alone."""
    if isinstance(value, dict):
        return {key: unshared(item) for key, item in value.items()}
    if isinstance(value, list):
        return [unshared(item) for item in value]
    if isinstance(value, tuple):
        return tuple(unshared(item) for item in value)
    if isinstance(value, (set, bytearray)):
        return type(value)(value)
    return value


def json_clean(value: object) -> bool:
    """Whether a value is plain JSON data: text keys, lists, finite numbers, no other types.
    Walked without recursion: a fuzzed value may be nested deeper than the interpreter's stack."""
    waiting = [value]
    while waiting:
        value = waiting.pop()
        if isinstance(value, dict):
            if not all(isinstance(key, str) for key in value):
                return False
            waiting.extend(value.values())
        elif isinstance(value, list):
            waiting.extend(value)
        elif isinstance(value, float):
            if not math.isfinite(value):
                return False
        elif not (value is None or isinstance(value, (str, int, bool))):
            return False
    return True
