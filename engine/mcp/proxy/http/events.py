"""Server-sent event streams as the proxy serves and reads them.

`EventStream`: the events of one response stream, kept in order with their ids, so that a
client whose connection drops takes the stream up again where it left it (a GET with
`Last-Event-ID`, as the specification has resumption): the stream goes on filling while no
one reads it, and a reader starts at any event. `EventReader`: events cut from the bytes of
a stream passing through, for the proxy to read (the bytes themselves go on as they came).
"""

from __future__ import annotations

import uuid
from typing import AsyncIterator

import anyio

from .wire import event

#: Streams of a session kept for a client to resume, the newest ones.
KEPT_STREAMS = 64


class EventStream:
    id: str
    done: bool
    readers: int

    def __init__(self, streams: dict[str, EventStream] | None = None):
        self.id = uuid.uuid4().hex
        self.events: list[bytes] = []
        self.done = False
        self.readers = 0  # clients reading it now
        self._changed = anyio.Event()
        if streams is not None:
            streams[self.id] = self
            for old in list(streams)[:-KEPT_STREAMS]:
                del streams[old]

    def send(self, data: bytes) -> None:
        self.events.append(event(data, f"{self.id}.{len(self.events) + 1}"))
        self._wake()

    def prime(self) -> None:
        """An event with an id and no data, first: the client can resume the stream from it
        even if nothing else came before it dropped."""
        self.events.append(f"id: {self.id}.{len(self.events) + 1}\nevent: message\ndata: \n\n".encode())
        self._wake()

    def close(self) -> None:
        self.done = True
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def read(self, start: int = 0) -> AsyncIterator[bytes]:
        """The events from the `start`th on, as they come, until the stream is done."""
        at = start
        self.readers += 1
        try:
            while True:
                while at < len(self.events):
                    yield self.events[at]
                    at += 1
                if self.done:
                    return
                await self._changed.wait()
        finally:
            self.readers -= 1


def resume_point(last_event_id: str, streams: dict[str, EventStream]) -> tuple[EventStream, int] | None:
    """The stream a `Last-Event-ID` names, and the place after that event."""
    stream_id, _, number = last_event_id.partition(".")
    stream = streams.get(stream_id)
    if stream is None or not number.isdigit():
        return None
    return stream, int(number)


class EventReader:
    """The `data` of each event in a byte stream, as the bytes come (CRLF, CR or LF ends a line)."""

    def __init__(self) -> None:
        self._pending = b""
        self._data: list[bytes] = []

    def feed(self, chunk: bytes) -> list[bytes]:
        self._pending += chunk
        found: list[bytes] = []
        while True:
            cut = min((at for at in (self._pending.find(b"\r"), self._pending.find(b"\n")) if at >= 0), default=-1)
            if cut < 0 or (self._pending[cut:cut + 1] == b"\r" and cut + 1 == len(self._pending)):
                return found  # a CR at the end may be half of a CRLF: wait for the next chunk
            line = self._pending[:cut]
            step = 2 if self._pending[cut:cut + 2] == b"\r\n" else 1
            self._pending = self._pending[cut + step:]
            if not line:
                if b"\n".join(self._data):  # an event with no data is not dispatched (a priming event)
                    found.append(b"\n".join(self._data))
                self._data = []
            elif line.startswith(b"data:"):
                value = line[5:]
                self._data.append(value[1:] if value.startswith(b" ") else value)
