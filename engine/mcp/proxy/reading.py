"""A client's line cut as a server cuts it.

The proxy passes on what it reads as lines ending in LF, as the bytes they came as. A
server may cut them further: the Python SDK reads stdio as text with universal newlines, so
a bare CR (one not followed by LF) ends a message too, and two messages joined by a bare CR
are two messages to it. The TypeScript SDK cuts at LF alone (and then fails to parse such
a line whole). So the proxy judges each piece the Python SDK would read: nothing a server
would run as a `tools/call` passes unjudged.
"""

from __future__ import annotations

from typing import NamedTuple

from .messages import parse


class Piece(NamedTuple):
    """One message of a line as a server reads it: its bytes (its line ending included)
    and its JSON value (None where it is not JSON)."""

    data: bytes
    message: object


def pieces(line: bytes) -> list[Piece]:
    """The messages of a line; almost always one, the line itself."""
    if b"\r" not in line or (line.endswith(b"\r\n") and line.count(b"\r") == 1):
        return [Piece(line, parse(line))]
    cut, start = [], 0
    at = line.find(b"\r")
    while at >= 0:
        end = at + 2 if line[at + 1:at + 2] == b"\n" else at + 1
        cut.append(line[start:end])
        start = end
        at = line.find(b"\r", start)
    if start < len(line):
        cut.append(line[start:])
    return [Piece(data, parse(data)) for data in cut if data.strip()]
