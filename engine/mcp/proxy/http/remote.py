"""A remote MCP server over Streamable HTTP, as the server side of the line relay: what a
stdio client writes is POSTed to `--url`, and what the server answers (a JSON body, or the
events of a stream) comes back as lines, through the same gate as a stdio server's.

As the SDK's own client does it: each message its own POST (a request's answer on that
POST, as JSON or server-sent events; a notification or an answer accepted with 202); the
session the server gives at `initialize` sent back on every request, with the protocol
version agreed; in 2026-07-28 the headers that route a request; after `initialized` a GET
stream for the server's own messages; a stream that drops before its answer resumed with
`Last-Event-ID`; the session ended with DELETE when the client leaves. The headers given
with `--header` go with every request. What goes wrong at the HTTP level is told to the
client as a JSON-RPC error naming it (unauthorized, session expired, unreachable).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Awaitable, Callable

import anyio
import httpx2

from ..messages import allowed_id, encode, params_of, parse
from .wire import ACCEPT_BOTH, LAST_EVENT, SESSION, VERSION, error_message, param_headers, routing_headers

if TYPE_CHECKING:
    from anyio import Event
    from httpx2 import AsyncClient


Deliver = Callable[[bytes], Awaitable[None]]
SchemaOf = Callable[[str], object]
#: How often a dropped stream is taken up again before the proxy gives up on it.
RECONNECTS = 2
#: JSON-RPC codes of the errors the proxy writes (the SDK's where it has one).
UNAUTHORIZED, EXPIRED, UNREACHABLE, FAILED = -32001, -32600, -32000, -32603


def timeouts() -> httpx2.Timeout:
    """The SDK client's: 30 s, but 300 s to read (a server may hold a stream open)."""
    return httpx2.Timeout(30.0, read=300.0)


