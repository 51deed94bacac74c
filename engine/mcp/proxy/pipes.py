"""The byte streams: the proxy's own stdin and stdout (the client's end) and the server's
pipes, read in chunks and cut into lines that keep their bytes, line ending included."""

from __future__ import annotations

import asyncio
import os
import stat
from typing import AsyncIterator, Awaitable, Callable

import anyio
import anyio.abc
import anyio.lowlevel
import anyio.to_thread

#: How much is read from a pipe at a time.
CHUNK = 1 << 16

Receive = Callable[[], Awaitable[bytes]]  # the next bytes; b"" at the end
Send = Callable[[bytes], Awaitable[None]]


async def lines(receive: Receive) -> AsyncIterator[bytes]:
    """Each line with its line ending, as received; at the end, what is left without one."""
    pending: list[bytes] = []
    while chunk := await receive():
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            pending.append(chunk[start:end + 1])
            yield b"".join(pending)
            pending.clear()
            start = end + 1
        if start < len(chunk):
            pending.append(chunk[start:])
    if pending:
        yield b"".join(pending)


def is_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def client_pipes() -> tuple[Receive, Send]:
    """The proxy's stdin and stdout. A pipe or a socket (what an MCP client gives) is served
    by the event loop; a file or a terminal, whose non-blocking mode would be shared with
    other processes, by a worker thread."""
    loop = asyncio.get_running_loop()
    if is_pipe(0):
        reader = asyncio.StreamReader(limit=CHUNK)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(os.dup(0), "rb", 0))

        async def receive() -> bytes:
            return await reader.read(CHUNK)
    else:
        async def receive() -> bytes:
            return await anyio.to_thread.run_sync(os.read, 0, CHUNK, abandon_on_cancel=True)
    return _until_closed(receive), await _stdout_writer(loop)


async def _stdout_writer(loop: asyncio.AbstractEventLoop) -> Send:
    if is_pipe(1):
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                            os.fdopen(os.dup(1), "wb", 0))
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        _STDOUT_WRITERS.append(writer)

        async def write(data: bytes) -> None:
            writer.write(data)
            await writer.drain()  # a client that reads slowly slows the server, not our memory
        return write
    lock = anyio.Lock()

    async def write_in_thread(data: bytes) -> None:
        async with lock:
            await anyio.to_thread.run_sync(_write_all, 1, data)
    return write_in_thread


def _until_closed(receive: Receive) -> Receive:
    async def read() -> bytes:
        try:
            return await receive()
        except OSError:  # the client's end went away: the same as its end of input
            return b""
    return read


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def client_sender(write: Send, run: anyio.CancelScope) -> Send:
    """Writes to the client; once the client has closed its end, the run ends (as a server
    writing to a closed pipe would)."""
    async def send(data: bytes) -> None:
        try:
            await write(data)
        except (OSError, RuntimeError):  # a closed pipe; a closed transport
            run.cancel()
            await anyio.lowlevel.checkpoint()  # this task is in the cancelled scope: it ends here
    return send


#: Writers to the proxy's stdout, closed at the end of the run while the loop still runs:
#: left to the garbage collector, Python 3.12's StreamWriter closes itself at exit, after
#: the loop has closed, and prints a traceback ("Event loop is closed").
_STDOUT_WRITERS: list[asyncio.StreamWriter] = []


def restore_blocking() -> None:
    """The event loop made stdin and stdout non-blocking; whoever else holds them (a shell,
    the client) gets them back as they were. The run's stdout writers are closed first."""
    while _STDOUT_WRITERS:
        _STDOUT_WRITERS.pop().close()
    for fd in (0, 1):
        try:
            os.set_blocking(fd, True)
        except OSError:
            pass


def server_pipes(process: anyio.abc.Process) -> tuple[Receive, Send]:
    """The server's stdout and stdin. A server that has gone reads as the end of its output;
    what is written to it then is dropped (the end of its output ends the run)."""
    async def receive() -> bytes:
        try:
            return await process.stdout.receive(CHUNK)  # type: ignore[union-attr]
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            return b""

    async def send(data: bytes) -> None:
        try:
            await process.stdin.send(data)  # type: ignore[union-attr]
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
    return receive, send
