"""`--listen` in front of a remote server (`--url`): a relay at the HTTP level. Each request
goes on to the server with the client's headers (and those of `--header`), and the server's
answer comes back as it came: its status, its headers (the session's among them), its body
or its stream of events, byte for byte, so that a client gets the server's errors (401, a
404 for a session that has ended) and resumes streams (`Last-Event-ID`) as without the
proxy. Only a POSTed `tools/call` is stopped: judged, and answered by the proxy where it does
not fit. On its way through, what concerns the gate is read: the answers to the client's
`tools/list`, change notices, the answers to calls (for the steps).

Each client session has its list: by its `Mcp-Session-Id`, or in 2026-07-28 (no sessions) by
the client's credentials and other headers; the proxy's own requests for a session carry
that client's headers.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, AsyncIterator

import anyio.abc
import httpx2
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from ..call_gate import CallGate, Ruling, call_name
from ..core import Core
from ..messages import Message, encode, is_call, parse, params_of
from ..session import Session
from ..steps_log import StepLog
from .asking import HttpAsk, client_headers
from .events import EventReader
from .remote import timeouts
from .wire import PARAM, SESSION, param_headers, passed_on

if TYPE_CHECKING:
    from anyio.abc import TaskGroup
    from httpx2 import AsyncClient


def _credential(name: str) -> bool:
    return name in ("authorization", "cookie") or any(part in name for part in ("auth", "key", "token"))


class Forwarded:
    """One client session's gate."""

    session: Session
    gate: CallGate

    def __init__(self, core: Core, steps: StepLog | None, ask: HttpAsk):
        self.ask = ask
        self.session = Session(core, ask)
        self.gate = CallGate(self.session, steps.sibling() if steps else None)


