"""The relay of lines between the client and the server.

Lines from the client go to the server as the very bytes they came as, but for `tools/call`
requests, which pass the gate first; lines from the server go to the client as they came,
but for what belongs to the proxy's own requests. On their way through, the answers to the
client's `tools/list` and the server's `notifications/tools/list_changed` are read (see
`Session`); every other line from the server is passed on without being parsed.

A client line is read as the servers read it (see `reading`): where a bare CR splits it,
each piece is judged. When the list is to be read before a call is judged, that call and
the calls after it wait, in order; every other line goes on at once (a server may wait for
the client's answer to one of its requests before it answers the list, and a client's
ping must not wait for a server that does not answer the proxy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, cast

import anyio

from .batches import BatchAnswers
from .call_gate import CallGate, Ruling, call_name
from .messages import Message, encode, id_key, is_answer, is_call, params_of, parse
from .own_requests import OwnRequests, Send
from .reading import Piece, pieces

if TYPE_CHECKING:
    from anyio import Event
    from .session import Session
    from typing import Awaitable

#: Starts a task beside the relay's (a task group's `start_soon`).
Spawn = Callable[..., object]
CANCELLED = "notifications/cancelled"


def call_names(parts: list[Piece]) -> list[str] | None:
    """The tools the calls of a line name; None when the line holds no call."""
    found: list[str] | None = None
    for part in parts:
        for message in part.message if type(part.message) is list else [part.message]:
            if is_call(message):
                found = found or []
                name = call_name(message)
                if name is not None:
                    found.append(name)
    return found


class Relay:
    gate: CallGate
    session: Session
    own: OwnRequests
    to_server: Callable[[bytes], Awaitable[None]]
    to_client: Callable[[bytes], Awaitable[None]]
    spawn: Callable[..., object]
    released: Event
    batches: BatchAnswers

    def __init__(self, gate: CallGate, own: OwnRequests, to_server: Send, to_client: Send, spawn: Spawn):
        self.gate, self.session, self.own = gate, gate.session, own
        self.to_server, self.to_client, self.spawn = to_server, to_client, spawn
        self.queue: list[tuple[bytes, list[Piece], float]] | None = None  # calls waiting for the list
        self.cancelled: set[str] = set()  # ids of waiting calls the client cancelled
        self.released = anyio.Event()  # set while no call waits
        self.released.set()
        self.batches = BatchAnswers()

    # client -> server

    async def from_client(self, line: bytes) -> None:
        parts = pieces(line) or [Piece(line, None)]
        names = call_names(parts)
        if names is None:
            for part in parts:
                await self._passing(part.message)
            return await self.to_server(line)
        came = self.session.tools.clock()
        if self.queue is not None:
            self.queue.append((line, parts, came))
        elif self.session.wants_list(names):
            self.queue, self.released = [(line, parts, came)], anyio.Event()
            self.spawn(self._release)
        else:
            await self.gated(line, parts, came)

    async def _passing(self, message: object) -> None:
        for each in message if type(message) is list else [message]:
            if isinstance(each, dict) and each.get("method") == CANCELLED and self.queue:
                self.cancelled.add(id_key(params_of(each).get("requestId")))
            await self.session.client_request(each)

    async def _release(self) -> None:
        """Read the list, then judge the calls that waited, in order."""
        try:
            while self.queue:
                line, parts, came = self.queue[0]
                names = call_names(parts) or []
                if self.session.wants_list(names, came):
                    await self.session.read_list(names)
                self.queue.pop(0)
                await self.gated(line, parts, came)
        finally:
            self.queue = None
            self.cancelled.clear()
            self.released.set()

    async def gated(self, line: bytes, parts: list[Piece], came: float) -> None:
        """The pieces that go on (the line as it came, unless a call was taken out or cast),
        and the proxy's answers to the others; `came`: when the line came."""
        sent: list[bytes] = []
        answers: list[object] = []
        changed = False
        for part in parts:
            message = part.message
            if type(message) is list:
                data, answer = await self._batch(part, came)
            elif is_call(message):
                data, answer = self._call(part, came)
            else:
                await self._passing(message)
                data, answer = part.data, None
            changed = changed or data is not part.data
            if data:
                sent.append(data)
            if answer is not None:
                answers.append(answer)
        if sent:
            out = line if not changed else b"".join(sent)
            await self.to_server(out if out.endswith(b"\n") else out + b"\n")
        for answer in answers:
            await self.to_client(encode(answer))

    def _ruling(self, message: Message, came: float) -> Ruling:
        if self.cancelled and "id" in message and id_key(message["id"]) in self.cancelled:
            return Ruling(None, True)  # cancelled while it waited: it never reaches the server
        return self.gate.judge(message, came)

    def _call(self, part: Piece, came: float) -> tuple[bytes, object]:
        ruling = self._ruling(part.message, came)  # type: ignore[arg-type]
        if ruling.send is None:
            return b"", ruling.answer
        return (encode(ruling.send) if ruling.changed else part.data), None

    async def _batch(self, part: Piece, came: float) -> tuple[bytes, object]:
        rulings: list[Ruling] = []
        for message in cast(list[object], part.message):
            if is_call(message):
                rulings.append(self._ruling(cast(Message, message), came))
            else:
                await self._passing(message)
                rulings.append(Ruling(message))
        if not any(ruling.changed for ruling in rulings):
            return part.data, None
        sent = [ruling.send for ruling in rulings if ruling.send is not None]
        answers = [ruling.answer for ruling in rulings if ruling.answer is not None]
        data = encode(sent) if sent else b""
        if answers and not self.batches.expect(sent, answers):
            return data, answers
        return data, None

    # server -> client

    def may_concern_the_proxy(self, line: bytes) -> bool:
        """Whether a line from the server is worth parsing: while the proxy waits for some
        answer (its own, a client's tools/list, a call whose step is open, a batch's), or
        when it may be a list_changed. The rest, most lines, pass as bytes."""
        steps = self.gate.steps
        waiting = (bool(self.session.tools.client_listings) or self.own.pending or bool(self.batches.waiting)
                   or (steps is not None and steps.waiting))
        return waiting or self.own.mark in line or b"list_changed" in line

    async def from_server(self, line: bytes) -> None:
        self.own.heard += 1
        message = parse(line) if self.may_concern_the_proxy(line) else None
        if not isinstance(message, (dict, list)):
            return await self.to_client(line)
        for each in message if isinstance(message, list) else [message]:
            if isinstance(each, dict):
                if self.own.take(each):
                    return
                self.session.server_message(each)
        extra: Any = None
        if self.batches.waiting:
            joined, extra = self.batches.settle(message)
            line = line if joined is message else encode(joined)
        await self.to_client(line)
        if extra:
            await self.to_client(encode(extra))
        steps = self.gate.steps
        if steps is not None and (isinstance(message, list) or is_answer(message)):
            steps.answered(message)
