"""One run of the proxy: the server started, lines relayed both ways until one side ends,
the server stopped, and its exit code handed back."""

from __future__ import annotations

import signal
from typing import AsyncIterator

import anyio
import anyio.abc

from .call_gate import CallGate
from .core import Core
from .own_requests import OwnRequests
from .pipes import Receive, client_pipes, client_sender, lines, restore_blocking, server_pipes
from .relay import Relay
from .server_process import Ending, close_stdin, exit_code, start_server, stop
from .session import Session
from .steps_log import StepLog

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


async def serve(core: Core, steps: StepLog | None, command: list[str]) -> int:
    """Relay between the client (the proxy's stdin and stdout) and the server started with
    `command`; the server's exit code. Raises `ServerNotStarted`."""
    # Signals are caught before the server starts, so that none can end the proxy and leave
    # the server running: each stops the server in order (see `stop`).
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        process = await start_server(command)
        core.warm_up()
        ending = Ending()
        try:
            from_client, write_client = await client_pipes()
            from_server, to_server = server_pipes(process)
            own = OwnRequests(to_server)
            gate = CallGate(Session(core, own), steps)
            async with anyio.create_task_group() as tasks:
                run = tasks.cancel_scope
                relay = Relay(gate, own, to_server, client_sender(write_client, run), tasks.start_soon)
                tasks.start_soon(_on_signal, signals, run, ending)
                tasks.start_soon(_client_side, relay, from_client, process, run, ending)
                tasks.start_soon(_server_side, relay, from_server, run, ending)
        finally:
            with anyio.CancelScope(shield=True):  # even when a signal cancelled the run
                await stop(process, ending)
                if steps is not None:
                    steps.close()
            restore_blocking()
    return exit_code(process.returncode, ending)


async def _on_signal(signals: AsyncIterator[int], run: anyio.CancelScope, ending: Ending) -> None:
    async for number in signals:
        ending.signal = number
        run.cancel()
        return


async def _client_side(relay: Relay, receive: Receive, process: anyio.abc.Process, run: anyio.CancelScope,
                       ending: Ending) -> None:
    """Client lines to the server until the client closes its end; then the server's stdin
    is closed and the server has its grace period to finish (what it still writes reaches
    the client)."""
    async for line in lines(receive):
        await relay.from_client(line)
    await relay.released.wait()  # lines that wait for the tool list are the client's too
    await close_stdin(process, ending)
    assert ending.grace_ends is not None
    with anyio.move_on_after(ending.grace_ends - anyio.current_time()):
        await ending.server_done.wait()
    run.cancel()


async def _server_side(relay: Relay, receive: Receive, run: anyio.CancelScope, ending: Ending) -> None:
    """Server lines to the client until the server's output ends: the server has exited (or
    closed its stdout, which ends MCP over stdio all the same)."""
    async for line in lines(receive):
        await relay.from_server(line)
    ending.server_done.set()
    run.cancel()
