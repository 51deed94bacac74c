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
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(holds_no_nan(key) and holds_no_nan(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return all(map(holds_no_nan, value))
    return True


def same_json(one: object, other: object) -> bool:
    """Equal as JSON text is, but for the order of keys: 1 is not true, 5 is not 5.0, -0.0
    is not 0.0; integers of any size compared as numbers."""
    if isinstance(one, dict) and isinstance(other, dict):
        return one.keys() == other.keys() and all(same_json(one[key], other[key]) for key in one)
    if isinstance(one, (list, tuple)) and isinstance(other, (list, tuple)):
        return len(one) == len(other) and all(map(same_json, one, other))
    if isinstance(one, (dict, list, tuple)) or isinstance(other, (dict, list, tuple)):
        return False
    if isinstance(one, float) and isinstance(other, float):
        return repr(one) == repr(other)
    return type(one) is type(other) and one == other


def same_data(one: object, other: object) -> bool:
    """Equal as Python data, types and key order included: what a host gave, unchanged."""
    if type(one) is not type(other):
        return False
    if isinstance(one, dict):
        return list(one) == list(other) and all(same_data(one[key], other[key]) for key in one)  # type: ignore[index]
    if isinstance(one, (list, tuple)):
        return len(one) == len(other) and all(map(same_data, one, other))  # type: ignore[arg-type]
    if isinstance(one, float):
        return repr(one) == repr(other)
    return one == other


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
    """Whether a value is plain JSON data: text keys, lists, finite numbers, no other types."""
    if isinstance(value, dict):
        return all(isinstance(key, str) and json_clean(item) for key, item in value.items())
    if isinstance(value, list):
        return all(map(json_clean, value))
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, (str, int, bool))
