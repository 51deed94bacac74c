"""JSON text written whatever the size of its integers, and never with `NaN` or `Infinity`.

Python refuses to write an integer of more than 4,300 digits at once, and `json` writes
`NaN` and `Infinity`, which are not JSON (JavaScript's `JSON.parse` fails on them). Every
value turngate writes (a command's output, a run step, a proxied message) is written here:
an integer of any size in full, a float that is not finite as `null` (as JavaScript's
`JSON.stringify` writes it; nothing turngate reads can hold one, see `decoding`).
"""

from __future__ import annotations

import json
import math
import re
import secrets

from .decoding import integer_text

#: Integers of more bits than this are written in halves (Python writes 4,300 digits at once).
_LONGEST_AT_ONCE = 13_000


#: A surrogate code point: text may hold one (JSON's "\\ud800" decodes to it), UTF-8 cannot.
_SURROGATE = re.compile("[\ud800-\udfff]")


def encode_json(value: object, ascii_only: bool = False, separators: tuple[str, str] | None = None) -> str:
    """A JSON value as JSON text (`TypeError` for what JSON cannot hold, as `json.dumps`),
    which any encoding can write: a surrogate is written as its escape."""
    text = _json_text(value, ascii_only, separators)
    if not ascii_only and _SURROGATE.search(text):
        text = _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
    return text


def _json_text(value: object, ascii_only: bool, separators: tuple[str, str] | None) -> str:
    try:
        return json.dumps(value, ensure_ascii=ascii_only, separators=separators, allow_nan=False)
    except ValueError as error:
        if "ircular" in str(error):
            raise
    marker = f"\x00{secrets.token_hex(8)}:"
    digits: list[str] = []
    text = json.dumps(_marked(value, marker, digits), ensure_ascii=ascii_only, separators=separators,
                      allow_nan=False)
    quoted = json.dumps(marker, ensure_ascii=ascii_only)[:-1]
    for index, number in enumerate(digits):
        text = text.replace(f'{quoted}{index}"', number, 1)
    return text


def _marked(value: object, marker: str, digits: list[str]) -> object:
    """The value with each integer too long to write at once replaced by a marker (its digits
    kept in `digits`), each float that is not finite by None, and each key JSON text."""
    if type(value) is int or (isinstance(value, int) and not isinstance(value, bool)):
        if value.bit_length() <= _LONGEST_AT_ONCE:
            return value
        digits.append(integer_text(int(value)))
        return f"{marker}{len(digits) - 1}"
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {_key(key): _marked(item, marker, digits) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_marked(item, marker, digits) for item in value]
    return value


def _key(key: object) -> object:
    if isinstance(key, int) and not isinstance(key, bool):
        return integer_text(int(key))
    if isinstance(key, float) and not math.isfinite(key):
        return "null"
    return key