class RemoteServer:
    url: str
    headers: list[tuple[str, str]]
    client: AsyncClient
    deliver: Callable[[bytes], Awaitable[None]]
    spawn: Callable[..., object]
    schema_of: Callable[[str], object]
    in_flight: int
    drained: Event

    def __init__(self, url: str, headers: list[tuple[str, str]], client: httpx2.AsyncClient, deliver: Deliver,
                 spawn: Callable[..., object], schema_of: SchemaOf):
        self.url, self.headers, self.client = url, headers, client
        self.deliver, self.spawn, self.schema_of = deliver, spawn, schema_of
        self.session_id: str | None = None
        self.version: str | None = None  # the version `initialize` agreed (earlier than 2026-07-28)
        self.told: set[str] = set()
        self.in_flight = 0  # requests whose answer is still to come (streams that last aside)
        self.drained = anyio.Event()
        self.drained.set()

    # client -> server

    async def send(self, line: bytes) -> None:
        """Every message is sent in a task of its own: an answer may take long (a stream)."""
        message = parse(line)
        request_id = message["id"] if isinstance(message, dict) and "method" in message and allowed_id(message) \
            else None
        counted = request_id is not None and isinstance(message, dict) and message["method"] != "subscriptions/listen"
        if counted:
            self.in_flight += 1
            self.drained = anyio.Event() if self.drained.is_set() else self.drained
        self.spawn(self._post, line.rstrip(b"\r\n"), message, request_id, counted)

    def _headers(self, extra: dict[str, str] | None = None) -> list[tuple[str, str]]:
        headers = [("accept", ACCEPT_BOTH), ("content-type", "application/json"), *self.headers]
        if self.session_id is not None:
            headers.append((SESSION, self.session_id))
        if self.version is not None and not (extra and VERSION in extra):
            headers.append((VERSION, self.version))
        return headers + list((extra or {}).items())

    def _routing(self, message: object) -> dict[str, str]:
        headers = routing_headers(message)
        if headers and isinstance(message, dict) and message.get("method") == "tools/call":
            params = params_of(message)
            if isinstance(params.get("name"), str):
                headers.update(param_headers(self.schema_of(params["name"]), params.get("arguments")))
        return headers

    async def _post(self, body: bytes, message: object, request_id: object, counted: bool) -> None:
        try:
            async with self.client.stream("POST", self.url, content=body,
                                          headers=self._headers(self._routing(message))) as response:
                await self._answered(response, message, request_id)
        except httpx2.HTTPError as error:
            await self._failed(request_id, UNREACHABLE, f"unreachable: the server at {self.url} could not be "
                                                        f"reached ({_reason(error)}).")
        finally:
            if counted:
                self.in_flight -= 1
                if not self.in_flight:
                    self.drained.set()

    async def _answered(self, response: httpx2.Response, message: object, request_id: object) -> None:
        status = response.status_code
        if status >= 400:
            await self._refused(response, request_id)
            return
        method = message.get("method") if isinstance(message, dict) else None
        if method == "initialize" and response.headers.get(SESSION):
            self.session_id = response.headers[SESSION]
        if status == 202 or request_id is None:
            if method == "notifications/initialized":
                self.spawn(self._get_stream)
            return
        kind = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        if kind == "application/json":
            await self._line(await response.aread(), request_id, method)
        elif kind == "text/event-stream":
            await self._events(response, request_id, method)
        else:
            await self._failed(request_id, FAILED, f"the server at {self.url} answered with {kind or 'no'} "
                                                   "content type, not JSON or events.")

    async def _refused(self, response: httpx2.Response, request_id: object) -> None:
        body = parse(await response.aread())
        said = body.get("error", {}).get("message") if isinstance(body, dict) and isinstance(body.get("error"), dict) \
            else None
        status = f"{response.status_code} {response.reason_phrase}".strip()
        server = f"the server at {self.url} answered {status}" + (f" ({said})" if said else "")
        if response.status_code == 401:
            code, text = UNAUTHORIZED, f"unauthorized: {server}; give its credentials with --header."
        elif response.status_code == 404 and self.session_id is not None:
            self.session_id = None  # the client's next initialize starts a new one
            code, text = EXPIRED, f"session expired: {server}; initialize a new session."
        else:
            code, text = FAILED, f"{server}."
        await self._failed(request_id, code, text)

    async def _failed(self, request_id: object, code: int, text: str) -> None:
        if request_id is not None:
            await self.deliver(encode(error_message(request_id, code, text)))
        elif text not in self.told:  # a notification has no answer: said once on stderr
            self.told.add(text)
            sys.stderr.write(f"turngate proxy: {text}\n")

    async def _line(self, data: bytes, request_id: object, method: object) -> bool:
        """Pass on one message from the server; whether it is the answer to `request_id`."""
        message = parse(data)
        if message is None:
            return False
        if method == "initialize" and isinstance(message, dict) and isinstance(message.get("result"), dict):
            version = message["result"].get("protocolVersion")
            self.version = version if isinstance(version, str) else None
        data = data.strip()
        await self.deliver((encode(message) if b"\n" in data or b"\r" in data else data + b"\n"))
        return isinstance(message, dict) and "method" not in message and message.get("id") == request_id

    async def _events(self, response: httpx2.Response, request_id: object, method: object) -> None:
        last: list[Any] = [None, None]  # the last event id, the retry the server asked for
        answered = await self._read_events(response, request_id, method, last)
        for _ in range(RECONNECTS):
            if answered or last[0] is None:
                break
            await anyio.sleep((last[1] or 1000) / 1000)
            answered = await self._resume(request_id, method, last)
        if not answered:
            await self._failed(request_id, UNREACHABLE, f"the server at {self.url} closed the stream before it "
                                                        "answered the request.")

    async def _read_events(self, response: httpx2.Response, request_id: object, method: object,
                           last: list[Any]) -> bool:
        try:
            async for sse in httpx2.EventSource(response):
                last[0] = sse.id or last[0]
                last[1] = sse.retry if sse.retry is not None else last[1]
                if sse.data and await self._line(sse.data.encode(), request_id, method):
                    return True
        except httpx2.HTTPError:
            pass  # the stream dropped: it is taken up again, where the server gave event ids
        return False

    async def _resume(self, request_id: object, method: object, last: list[Any]) -> bool:
        headers = [*self._headers(), ("accept", "text/event-stream"), (LAST_EVENT, last[0])]
        try:
            async with self.client.stream("GET", self.url, headers=headers) as response:
                if response.status_code >= 400:
                    return False
                return await self._read_events(response, request_id, method, last)
        except httpx2.HTTPError:
            return False

    async def _get_stream(self) -> None:
        """The server's own messages, on a GET stream kept open (taken up again with the
        last event id when it drops); a server that offers none answers 405."""
        last: list[Any] = [None, None]
        for _ in range(RECONNECTS + 1):
            headers = [*self._headers(), ("accept", "text/event-stream")]
            if last[0] is not None:
                headers.append((LAST_EVENT, last[0]))
            try:
                async with self.client.stream("GET", self.url, headers=headers) as response:
                    if response.status_code >= 400:
                        return
                    await self._read_events(response, None, None, last)
            except httpx2.HTTPError:
                pass
            if self.session_id is None:
                return
            await anyio.sleep((last[1] or 1000) / 1000)

    async def close(self) -> None:
        """The end of the session, as the SDK's client ends it: DELETE (a server that keeps
        no sessions answers 405, which is fine)."""
        if self.session_id is None:
            return
        with anyio.move_on_after(5):
            try:
                await self.client.request("DELETE", self.url, headers=self._headers())
            except httpx2.HTTPError:
                pass


def _reason(error: httpx2.HTTPError) -> str:
    text = str(error).strip()
    return text if text else type(error).__name__
