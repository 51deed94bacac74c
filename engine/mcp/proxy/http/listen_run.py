"""One run of `turngate proxy --listen HOST:PORT`: Streamable HTTP served at
`http://HOST:PORT/mcp` (Starlette under uvicorn, the stack of the SDK's own server), in
front of a stdio server (`-- COMMAND`, see `stdio_sessions`) or a remote one (`--url`, see
`forward`), until SIGINT or SIGTERM stops it (exit code 0).

Every request's `Origin` is checked first, as the specification asks of a server: a web
page elsewhere than on this machine (or the host the proxy listens on, or an origin given
with `--allow-origin`) is answered 403.
"""

from __future__ import annotations

import socket
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, Protocol

import anyio
import anyio.abc

from ..core import Core
from ..run import STOP_SIGNALS
from ..server_process import NOT_FOUND, NOT_RUNNABLE, ServerNotStarted
from ..steps_log import StepLog
from .wire import origin_allowed

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

#: Seconds open streams have to end once the proxy is asked to stop.
SHUTDOWN_GRACE = 2.0


def bound_socket(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so that an address in use is one sentence and exit
    code 2, not uvicorn's log."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise ListenError(f'cannot listen on {host}:{port} ({error.strerror or error}).') from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


class ListenError(Exception):
    """The address cannot be served; the text is one sentence."""


def check_command(command: list[str]) -> None:
    """A server command that cannot run is told at start, as the stdio proxy tells it,
    not at the first client's session."""
    import shutil
    found = shutil.which(command[0])
    if found is None:
        code = NOT_RUNNABLE if "/" in command[0] and _exists(command[0]) else NOT_FOUND
        reason = "Permission denied" if code == NOT_RUNNABLE else "No such file or directory"
        raise ServerNotStarted(f'the server command "{command[0]}" could not be started ({reason}).', code)


def _exists(path: str) -> bool:
    import os
    return os.path.exists(path)


class Handler(Protocol):
    """What serves the requests: `StdioSessions` or `Forwarder`."""

    async def post(self, request: Request) -> Response: ...

    async def get(self, request: Request) -> Response: ...

    async def delete(self, request: Request) -> Response: ...

    async def close(self) -> None: ...


def app_for(handler: Handler, host: str, allowed: tuple[str, ...]) -> Any:
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route

    async def endpoint(request: Request) -> Response:
        if not origin_allowed(request.headers.get("origin"), host, allowed):
            return Response("Forbidden: this Origin may not reach the proxy", status_code=403)
        if request.method == "POST":
            if not request.headers.get("content-type", "").lower().startswith("application/json"):
                return Response("Unsupported Media Type: the body is application/json", status_code=415)
            return await handler.post(request)
        if request.method == "GET":
            return await handler.get(request)
        return await handler.delete(request)

    return Starlette(routes=[Route("/mcp", endpoint, methods=["GET", "POST", "DELETE"])])


@contextmanager
def _no_signal_capture() -> Iterator[None]:
    yield  # the proxy handles the signals itself (see serve_http)


async def serve_http(core: Core, steps: StepLog | None, listen: tuple[str, int], allowed: tuple[str, ...],
                     command: list[str], url: str | None, headers: list[tuple[str, str]]) -> int:
    import uvicorn
    if command:
        check_command(command)
    try:
        sock = bound_socket(*listen)
    except ListenError as error:
        sys.stderr.write(f"turngate proxy: {error}\n")
        return 2
    core.warm_up()
    config = uvicorn.Config(None, log_level="warning", access_log=False, lifespan="off",  # type: ignore[arg-type]
                            timeout_graceful_shutdown=int(SHUTDOWN_GRACE))
    server = uvicorn.Server(config)
    server.capture_signals = _no_signal_capture  # type: ignore[method-assign]
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        async with anyio.create_task_group() as tasks:
            handler = await _handler(core, steps, command, url, headers, tasks)
            config.app = app_for(handler, listen[0], allowed)
            tasks.start_soon(_on_signal, signals, server, handler)
            try:
                await server.serve(sockets=[sock])
            finally:
                with anyio.CancelScope(shield=True):
                    await handler.close()
                    if steps is not None:
                        steps.close()
                tasks.cancel_scope.cancel()
    return 0


async def _handler(core: Core, steps: StepLog | None, command: list[str], url: str | None,
                   headers: list[tuple[str, str]], tasks: anyio.abc.TaskGroup) -> Handler:
    if command:
        from .stdio_sessions import StdioSessions
        return StdioSessions(command, core, steps, tasks)
    from .forward import Forwarder
    return Forwarder(url or "", headers, core, steps, tasks)


async def _on_signal(signals: Any, server: Any, handler: Handler) -> None:
    async for _ in signals:
        if server.should_exit:
            server.force_exit = True
            return
        server.should_exit = True
        await handler.close()  # open streams end, so that the connections close
