"""The server's process: started with the command given, stopped the way MCP stops a stdio
server, and its exit code told as the proxy's.

Stopping, as the SDK's stdio client does (`mcp.os.posix.utilities`, which is not imported:
importing it imports all of `mcp`, most of a second at each start): the server's stdin is
closed; a server still running after a grace period gets SIGTERM, then SIGKILL, sent to its
process group (it leads its own, so that a Ctrl-C at a terminal reaches the proxy alone, and
the proxy decides).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import errno
import os
import signal
import subprocess

import anyio
import anyio.abc

if TYPE_CHECKING:
    from anyio import Event

#: Seconds the server has to exit after its stdin closes, then after SIGTERM. Together within
#: the 2 s an SDK client gives the proxy itself before it sends SIGTERM to the proxy.
STOP_GRACE, TERM_GRACE = 1.0, 0.5
#: The exit codes of a command that could not be run, as a shell gives them.
NOT_FOUND, NOT_RUNNABLE = 127, 126


class ServerNotStarted(Exception):
    """The command could not be started; the text is one sentence, `code` the exit code."""

    def __init__(self, text: str, code: int):
        super().__init__(text)
        self.code = code


class Ending:
    """What ended the run, for the exit code, and when the server's time to leave is up."""

    server_done: Event

    def __init__(self) -> None:
        self.signal: int | None = None  # the signal that stopped the proxy
        self.server_done = anyio.Event()  # the server's output ended
        self.grace_ends: float | None = None  # when the server's stdin was closed, plus the grace
        self.stopped = False  # the proxy had to terminate the server


async def start_server(command: list[str]) -> anyio.abc.Process:
    """The server's process; its stderr is the proxy's own."""
    try:
        return await anyio.open_process(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None,
                                        start_new_session=True)
    except OSError as error:
        code = NOT_FOUND if error.errno == errno.ENOENT else NOT_RUNNABLE
        raise ServerNotStarted(f'the server command "{command[0]}" could not be started '
                               f"({error.strerror or error}).", code) from None


async def close_stdin(process: anyio.abc.Process, ending: Ending) -> None:
    """The end of the server's input: an MCP server's cue to exit. Its grace period starts."""
    if ending.grace_ends is None:
        ending.grace_ends = anyio.current_time() + STOP_GRACE
    await _close(process.stdin)  # type: ignore[arg-type]


async def stop(process: anyio.abc.Process, ending: Ending) -> None:
    """Stop the server if it still runs: its stdin closed, then SIGTERM, then SIGKILL."""
    await close_stdin(process, ending)
    assert ending.grace_ends is not None
    if not await _exited(process, ending.grace_ends - anyio.current_time()):
        ending.stopped = True
        for number in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, number)
            except ProcessLookupError:
                break
            if await _exited(process, TERM_GRACE):
                break
    await _close(process.stdout)  # type: ignore[arg-type]


async def _exited(process: anyio.abc.Process, timeout: float) -> bool:
    """Whether the server exited within `timeout`. Polled, as the SDK does: waiting on the
    process would also wait for its pipes, which a child of the server may hold open. (Up
    to a deadline, not in a cancel scope: on Python 3.11 coverage.py loses the lines that
    run after a scope's timeout fired.)"""
    deadline = anyio.current_time() + timeout
    while process.returncode is None and anyio.current_time() < deadline:
        await anyio.sleep(0.01)
    return process.returncode is not None


async def _close(stream: anyio.abc.AsyncResource) -> None:
    try:
        await stream.aclose()
    except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass


def exit_code(returncode: int | None, ending: Ending) -> int:
    """The server's exit code as the proxy's; 128+N for signal N: the proxy's own, or the
    server's, unless the proxy stopped the server after the client left (a clean end)."""
    if ending.signal is not None:
        return 128 + ending.signal
    if returncode is None:
        return 1
    if returncode < 0:
        return 0 if ending.stopped else 128 - returncode
    return returncode