class Forwarder:
    url: str
    headers: list[tuple[str, str]]
    core: Core
    steps: StepLog | None
    tasks: TaskGroup
    client: AsyncClient

    def __init__(self, url: str, headers: list[tuple[str, str]], core: Core, steps: StepLog | None,
                 tasks: anyio.abc.TaskGroup):
        self.url, self.headers, self.core, self.steps, self.tasks = url, headers, core, steps, tasks
        self.client = httpx2.AsyncClient(timeout=timeouts())
        self.sessions: dict[str, Forwarded] = {}

    async def close(self) -> None:
        await self.client.aclose()

    def _outgoing(self, request: Request) -> list[tuple[str, str]]:
        """The client's headers as the server gets them, with `--header`'s in their place."""
        given = {name.lower() for name, _ in self.headers}
        kept = [(name, value) for name, value in passed_on(request.headers.items()) if name.lower() not in given]
        return [*kept, *self.headers, ("accept-encoding", "identity")]

    def _forwarded(self, request: Request) -> Forwarded:
        outgoing = self._outgoing(request)
        key = request.headers.get(SESSION)
        if key is None:  # 2026-07-28: a client is known by its credentials
            material = sorted((n.lower(), v) for n, v in outgoing if _credential(n.lower()))
            key = "credentials:" + hashlib.sha256(repr(material).encode()).hexdigest()
        found = self.sessions.get(key)
        if found is None:
            found = self.sessions[key] = Forwarded(self.core, self.steps, HttpAsk(self.url, self.client,
                                                                                  self.tasks.start_soon))
        found.ask.headers = client_headers(outgoing)
        return found

    async def post(self, request: Request) -> Response:
        body = await request.body()
        message = parse(body)
        forwarded = self._forwarded(request)
        headers = self._outgoing(request)
        messages = message if isinstance(message, list) else [message]
        names = [name for name in map(call_name, messages) if name is not None]
        answers: list[Message] = []
        if any(is_call(m) for m in messages):
            came = forwarded.session.tools.clock()
            if forwarded.session.wants_list(names, came):
                await forwarded.session.read_list(names)
            body, headers, answers, sending = self._judged(forwarded, message, body, headers, came)
            if not sending:
                return JSONResponse(answers if isinstance(message, list) else answers[0]) if answers \
                    else Response(status_code=202)
        for each in messages:
            await forwarded.session.client_request(each)
        upstream = await self._send("POST", headers, body)
        if upstream is None:
            return Response("Bad Gateway: the server could not be reached", status_code=502)
        session_id = upstream.headers.get(SESSION)
        if session_id and session_id not in self.sessions:  # the session `initialize` began
            for key in [key for key, found in self.sessions.items() if found is forwarded]:
                del self.sessions[key]
            self.sessions[session_id] = forwarded
        return await self._relayed(upstream, forwarded, answers)

    def _judged(self, forwarded: Forwarded, message: Any, body: bytes, headers: list[tuple[str, str]],
                came: float) -> tuple[bytes, list[tuple[str, str]], list[Message], bool]:
        """The body that goes on (as it came unless a call was taken out or cast), its
        headers, the proxy's answers, and whether anything goes on at all."""
        batch = isinstance(message, list)
        rulings = [forwarded.gate.judge(m, came) if is_call(m) else Ruling(m) for m in (message if batch else [message])]
        sent = [r.send for r in rulings if r.send is not None]
        answers = [r.answer for r in rulings if r.answer is not None]
        if not any(r.changed for r in rulings):
            return body, headers, answers, True
        if not batch and sent and isinstance(sent[0], dict):  # a cast call: its Mcp-Param-* mirror what is sent
            known = forwarded.session.tools.known
            schema = known.schemas.get(call_name(sent[0]) or "") if known is not None else None
            headers = [(n, v) for n, v in headers if not n.lower().startswith(PARAM.lower())]
            headers += list(param_headers(schema, params_of(sent[0]).get("arguments")).items())
        return encode(sent if batch else sent[0]).rstrip() if sent else b"", headers, answers, bool(sent)

    async def _send(self, method: str, headers: list[tuple[str, str]], body: bytes = b"") -> httpx2.Response | None:
        try:
            built = self.client.build_request(method, self.url, headers=headers, content=body or None)
            return await self.client.send(built, stream=True)
        except httpx2.HTTPError:
            return None

    async def _relayed(self, upstream: httpx2.Response, forwarded: Forwarded | None,
                       answers: list[Message]) -> Response:
        headers = dict(passed_on(list(upstream.headers.multi_items())))
        kind = upstream.headers.get("content-type", "").lower()
        if kind.startswith("text/event-stream"):
            return StreamingResponse(self._events(upstream, forwarded, answers), status_code=upstream.status_code,
                                     headers=headers)
        body = await upstream.aread()
        await upstream.aclose()
        if kind.startswith("application/json"):
            found = parse(body)
            self._observe(forwarded, found)
            if answers and isinstance(found, list):  # a batch: the proxy's answers join the server's
                body = encode([*found, *answers]).rstrip()
                headers.pop("content-length", None)
        return Response(body, status_code=upstream.status_code, headers=headers)

    async def _events(self, upstream: httpx2.Response, forwarded: Forwarded | None,
                      answers: list[Message]) -> AsyncIterator[bytes]:
        reader = EventReader()
        try:
            for answer in answers:  # refused calls of a batch whose answer is a stream
                yield b"event: message\ndata: " + encode(answer).rstrip() + b"\n\n"
            async for chunk in upstream.aiter_raw():
                for data in reader.feed(chunk):
                    self._observe(forwarded, parse(data))
                yield chunk
        except httpx2.HTTPError:
            return  # the server's stream dropped: the client's ends too, and it may resume
        finally:
            await upstream.aclose()

    def _observe(self, forwarded: Forwarded | None, message: object) -> None:
        if forwarded is None:
            return
        for each in message if isinstance(message, list) else [message]:
            if isinstance(each, dict):
                forwarded.session.server_message(each)
                if forwarded.gate.steps is not None and "method" not in each:
                    forwarded.gate.steps.answered(each)

    async def get(self, request: Request) -> Response:
        forwarded = self._forwarded(request)
        upstream = await self._send("GET", self._outgoing(request))
        if upstream is None:
            return Response("Bad Gateway: the server could not be reached", status_code=502)
        return await self._relayed(upstream, forwarded, [])

    async def delete(self, request: Request) -> Response:
        upstream = await self._send("DELETE", self._outgoing(request))
        if upstream is None:
            return Response("Bad Gateway: the server could not be reached", status_code=502)
        if upstream.status_code < 300:
            self.sessions.pop(request.headers.get(SESSION, ""), None)
        return await self._relayed(upstream, None, [])
