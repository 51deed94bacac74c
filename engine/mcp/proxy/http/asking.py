"""The proxy's own requests to a remote server behind `--listen`, each an HTTP request of
its own, made as the client's: with the client's own headers (its credentials, its
session, its protocol version), so that the server answers them as it answers the client
and lists the tools that client may call.

The same rules as over a line relay (see `own_requests`): a request not answered within
`ANSWER_WAIT` seconds costs that wait once, and the proxy asks nothing more for that
session; an error answers nothing. The proxy's listen stream (2026-07-28) is a POST whose
answer is the stream, read in a task of its own.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any, Callable

import anyio
import httpx2

from ..messages import Message, encode, parse, subscription_of
from ..own_requests import ANSWER_WAIT
from ..subscription import Subscription
from .events import EventReader
from .wire import ACCEPT_BOTH, HOP_BY_HOP, routing_headers

if TYPE_CHECKING:
    from httpx2 import AsyncClient

#: Headers that belong to one request, not to the client: not copied onto the proxy's.
PER_REQUEST = frozenset({"accept", "content-type", "mcp-method", "mcp-name", "last-event-id", "origin"})


def client_headers(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """What of a client's request the proxy's own requests carry: its credentials, its
    session, its protocol version, and the rest but for what routes one request."""
    return [(name, value) for name, value in headers if name.lower() not in PER_REQUEST | HOP_BY_HOP
            and not name.lower().startswith("mcp-param-")]


class HttpAsk:
    url: str
    client: AsyncClient
    spawn: Callable[..., object]
    answer_wait: float
    given_up: bool
    prefix: str
    asked: int

    def __init__(self, url: str, client: httpx2.AsyncClient, spawn: Callable[..., object],
                 answer_wait: float = ANSWER_WAIT):
        self.url, self.client, self.spawn, self.answer_wait = url, client, spawn, answer_wait
        self.headers: list[tuple[str, str]] = []  # the client's, from its newest request
        self.given_up = False
        self.stream: Subscription | None = None
        self.prefix = f"turngate-proxy-{uuid.uuid4().hex}-"
        self.asked = 0

    def _request(self, method: str, params: dict[str, Any]) -> Message:
        self.asked += 1
        request: Message = {"jsonrpc": "2.0", "id": f"{self.prefix}{self.asked}", "method": method}
        return {**request, "params": params} if params else request

    def _headers(self, request: Message) -> list[tuple[str, str]]:
        routing = routing_headers(request)  # a 2026-07-28 request's own, in place of the client's
        kept = [(name, value) for name, value in self.headers if name.lower() not in routing]
        return [*kept, ("accept", ACCEPT_BOTH), ("content-type", "application/json"),
                ("accept-encoding", "identity"), *routing.items()]

    async def ask(self, method: str, params: dict[str, Any]) -> object:
        if self.given_up:
            return None
        request = self._request(method, params)
        answer: list[object] = [None]
        with anyio.move_on_after(self.answer_wait) as waited:
            try:
                async with self.client.stream("POST", self.url, content=encode(request).rstrip(),
                                              headers=self._headers(request)) as response:
                    answer[0] = await self._answer(response, request["id"])
            except httpx2.HTTPError:
                return None
        if waited.cancelled_caught:
            self.given_up = True
        found = answer[0]
        return found.get("result") if isinstance(found, dict) else None

    async def _answer(self, response: httpx2.Response, request_id: str) -> object:
        if response.status_code >= 400:
            return None
        if response.headers.get("content-type", "").lower().startswith("text/event-stream"):
            reader = EventReader()
            async for chunk in response.aiter_raw():
                for data in reader.feed(chunk):
                    message = parse(data)
                    if isinstance(message, dict) and message.get("id") == request_id and "method" not in message:
                        return message
            return None
        return parse(await response.aread())

    async def wait_for(self, answered: anyio.Event) -> bool:
        with anyio.move_on_after(self.answer_wait):
            await answered.wait()
        if not answered.is_set():
            self.given_up = True
        return answered.is_set()

    async def listen(self, params: dict[str, Any]) -> object:
        if self.given_up:
            return None
        request = self._request("subscriptions/listen", params)
        self.spawn(self._listening, request)
        return request["id"]

    async def _listening(self, request: Message) -> None:
        stream = self.stream
        ended: Message = {"jsonrpc": "2.0", "id": request["id"], "result": {}}
        try:
            async with self.client.stream("POST", self.url, content=encode(request).rstrip(),
                                          headers=self._headers(request)) as response:
                if response.status_code >= 400:
                    ended = {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "refused"}}
                    return
                found = await self._answer_or_frames(response, request["id"], stream)
                ended = found if found is not None else ended
        except httpx2.HTTPError:
            pass
        finally:
            if stream is not None and stream.request_id == request["id"]:
                stream.ended(ended)

    async def _answer_or_frames(self, response: httpx2.Response, request_id: str,
                                stream: Subscription | None) -> Message | None:
        if not response.headers.get("content-type", "").lower().startswith("text/event-stream"):
            found = parse(await response.aread())
            return found if isinstance(found, dict) else None
        reader = EventReader()
        async for chunk in response.aiter_raw():
            for data in reader.feed(chunk):
                message = parse(data)
                if not isinstance(message, dict):
                    continue
                if "method" not in message and message.get("id") == request_id:
                    return message
                if stream is not None and subscription_of(message) == request_id:
                    stream.frame(message)
        return None
