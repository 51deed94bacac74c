"""One run of `turngate proxy --url URL`: a stdio client (the proxy's stdin and stdout) in
front of a remote server over Streamable HTTP, until the client leaves or a signal stops
the proxy. Exit code 0, or 128+N for signal N."""

from __future__ import annotations

from typing import AsyncIterator

import anyio
import httpx2

from ..call_gate import CallGate
from ..core import Core
from ..own_requests import OwnRequests
from ..pipes import Receive, client_pipes, client_sender, lines, restore_blocking
from ..relay import Relay
from ..run import STOP_SIGNALS
from ..session import Session
from ..steps_log import StepLog
from .remote import RemoteServer, timeouts

#: Seconds the answers still on their way may take once the client has closed its end.
GRACE = 10.0


async def serve_remote(core: Core, steps: StepLog | None, url: str, headers: list[tuple[str, str]]) -> int:
    stopped: list[int] = []
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        core.warm_up()
        try:
            async with httpx2.AsyncClient(timeout=timeouts()) as client:
                from_client, write_client = await client_pipes()
                async with anyio.create_task_group() as tasks:
                    run = tasks.cancel_scope
                    relay: list[Relay] = []

                    async def to_relay(line: bytes) -> None:
                        await relay[0].from_server(line)

                    remote = RemoteServer(url, headers, client, to_relay, tasks.start_soon, lambda name: None)
                    own = OwnRequests(remote.send)
                    session = Session(core, own)
                    remote.schema_of = lambda name: session.tools.known.schemas.get(name) \
                        if session.tools.known is not None else None
                    relay.append(Relay(CallGate(session, steps), own, remote.send,
                                       client_sender(write_client, run), tasks.start_soon))
                    tasks.start_soon(_on_signal, signals, run, stopped)
                    tasks.start_soon(_client_side, relay[0], remote, from_client, run)
        finally:
            if steps is not None:
                steps.close()
            restore_blocking()
    return 128 + stopped[0] if stopped else 0


async def _on_signal(signals: AsyncIterator[int], run: anyio.CancelScope, stopped: list[int]) -> None:
    async for number in signals:
        stopped.append(number)
        run.cancel()
        return


async def _client_side(relay: Relay, remote: RemoteServer, receive: Receive, run: anyio.CancelScope) -> None:
    """Client lines to the server until the client closes its end; then the answers on
    their way are waited for (a while), and the session ended."""
    async for line in lines(receive):
        await relay.from_client(line)
    await relay.released.wait()
    with anyio.move_on_after(GRACE):
        await remote.drained.wait()
    await remote.close()
    run.cancel()
