"""What every `turngate` command shares: exit codes, reading JSON files, writing lines, and
the one kind of error a command reports as a sentence instead of a traceback."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .values import kind_of

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
        return json.loads(text)
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
    sys.stdout.buffer.write(text.encode("utf-8") + b"\n")


def dump(data: object) -> str:
    return json.dumps(data, ensure_ascii=False)
