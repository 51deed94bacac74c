"""JSON text decoded, and integers written back, whatever the size of their numbers.

Python refuses to turn more than 4,300 digits into an int at once (a guard against slow
conversions); JSON has no such limit, so an integer longer than that is read in halves.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from itertools import accumulate
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .jsonvalue import JSON

#: Python turns at most this many digits into an int at once (`sys.get_int_max_str_digits`).
DIGITS_AT_ONCE = 4000


def any_size_integer(digits: str) -> int:
    if len(digits) <= DIGITS_AT_ONCE:
        return int(digits)
    sign, digits = (-1, digits[1:]) if digits[0] == "-" else (1, digits)
    half = len(digits) // 2
    scale: int = 10 ** (len(digits) - half)
    return sign * (any_size_integer(digits[:half]) * scale + any_size_integer(digits[half:]))


class _Unreadable(ValueError):
    """JSON text (or what Python's `json` takes for it) holding a value no JSON reader hands on."""

    def decode_error(self, text: str) -> json.JSONDecodeError:
        raise NotImplementedError


class _NotJSON(_Unreadable):
    """`NaN`, `Infinity` or `-Infinity`: Python's `json` reads them, JSON has no such value."""

    def decode_error(self, text: str) -> json.JSONDecodeError:
        # Where the first one outside a string stands (everything before it was read as
        # JSON, so its strings are whole).
        position = next((found.start(1) for found in _CONSTANT.finditer(text) if found.group(1)), 0)
        return json.JSONDecodeError(f"Expecting value, not {self}", text, position)


class _TooLarge(_Unreadable):
    """A number no float holds that is no integer of at most `MOST_DIGITS_OF_A_LARGE_NUMBER`
    digits: JSON, but no number turngate can hand on as it was written."""

    def decode_error(self, text: str) -> json.JSONDecodeError:
        return json.JSONDecodeError("A number too large to read", text, max(text.find(str(self)), 0))


def _refused_constant(name: str) -> object:
    raise _NotJSON(name)


#: A number too large for a float is read as the integer it is only up to this many digits:
#: past them, a few characters of text (`1e999999`) would make an integer of any length.
MOST_DIGITS_OF_A_LARGE_NUMBER = 1000


def _number(text: str) -> float | int:
    """A JSON number with a fraction or an exponent. One too large for a float (`1e400`)
    would be read as infinity, which is no JSON value: it is read as the integer it is
    (every such number written in a few digits is whole)."""
    number = float(text)
    if number - number == 0.0:  # finite (infinity minus itself is NaN)
        return number
    exact = Decimal(text)
    if exact.adjusted() >= MOST_DIGITS_OF_A_LARGE_NUMBER or exact != exact.to_integral_value():
        raise _TooLarge(text)
    return int(exact)


#: The decoder's scan of one value, without the searches for white space around it that
#: `json.loads` makes: on the short texts of a call's arguments, those cost about as much
#: as the scan itself.
_DECODER = json.JSONDecoder(parse_constant=_refused_constant, parse_float=_number)
_scan_value = _DECODER.scan_once  # type: ignore[attr-defined]
_LONG_DECODER = json.JSONDecoder(parse_constant=_refused_constant, parse_float=_number, parse_int=any_size_integer)
#: A string, or one of the names Python's `json` reads where JSON has none.
_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)', re.DOTALL)


#: JSON text nested deeper than this is not read, whatever the Python: how deep its own
#: reader goes depends on its version (3.11 stops near 1,000 levels less the caller's depth,
#: 3.13 near 10,000), and a verdict must not. Far deeper than any table judges (64 levels).
MOST_NESTING = 512
#: What `json.JSONDecodeError` says of such text.
NESTED_TOO_DEEPLY = "Nested too deeply"
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|([\[\]{}])', re.DOTALL)


def decode_json(text: str) -> JSON:
    """JSON text decoded, whatever the size of its integers (raises `json.JSONDecodeError`,
    also for `NaN` and `Infinity`, which are not JSON, for a number too large for a float
    that is not an integer of at most `MOST_DIGITS_OF_A_LARGE_NUMBER` digits, and for text
    nested more than `MOST_NESTING` levels deep; `RecursionError` where the caller's own
    stack leaves too little room)."""
    if len(text) > 2 * MOST_NESTING and _nested_too_deeply(text):  # shorter text cannot be
        raise json.JSONDecodeError(NESTED_TOO_DEEPLY, text, 0)
    try:
        return _decoded(text)
    except _Unreadable as error:
        raise error.decode_error(text) from None


def _nested_too_deeply(text: str) -> bool:
    if text.count("[") + text.count("{") <= MOST_NESTING:
        return False
    brackets = "".join(_STRING_OR_BRACKET.findall(text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > MOST_NESTING


def _decoded(text: str) -> JSON:
    value: JSON
    try:
        value, end = _scan_value(text, 0)
        if end == len(text):
            return value
    except _Unreadable:
        raise
    except (StopIteration, ValueError):
        pass  # white space around the value, or no value: json.loads reads it, or says why not
    try:
        return _DECODER.decode(text)  # type: ignore[no-any-return]
    except (json.JSONDecodeError, _Unreadable):
        raise
    except ValueError:  # an integer of more digits than Python reads at once
        return _LONG_DECODER.decode(text)  # type: ignore[no-any-return]


def integer_text(number: int) -> str:
    """An integer's digits, of any length: a longer one is written in halves."""
    if number < 0:
        return "-" + integer_text(-number)
    if number.bit_length() <= 3.3 * DIGITS_AT_ONCE:
        return int.__repr__(number)
    half = int(number.bit_length() * 0.30103) // 2
    high, low = divmod(number, 10 ** half)
    return integer_text(high) + integer_text(low).rjust(half, "0")
