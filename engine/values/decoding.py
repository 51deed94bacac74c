"""JSON text decoded, and integers written back, whatever the size of their numbers.

Python refuses to turn more than 4,300 digits into an int at once (a guard against slow
conversions); JSON has no such limit, so an integer longer than that is read in halves.
"""

from __future__ import annotations

import json
import re

#: Python turns at most this many digits into an int at once (`sys.get_int_max_str_digits`).
DIGITS_AT_ONCE = 4000


def any_size_integer(digits: str) -> int:
    if len(digits) <= DIGITS_AT_ONCE:
        return int(digits)
    sign, digits = (-1, digits[1:]) if digits[0] == "-" else (1, digits)
    half = len(digits) // 2
    return sign * (any_size_integer(digits[:half]) * 10 ** (len(digits) - half) + any_size_integer(digits[half:]))


class _NotJSON(ValueError):
    """`NaN`, `Infinity` or `-Infinity`: Python's `json` reads them, JSON has no such value."""


def _refused_constant(name: str) -> object:
    raise _NotJSON(name)


#: The decoder's scan of one value, without the searches for white space around it that
#: `json.loads` makes: on the short texts of a call's arguments, those cost about as much
#: as the scan itself.
_DECODER = json.JSONDecoder(parse_constant=_refused_constant)
_scan_value = _DECODER.scan_once
_LONG_DECODER = json.JSONDecoder(parse_constant=_refused_constant, parse_int=any_size_integer)
#: A string, or one of the names Python's `json` reads where JSON has none.
_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)', re.DOTALL)


def decode_json(text: str) -> object:
    """JSON text decoded, whatever the size of its numbers (raises `json.JSONDecodeError`,
    also for `NaN` and `Infinity`, which are not JSON; `RecursionError` for text nested too
    deeply)."""
    try:
        value, end = _scan_value(text, 0)
        if end == len(text):
            return value
    except _NotJSON as error:
        raise _not_json(text, str(error)) from None
    except (StopIteration, ValueError):
        pass  # white space around the value, or no value: json.loads reads it, or says why not
    try:
        return _DECODER.decode(text)
    except _NotJSON as error:
        raise _not_json(text, str(error)) from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer of more digits than Python reads at once
        try:
            return _LONG_DECODER.decode(text)
        except _NotJSON as error:
            raise _not_json(text, str(error)) from None


def _not_json(text: str, name: str) -> json.JSONDecodeError:
    """Where the first `NaN` or `Infinity` outside a string stands (everything before it was
    read as JSON, so its strings are whole)."""
    position = next((found.start(1) for found in _CONSTANT.finditer(text) if found.group(1)), 0)
    return json.JSONDecodeError(f"Expecting value, not {name}", text, position)


def integer_text(number: int) -> str:
    """An integer's digits, of any length: a longer one is written in halves."""
    if number < 0:
        return "-" + integer_text(-number)
    if number.bit_length() <= 3.3 * DIGITS_AT_ONCE:
        return int.__repr__(number)
    half = int(number.bit_length() * 0.30103) // 2
    high, low = divmod(number, 10 ** half)
    return integer_text(high) + integer_text(low).rjust(half, "0")
