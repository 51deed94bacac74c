"""What every `turngate` command shares: exit codes, reading files (or standard input, named
`-`) with one wording for each problem, writing lines, and the one kind of error a command
reports as a sentence instead of a traceback.

Every file is read the same way, whichever command reads it: a missing file, a folder, text
that is not UTF-8, an empty file and invalid JSON (with its line and column) are each told in
one sentence of one shape, `the <what> file "<path>" <problem>.`; a UTF-8 byte order mark at
the start is accepted.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import Any, BinaryIO, Iterator

from ..values.decoding import NESTED_TOO_DEEPLY, decode_json
from ..values.encoding import encode_json
from ..values.kinds import kind_of

FITS, REFUSED, UNUSABLE = 0, 1, 2
PARTIAL = 1  # timeline and stats: some lines of the record file were not steps
PLUGIN_FAILED = 3  # a rule kind of a --plugin raised while it was used: nothing was decided
INTERNAL_ERROR = 70  # turngate itself failed (sysexits' EX_SOFTWARE): a bug to report
INTERRUPTED = 130  # 128 + SIGINT: Ctrl-C
CLOSED_PIPE = 141  # 128 + SIGPIPE: the reader of standard output went away (`| head -1`)

STDIN = "-"
BOM = b"\xef\xbb\xbf"
#: How many bad lines of one file are told one by one; the rest are counted.
SHOWN_BAD_LINES = 3


class InputError(Exception):
    """Input the command cannot use; its text is the one sentence the user sees."""


def source_name(path: str, what: str) -> str:
    """How a sentence names a file: `the schema file "s.json"`, or standard input."""
    return f'the {what} file "-" (standard input)' if path == STDIN else f'the {what} file "{path}"'


def _open(path: str, source: str) -> contextlib.AbstractContextManager[BinaryIO]:
    if path == STDIN:
        if sys.stdin is None:
            raise InputError(f"{source} cannot be read: standard input is closed.")
        return contextlib.nullcontext(sys.stdin.buffer)
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"{source} does not exist.") from None
    except OSError as error:
        raise _unreadable(path, source, error) from None


def _unreadable(path: str, source: str, error: OSError) -> InputError:
    if path != STDIN and os.path.isdir(path):
        return InputError(f"{source} is a folder, not a file.")
    return InputError(f"{source} cannot be read: {error.strerror or error}.")


def _decoded(data: bytes, source: str, offset: int = 0) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        where = offset + error.start
        raise InputError(f"{source} is not UTF-8 text (byte 0x{data[error.start]:02x} at offset {where}).") from None


def read_text(path: str, what: str) -> str:
    """A whole file (or standard input) as text; a byte order mark at its start is dropped."""
    source = source_name(path, what)
    with _open(path, source) as stream:
        try:
            data = stream.read()
        except OSError as error:
            raise _unreadable(path, source, error) from None
    skipped = len(BOM) if data.startswith(BOM) else 0
    text = _decoded(data[skipped:], source, skipped)
    if not text.strip():
        raise InputError(f"{source} is empty.")
    return text


def read_json_file(path: str, what: str) -> object:
    return parse_json(read_text(path, what), source_name(path, what))


def json_lines(path: str, what: str) -> Iterator[tuple[int, str]]:
    """The numbered lines of a JSON-lines file that are not blank, read as they come (so
    standard input is answered line by line); lines end at "\\n" only."""
    source = source_name(path, what)
    any_line, offset = False, 0
    with _open(path, source) as stream:
        for number, raw in enumerate(_raw_lines(stream, path, source), 1):
            skipped = len(BOM) if number == 1 and raw.startswith(BOM) else 0
            line = _decoded(raw[skipped:], source, offset + skipped).rstrip("\r\n")
            offset += len(raw)
            if line.strip():
                any_line = True
                yield number, line
    if not any_line:
        raise InputError(f"{source} is empty.")


def _raw_lines(stream: BinaryIO, path: str, source: str) -> Iterator[bytes]:
    while True:
        try:
            raw = stream.readline()
        except OSError as error:
            raise _unreadable(path, source, error) from None
        if not raw:
            return
        yield raw


def parse_json(text: str, source: str) -> object:
    try:
        return decode_json(text)
    except json.JSONDecodeError as error:
        if error.msg == NESTED_TOO_DEEPLY:
            raise InputError(f"{source} nests too deeply to be read as JSON.") from None
        where = f"line {error.lineno}, column {error.colno}" if "\n" in text else f"column {error.colno}"
        raise InputError(f"{source} is not valid JSON: {error.msg[:1].lower() + error.msg[1:]} at {where}.") from None
    except RecursionError:
        raise InputError(f"{source} nests too deeply to be read as JSON.") from None


_HOLDS = {"null": "null", "boolean": "a boolean", "number": "a number", "text": "text", "list": "a list",
          "object": "an object"}


def holds(value: object) -> str:
    """What a JSON value is, for a sentence: "a list", "text", "null"."""
    return _HOLDS.get(kind_of(value) or "", "a value")


def require_object(value: object, source: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{source} holds {holds(value)}, not a JSON object, so it is not a schema.")
    return value


def bad_lines(sentences: list[str], source: str, singular: str, plural: str) -> None:
    """The first few sentences about bad lines of a file on standard error, then how many
    more there are: "… and 17 more lines of the steps file "s.jsonl" are not run steps."."""
    for sentence in sentences[:SHOWN_BAD_LINES]:
        warn(sentence)
    more = len(sentences) - SHOWN_BAD_LINES
    if more > 0:
        warn(f"… and {more} more line{'' if more == 1 else 's'} of {source} "
             f"{'is not ' + singular if more == 1 else 'are not ' + plural}.")


def warn(sentence: str) -> None:
    sys.stderr.write(f"turngate: {sentence}\n")


def write_line(text: str, flush: bool = False) -> None:
    # A lone surrogate the model sent cannot be UTF-8: it is written escaped, never raised.
    sys.stdout.buffer.write(text.encode("utf-8", errors="backslashreplace") + b"\n")
    if flush:
        sys.stdout.buffer.flush()


def dump(data: object) -> str:
    """Data as one line of JSON (`values.encoding`: integers of any length, never NaN):
    characters as they are where UTF-8 can hold them (a lone surrogate makes the line escape
    every character that is not ASCII)."""
    text = encode_json(data)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = encode_json(data, ascii_only=True)
    return text
