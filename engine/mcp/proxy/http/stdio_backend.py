"""A stdio server behind `--listen`: its process, the line relay (the gate), and where each
of its messages goes among the HTTP client's streams.

Before 2026-07-28 a client's session (begun by `initialize`) has a server process of its
own: its ids are the client's, and its lines pass through as they came. From 2026-07-28 on
requests carry all they need and no session: they share one server process, so each
request's id (and progress token) is given a new one on its way to the server and its own
back on the way out, and a request whose client goes away before the answer is cancelled
(`notifications/cancelled`, as the SDKs cancel over stdio).

An answer goes to the stream of the POST that asked; a progress notification to the stream
of the request whose token it bears; a frame of a `subscriptions/listen` stream to that
stream. Stdio tells nothing else of what a message relates to: the server's other messages
(its requests, its notifications) go to the session's GET stream, or, while none is open,
to the newest open POST stream, or wait for the next GET stream.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc

from ..call_gate import CallGate
from ..core import Core
from ..messages import Message, encode, id_key, meta_of, params_of, parse, subscription_of
from ..messages import SUBSCRIPTION_ID_KEY
from ..own_requests import OwnRequests
from ..pipes import lines, server_pipes
from ..relay import Relay
from ..server_process import Ending, start_server, stop
from ..session import Session
from ..steps_log import StepLog
from .events import EventStream

if TYPE_CHECKING:
    from anyio.abc import Process
    from typing import Awaitable
    from typing import Callable

#: Messages kept for a GET stream that is not open yet.
BACKLOG = 100
_numbers = itertools.count(1)


class Route:
    """Where the answers of one POST go: its stream, and the ids still to be answered (the
    id on the server's side -> the client's)."""

    stream: EventStream
    ids: dict[str, object]

    def __init__(self, stream: EventStream, ids: dict[str, object]):
        self.stream, self.ids = stream, ids


class Backend:
    command: list[str]
    core: Core
    steps: StepLog | None
    modern: bool
    alive: bool
    ending: Ending
    process: Process
    to_server: Callable[[bytes], Awaitable[None]]
    relay: Relay

    def __init__(self, command: list[str], core: Core, steps: StepLog | None, modern: bool):
        self.command, self.core, self.steps, self.modern = command, core, steps, modern
        self.routes: dict[str, Route] = {}  # by the server-side id
        self.progress: dict[str, tuple[EventStream, object]] = {}  # token -> stream, the client's token
        self.standalone: EventStream | None = None
        self.backlog: list[bytes] = []
        self.streams: dict[str, EventStream] = {}  # every stream, by id, to resume
        self.alive = True
        self.ending = Ending()

    async def start(self, tasks: anyio.abc.TaskGroup) -> None:
        """Start the server (`ServerNotStarted` if it cannot be)."""
        self.process = await start_server(self.command)
        from_server, self.to_server = server_pipes(self.process)
        own = OwnRequests(self.to_server)
        steps = self.steps.sibling(self._client_id) if self.steps else None
        gate = CallGate(Session(self.core, own), steps, self._client_id)
        self.relay = Relay(gate, own, self.to_server, self.deliver, tasks.start_soon)
        tasks.start_soon(self._read, from_server)

    async def _read(self, receive: Any) -> None:
        async for line in lines(receive):
            await self.relay.from_server(line)
        self.alive = False  # the server is gone: every stream ends
        for stream in list(self.streams.values()):
            stream.close()

    def _client_id(self, server_id: object) -> object:
        """A call's id as its client gave it (for the run steps)."""
        route = self.routes.get(id_key(server_id))
        return route.ids.get(id_key(server_id), server_id) if route is not None else server_id

    async def stop(self) -> None:
        with anyio.CancelScope(shield=True):
            await stop(self.process, self.ending)

    # client -> server

    def prepare(self, messages: list[Message], stream: EventStream) -> list[Message]:
        """Note where the answers of a POST's requests go; in a shared server, the requests
        with ids of the server's side."""
        ids: dict[str, object] = {}
        prepared = []
        for message in messages:
            if isinstance(message, dict) and "method" in message and "id" in message:
                message = self._own_id(message) if self.modern else message
                ids[id_key(message["id"])] = message.get("_client_id", message["id"])
                token = meta_of(params_of(message)).get("progressToken")
                if token is not None:
                    self.progress[id_key(token)] = (stream, message.get("_client_token", token))
                message.pop("_client_id", None)
                message.pop("_client_token", None)
            prepared.append(message)
        route = Route(stream, ids)
        for key in ids:
            self.routes[key] = route
        return prepared

    @staticmethod
    def _own_id(message: Message) -> Message:
        number = next(_numbers)
        message = {**message, "id": f"turngate-http-{number}", "_client_id": message["id"]}
        meta = meta_of(params_of(message))
        if "progressToken" in meta:
            params = {**params_of(message), "_meta": {**meta, "progressToken": f"turngate-http-{number}"}}
            message = {**message, "params": params, "_client_token": meta["progressToken"]}
        return message

    async def send(self, line: bytes) -> None:
        await self.relay.from_client(line)

    async def cancel(self, stream: EventStream) -> None:
        """The client went away before its answers came: in a shared server, the requests
        are cancelled (in a session of its own, the client may still resume the stream)."""
        for key, route in list(self.routes.items()):
            if route.stream is stream:
                del self.routes[key]
                request_id = parse(key)
                await self.send(encode({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                        "params": {"requestId": request_id, "reason": "the client went away"}}))

    # server -> client

    async def deliver(self, line: bytes) -> None:
        message = parse(line)
        if isinstance(message, list):
            for each in message:
                await self.deliver(encode(each))
            return
        if not isinstance(message, dict):
            return
        if "method" not in message and "id" in message:
            return self._answer(message, line)
        stream = self._related(message)
        if stream is not None:
            stream.send(self._restored(message, line))
        elif not self.modern:
            self._unrelated(line)

    def _answer(self, message: Message, line: bytes) -> None:
        route = self.routes.pop(id_key(message["id"]), None)
        if route is None:
            return
        client_id = route.ids.pop(id_key(message["id"]))
        route.stream.send(encode({**message, "id": client_id}) if self.modern else line)
        if not route.ids:
            route.stream.close()
            for token, (stream, _) in list(self.progress.items()):
                if stream is route.stream:
                    del self.progress[token]

    def _related(self, message: Message) -> EventStream | None:
        token = params_of(message).get("progressToken")
        if message.get("method") == "notifications/progress" and token is not None:
            found = self.progress.get(id_key(token))
            return found[0] if found else None
        subscription = subscription_of(message)
        route = self.routes.get(id_key(subscription)) if subscription is not None else None
        return route.stream if route is not None else None

    def _restored(self, message: Message, line: bytes) -> bytes:
        if not self.modern:
            return line
        params = dict(params_of(message))
        if "progressToken" in params:
            params["progressToken"] = self.progress[id_key(params["progressToken"])][1]
        meta = meta_of(params)
        if SUBSCRIPTION_ID_KEY in meta:
            route = self.routes[id_key(meta[SUBSCRIPTION_ID_KEY])]
            params["_meta"] = {**meta, SUBSCRIPTION_ID_KEY: route.ids[id_key(meta[SUBSCRIPTION_ID_KEY])]}
        return encode({**message, "params": params})

    def _unrelated(self, line: bytes) -> None:
        target = self.standalone if self.standalone is not None and not self.standalone.done else None
        if target is None:
            target = next((route.stream for route in reversed(list(self.routes.values())) if not route.stream.done),
                          None)
        if target is not None:
            target.send(line)
        elif len(self.backlog) < BACKLOG:
            self.backlog.append(line)

    def open_standalone(self) -> EventStream:
        """The session's GET stream (a new one replaces the old), with what waited for it."""
        if self.standalone is not None:
            self.standalone.close()
        self.standalone = EventStream(self.streams)
        self.standalone.prime()
        for line in self.backlog:
            self.standalone.send(line)
        self.backlog.clear()
        return self.standalone
