"""JSON text decoded, and integers written back, whatever the size of their numbers.

Python refuses to turn more than 4,300 digits into an int at once (a guard against slow
conversions); JSON has no such limit, so an integer longer than that is read in halves.
"""

from __future__ import annotations

import json

#: Python turns at most this many digits into an int at once (`sys.get_int_max_str_digits`).
DIGITS_AT_ONCE = 4000


def _integer(digits: str) -> int:
    if len(digits) <= DIGITS_AT_ONCE:
        return int(digits)
    sign, digits = (-1, digits[1:]) if digits[0] == "-" else (1, digits)
    half = len(digits) // 2
    return sign * (_integer(digits[:half]) * 10 ** (len(digits) - half) + _integer(digits[half:]))


#: The decoder's scan of one value, without the searches for white space around it that
#: `json.loads` makes: on the short texts of a call's arguments, those cost about as much
#: as the scan itself.
_scan_value = json.JSONDecoder().scan_once


def decode_json(text: str) -> object:
    """JSON text decoded, whatever the size of its numbers (raises `json.JSONDecodeError`,
    or `RecursionError` for text nested too deeply)."""
    try:
        value, end = _scan_value(text, 0)
        if end == len(text):
            return value
    except (StopIteration, ValueError):
        pass  # white space around the value, or no value: json.loads reads it, or says why not
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer of more digits than Python reads at once
        return json.loads(text, parse_int=_integer)


def integer_text(number: int) -> str:
    """An integer's digits, of any length: a longer one is written in halves."""
    if number < 0:
        return "-" + integer_text(-number)
    if number.bit_length() <= 3.3 * DIGITS_AT_ONCE:
        return int.__repr__(number)
    half = int(number.bit_length() * 0.30103) // 2
    high, low = divmod(number, 10 ** half)
    return integer_text(high) + integer_text(low).rjust(half, "0")
