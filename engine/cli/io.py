"""What every `turngate` command shares: exit codes, reading JSON files, writing lines, and
the one kind of error a command reports as a sentence instead of a traceback."""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path

from ..values.decoding import decode_json, integer_text
from ..values.kinds import kind_of

FITS, REFUSED, UNUSABLE = 0, 1, 2
PARTIAL = 1  # timeline and stats: some lines of the record file were not steps


class InputError(Exception):
    """Input the command cannot use; its text is the one sentence the user sees."""


def read_json_file(path: str, what: str) -> object:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f'the {what} file "{path}" does not exist.') from None
    except UnicodeDecodeError:
        raise InputError(f'the {what} file "{path}" is not UTF-8 text.') from None
    except OSError as error:
        raise InputError(f'the {what} file "{path}" cannot be read: {error.strerror or error}.') from None
    return parse_json(text, f'the {what} file "{path}"')


def parse_json(text: str, source: str) -> object:
    try:
        return decode_json(text)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}" if "\n" in text else f"column {error.colno}"
        raise InputError(f"{source} is not valid JSON: {error.msg.lower()} at {where}.") from None
    except RecursionError:
        raise InputError(f"{source} nests too deeply to be read as JSON.") from None


_HOLDS = {"null": "null", "boolean": "a boolean", "number": "a number", "text": "text", "list": "a list"}


def require_object(value: object, source: str) -> dict:
    if not isinstance(value, dict):
        raise InputError(f"{source} holds {_HOLDS.get(kind_of(value) or '', 'a value')}, "
                         "not a JSON object, so it is not a schema.")
    return value


def write_line(text: str) -> None:
    # A lone surrogate the model sent cannot be UTF-8: it is written escaped, never raised.
    sys.stdout.buffer.write(text.encode("utf-8", errors="backslashreplace") + b"\n")


def dump(data: object) -> str:
    """Data as one line of JSON: characters as they are where UTF-8 can hold them (a lone
    surrogate makes the line escape every character that is not ASCII), integers of any length."""
    try:
        text = json.dumps(data, ensure_ascii=False)
    except ValueError:  # an integer of more digits than Python writes at once
        return _dump_long_integers(data)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, ensure_ascii=True)
    return text


def _dump_long_integers(data: object) -> str:
    marker = f"\x00{secrets.token_hex(8)}:"
    digits: list[str] = []

    def marked(value: object) -> object:
        if type(value) is int and value.bit_length() > 13_000:
            digits.append(integer_text(value))
            return f"{marker}{len(digits) - 1}"
        if isinstance(value, dict):
            return {key: marked(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [marked(item) for item in value]
        return value

    text = dump(marked(data))
    quoted = json.dumps(marker, ensure_ascii=False)[:-1]
    for index, number in enumerate(digits):
        text = text.replace(f'{quoted}{index}"', number, 1)
    return text
