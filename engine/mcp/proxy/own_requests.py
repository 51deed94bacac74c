"""The proxy's own requests to the server (`tools/list`, and in a 2026-07-28 session
`subscriptions/listen`) over a line relay, and their answers, which the client never sees.

Their ids start with a prefix no client uses: a fresh random one per run, as text, where
clients number their requests. The server's answer is told apart by that prefix, so the
proxy needs no table of the client's ids.

A server that does not answer them costs one short wait per session, never one per call:
when an answer does not come within `ANSWER_WAIT` seconds while the server answers other
things, or comes as an error with a null id (a server that cannot read a text id), the proxy
asks nothing more and judges by the lists the client reads (a late answer lets it ask
again). A server that says nothing at all is still starting, or busy with the client's own
requests: the wait goes on, up to `SILENCE` seconds. Only the calls wait meanwhile; the
client's other lines go on.
"""

from __future__ import annotations

import uuid
from typing import Any, Awaitable, Callable

import anyio

from .messages import Message, encode, subscription_of
from .subscription import Subscription

#: Seconds the proxy waits for the server to answer one of its requests while it answers others.
ANSWER_WAIT = 3.0
#: Seconds it waits for a server that says nothing at all (one that starts slowly).
SILENCE = 30.0

Send = Callable[[bytes], Awaitable[None]]


class OwnRequests:
    to_server: Callable[[bytes], Awaitable[None]]
    answer_wait: float
    silence: float
    prefix: str
    mark: bytes
    asked: int
    given_up: bool

    def __init__(self, to_server: Send, answer_wait: float = ANSWER_WAIT, silence: float = SILENCE):
        self.to_server, self.answer_wait, self.silence = to_server, answer_wait, silence
        self.prefix = f"turngate-proxy-{uuid.uuid4().hex}-"
        #: The prefix as bytes: a line from the server without it is none of these answers
        #: (but for an error with a null id), and is passed on without being parsed.
        self.mark = self.prefix.encode()
        self.asked = 0
        self.waiting: dict[str, list[Any]] = {}  # request id -> [answered event, answer]
        self.given_up = False
        self.stream: Subscription | None = None
        self.heard = 0  # lines from the server so far (see `ask`)

    def _next_id(self) -> str:
        self.asked += 1
        return f"{self.prefix}{self.asked}"

    async def ask(self, method: str, params: dict[str, Any]) -> object:
        """The result of a request to the server; None for an error, or no answer in time
        (then the proxy asks nothing more, until a late answer comes)."""
        if self.given_up:
            return None
        request_id = self._next_id()
        slot = self.waiting[request_id] = [anyio.Event(), None]
        request = {"jsonrpc": "2.0", "id": request_id, "method": method}
        await self.to_server(encode({**request, "params": params} if params else request))
        await self.wait_for(slot[0])
        del self.waiting[request_id]
        answer = slot[1]
        return answer.get("result") if isinstance(answer, dict) else None

    async def wait_for(self, answered: anyio.Event) -> bool:
        """Wait for an answer to one of the proxy's requests; False, and nothing more is
        asked, when the server answers other things meanwhile and not this, or says nothing
        for `silence` seconds."""
        heard, waited = self.heard, 0.0
        while not answered.is_set() and waited < self.silence:
            with anyio.move_on_after(self.answer_wait):
                await answered.wait()
            waited += self.answer_wait
            if self.heard != heard:  # it answers others, not this: it will not answer it
                break
        if not answered.is_set():
            self.given_up = True
        return answered.is_set()

    async def listen(self, params: dict[str, Any]) -> object:
        """Open the proxy's listen stream (see `Subscription.open`); its id."""
        if self.given_up:
            return None
        request_id = self._next_id()
        await self.to_server(encode({"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen",
                                     "params": params}))
        return request_id

    @property
    def pending(self) -> bool:
        return bool(self.waiting)

    def take(self, message: Message) -> bool:
        """Whether a message from the server is the proxy's own (then it is kept from the
        client): an answer to one of its requests (a late one too), a frame of its stream,
        or an error with a null id while one of its requests waits."""
        request_id = message.get("id")
        if "method" in message:
            stream = self.stream
            if stream is not None and stream.request_id is not None and subscription_of(message) == stream.request_id:
                stream.frame(message)
                return True
            return False
        if request_id is None and "error" in message and self.waiting:
            self.given_up = True  # it cannot read our ids: asking again would fail again
            self._answer(next(iter(self.waiting)), message)
            return True
        if not isinstance(request_id, str) or not request_id.startswith(self.prefix):
            return False
        if self.stream is not None and request_id == self.stream.request_id:
            self.stream.ended(message)
        elif request_id in self.waiting:
            self._answer(request_id, message)
        else:
            self.given_up = False  # a late answer: the server does answer, slowly
        return True

    def _answer(self, request_id: str, message: Message) -> None:
        slot = self.waiting[request_id]
        slot[1] = message
        slot[0].set()
