"""The relay of lines between the client and the server.

Lines from the client go to the server as the very bytes they came as, but for `tools/call`
requests, which pass the gate first; lines from the server go to the client as they came,
but for the answers to the proxy's own requests. On their way through, the answers to the
client's `tools/list` and the server's `notifications/tools/list_changed` are read (see
`ToolList`); every other line from the server is passed on without being parsed.

While the proxy lists the tools itself, the call that needs them and every client line after
it wait, in order, but for the client's answers to the server's requests: a server may wait
for one of those (roots, sampling, elicitation) before it answers the list.
"""

from __future__ import annotations

from typing import Callable

import anyio

from .call_gate import CallGate, Ruling
from .messages import encode, envelope, is_answer, is_call, parse
from .own_requests import OwnRequests, Send

#: Starts a task beside the relay's (a task group's `start_soon`).
Spawn = Callable[..., None]
Held = list[tuple[bytes, object]]


class Relay:
    def __init__(self, gate: CallGate, to_server: Send, to_client: Send, spawn: Spawn):
        self.gate, self.tools = gate, gate.tools
        self.to_server, self.to_client, self.spawn = to_server, to_client, spawn
        self.own = OwnRequests(to_server)
        self.held: Held | None = None  # client lines waiting for the tool list
        self.released = anyio.Event()  # set while no line waits
        self.released.set()

    # client -> server

    async def from_client(self, line: bytes) -> None:
        message = parse(line)
        if self.held is not None and not is_answer(message):
            self.held.append((line, message))
        else:
            await self.relay(line, message, may_hold=True)

    async def relay(self, line: bytes, message: object, may_hold: bool) -> None:
        """One client line on to the server. A JSON-RPC batch (MCP 2025-03-26) is judged call
        by call. `may_hold`: whether the line may wait for the tool list (not when it is
        one that waited already)."""
        batch = type(message) is list
        messages: list = message if batch else [message]  # type: ignore[assignment]
        calls = [m for m in messages if is_call(m)]
        if not calls:
            self.tools.client_asked(message)
            return await self.to_server(line)
        if may_hold and self.gate.wants_fresh_list(calls):
            self.tools.stale = True
        if self.tools.stale and may_hold:
            self.held, self.released = [(line, message)], anyio.Event()
            return self.spawn(self.release, envelope(calls[0]))
        if self.tools.stale:
            await self.tools.fetch(self.own.ask, envelope(calls[0]))
        await self.gated(line, messages, batch)

    async def release(self, request_envelope: dict) -> None:
        """List the tools, then pass on the lines that waited, in order."""
        await self.tools.fetch(self.own.ask, request_envelope)
        while self.held:
            line, message = self.held.pop(0)
            await self.relay(line, message, may_hold=False)
        self.held = None
        self.released.set()

    async def gated(self, line: bytes, messages: list, batch: bool) -> None:
        """Calls that fit go to the server (the line as it came, unless a cast changed it);
        the others are answered here, in a batch of their own where they came in one."""
        rulings = [self.gate.judge(m) if is_call(m) else Ruling(m) for m in messages]
        sent = [r.send for r in rulings if r.send is not None]
        answers = [r.answer for r in rulings if r.answer is not None]
        if sent:
            changed = any(r.changed for r in rulings)
            await self.to_server(encode(sent if batch else sent[0]) if changed else line)
        if answers:
            await self.to_client(encode(answers if batch else answers[0]))

    # server -> client

    def may_concern_the_proxy(self, line: bytes) -> bool:
        """Whether a line from the server is worth parsing: while the proxy waits for some
        answer (its own, a client's tools/list, a call whose step is open), or when it may
        be a list_changed. The rest, most lines, pass as bytes."""
        steps = self.gate.steps
        waiting = bool(self.tools.client_lists) or (steps is not None and steps.waiting)
        return waiting or self.own.mark in line or b"list_changed" in line

    async def from_server(self, line: bytes) -> None:
        message = parse(line) if self.may_concern_the_proxy(line) else None
        if not isinstance(message, dict):
            return await self.to_client(line)
        if self.own.take_answer(message):
            return
        self.tools.observe(message)
        await self.to_client(line)
        if self.gate.steps is not None and is_answer(message):
            self.gate.steps.answered(message)
