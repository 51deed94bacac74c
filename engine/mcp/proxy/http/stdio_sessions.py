"""`--listen` in front of a stdio server: Streamable HTTP served as the specification has it,
each client session with a server process of its own (see `stdio_backend`).

POST: a message (or a 2025-03-26 batch). An `initialize` without a session starts one (its
id in `Mcp-Session-Id`); a 2026-07-28 request needs none; anything else names its session,
or is answered 400 (no session) or 404 (one that has ended). Requests are answered on a
stream of server-sent events (or as JSON, to a client that accepts nothing else);
notifications and answers are accepted with 202. GET: the session's stream of the
server's own messages, or, with `Last-Event-ID`, the rest of a stream that dropped.
DELETE: the end of the session (its server is stopped).
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any, AsyncIterator

import anyio
import anyio.abc
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from ..core import Core
from ..messages import PROTOCOL_VERSION_KEY, Message, encode, envelope, is_request, parse
from ..server_process import ServerNotStarted
from ..steps_log import StepLog
from .events import EventReader, EventStream, resume_point
from .stdio_backend import Backend
from .wire import LAST_EVENT, SESSION, error_message

if TYPE_CHECKING:
    from anyio.abc import TaskGroup


SSE_HEADERS = {"cache-control": "no-cache, no-transform", "x-accel-buffering": "no"}
#: Seconds a session may go without a request (and with no stream read) before it is ended:
#: a client that left without DELETE leaves no server running for ever.
SESSION_IDLE = 30 * 60.0


def refusal(status: int, code: int, text: str) -> Response:
    """An HTTP error with a JSON-RPC error body, as the SDK's server writes one."""
    return JSONResponse(error_message(None, code, text), status_code=status)


def as_line(body: bytes, message: object) -> bytes:
    """A message as one line for a stdio server: the body as it came, unless it spans lines."""
    body = body.strip()
    return encode(message) if b"\n" in body or b"\r" in body else body + b"\n"


def accepts_events(request: Request) -> bool:
    return "text/event-stream" in request.headers.get("accept", "")


class StdioSessions:
    command: list[str]
    core: Core
    steps: StepLog | None
    tasks: TaskGroup

    def __init__(self, command: list[str], core: Core, steps: StepLog | None, tasks: anyio.abc.TaskGroup):
        self.command, self.core, self.steps, self.tasks = command, core, steps, tasks
        self.sessions: dict[str, Backend] = {}
        self.shared: Backend | None = None
        self.used: dict[str, float] = {}  # when each session last had a request
        tasks.start_soon(self._reap)

    async def _reap(self, every: float = 60.0) -> None:
        while True:
            await anyio.sleep(every)
            now = anyio.current_time()
            for session_id, backend in list(self.sessions.items()):
                idle = now - self.used.get(session_id, now) > SESSION_IDLE
                if not backend.alive or (idle and not any(s.readers for s in backend.streams.values())):
                    self._end(session_id)

    def _end(self, session_id: str) -> Backend | None:
        backend = self.sessions.pop(session_id, None)
        self.used.pop(session_id, None)
        if backend is not None:
            for stream in backend.streams.values():
                stream.close()
            self.tasks.start_soon(backend.stop)
        return backend

    async def close(self) -> None:
        for backend in [*self.sessions.values(), *([self.shared] if self.shared else [])]:
            for stream in backend.streams.values():
                stream.close()
            await backend.stop()

    async def _started(self, modern: bool) -> Backend:
        backend = Backend(self.command, self.core, self.steps, modern)
        await backend.start(self.tasks)
        return backend

    async def _backend(self, request: Request, messages: list[Any]) -> tuple[Backend | None, str | None, Response | None]:
        session_id = request.headers.get(SESSION)
        if session_id is not None:
            backend = self.sessions.get(session_id)
            if backend is None or not backend.alive:
                return None, None, refusal(404, -32600, "Session not found: it has ended, or never began.")
            self.used[session_id] = anyio.current_time()
            return backend, session_id, None
        try:
            if any(isinstance(m, dict) and PROTOCOL_VERSION_KEY in envelope(m) for m in messages):
                if self.shared is None or not self.shared.alive:
                    self.shared = await self._started(modern=True)
                return self.shared, None, None
            if any(is_request(m, "initialize") for m in messages):
                session_id = uuid.uuid4().hex
                self.sessions[session_id] = await self._started(modern=False)
                self.used[session_id] = anyio.current_time()
                return self.sessions[session_id], session_id, None
        except ServerNotStarted as error:
            return None, None, refusal(500, -32603, str(error))
        return None, None, refusal(400, -32600, f"Bad Request: no {SESSION} header; a session begins with initialize.")

    async def post(self, request: Request) -> Response:
        body = await request.body()
        message = parse(body)
        if not isinstance(message, (dict, list)):
            return refusal(400, -32700, "Parse error: the body is not a JSON-RPC message.")
        messages = message if isinstance(message, list) else [message]
        backend, session_id, refused = await self._backend(request, messages)
        if backend is None:
            return refused  # type: ignore[return-value]
        headers = {SESSION: session_id} if session_id else {}
        if not any(isinstance(m, dict) and "method" in m and "id" in m for m in messages):
            await backend.send(as_line(body, message))
            return Response(status_code=202, headers=headers)
        stream = EventStream(backend.streams)
        prepared = backend.prepare(messages, stream)
        sent = prepared if isinstance(message, list) else prepared[0]
        await backend.send(encode(sent) if backend.modern else as_line(body, message))
        if accepts_events(request):
            stream.prime()
            return StreamingResponse(self._events(backend, stream), media_type="text/event-stream",
                                     headers={**SSE_HEADERS, **headers})
        return JSONResponse(await self._collected(stream, isinstance(message, list)), headers=headers)

    @staticmethod
    async def _events(backend: Backend, stream: EventStream, start: int = 0) -> AsyncIterator[bytes]:
        try:
            async for chunk in stream.read(start):
                yield chunk
        finally:
            if not stream.done and backend.modern:
                with anyio.CancelScope(shield=True):
                    await backend.cancel(stream)

    @staticmethod
    async def _collected(stream: EventStream, batch: bool) -> object:
        answers: list[Message] = []
        reader = EventReader()
        async for chunk in stream.read():
            for data in reader.feed(chunk):
                found = parse(data)
                if isinstance(found, dict) and "method" not in found:
                    answers.append(found)
        return answers if batch else (answers[0] if answers else error_message(None, -32603, "no answer"))

    async def get(self, request: Request) -> Response:
        session_id = request.headers.get(SESSION)
        if session_id is None:
            return Response("Method Not Allowed: a GET stream needs a session", status_code=405,
                            headers={"allow": "POST"})
        backend = self.sessions.get(session_id)
        if backend is None or not backend.alive:
            return refusal(404, -32600, "Session not found: it has ended, or never began.")
        self.used[session_id] = anyio.current_time()
        last = request.headers.get(LAST_EVENT)
        if last is not None:
            point = resume_point(last, backend.streams)
            if point is None:
                return refusal(404, -32600, f"No stream to resume at event {last}.")
            stream, start = point
        else:
            stream, start = backend.open_standalone(), 0
        return StreamingResponse(self._events(backend, stream, start), media_type="text/event-stream",
                                 headers={**SSE_HEADERS, SESSION: session_id})

    async def delete(self, request: Request) -> Response:
        session_id = request.headers.get(SESSION)
        if (self._end(session_id) if session_id else None) is None:
            return refusal(404 if session_id else 405, -32600, "Session not found: it has ended, or never began.")
        return Response(status_code=200)
