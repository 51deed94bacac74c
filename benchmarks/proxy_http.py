"""The proxy's start-up, and the latency it adds over Streamable HTTP: helpers of
`benchmarks/proxy_latency.py`, which runs them and writes the figures.

Start-up, from the exec of the command to the proxy serving (the median and the best of N
runs, wall clock, and the CPU the process used), with a bare interpreter timed the same way
as the reference of what the machine gives at that moment:

- stdio: `turngate proxy -- cat` (the shortest server there is: it echoes), to the first
  line the client wrote coming back through the proxy;
- `--url`: to the answer to `initialize` from the test server over HTTP (already running);
- `--listen`: to the first HTTP request answered.

Latency: a valid call from the SDK's `ClientSession` (2025-11-25), through the proxy and
without it, in turns, as `proxy_latency.sdk_sessions` does over stdio.
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import time
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from proxy_support import (  # noqa: E402
    PROXY,
    TICKET_SCRIPT,
    TICKET_SERVER,
    free_port,
    http_server,
    mcp_url,
    serving,
    session,
)

TURNGATE = str(Path(sys.executable).parent / "turngate")
INITIALIZE = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
              b'"capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}\n')


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(start: list[str], ready: Any, runs: int) -> dict[str, float]:
    """Each run: the command started, `ready(process)` waited for, the process stopped."""
    walls, cpus = [], []
    for _ in range(runs):
        cpu = _children_cpu()
        began = time.perf_counter()
        process = subprocess.Popen(start, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        ready(process)
        walls.append(time.perf_counter() - began)
        process.stdin.close()  # type: ignore[union-attr]
        if process.wait(timeout=30) is None:
            process.kill()
        cpus.append(_children_cpu() - cpu)
    walls.sort()
    cpus.sort()
    return {"best_ms": walls[0] * 1000, "median_ms": walls[len(walls) // 2] * 1000,
            "cpu_median_ms": cpus[len(cpus) // 2] * 1000, "n": runs}


def _line_back(line: bytes):
    def ready(process: subprocess.Popen) -> None:
        process.stdin.write(line)  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]
        process.stdout.readline()  # type: ignore[union-attr]
    return ready


def _serving(port: int):
    """Ready once an HTTP request is answered (a GET without a session: 405)."""
    request = f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode()

    def ready(process: subprocess.Popen) -> None:
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    probe.sendall(request)
                    if probe.recv(64).startswith(b"HTTP/1.1 405"):
                        process.terminate()
                        return
            time.sleep(0.001)
    return ready


#: The reference: the environment's interpreter started bare, echoing a line (no site-packages
#: of ours imported): what the machine's load does to any start at that moment.
REFERENCE = "reference: `python -c` echoing a line, to the line back"


def start_up(runs: int, environment: dict[str, str]) -> dict[str, dict[str, float]]:
    ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    echo = "import sys; sys.stdout.write(sys.stdin.readline()); sys.stdout.flush()"
    found = {REFERENCE: _timed([sys.executable, "-c", echo], _line_back(ping), runs),
             "stdio: `turngate proxy -- cat`, to the first line back": _timed(
                 [TURNGATE, "proxy", "--", "cat"], _line_back(ping), runs)}
    port = free_port()
    with serving(http_server(TICKET_SCRIPT, port), port, environment):
        found["`turngate proxy --url URL`, to the answer to initialize"] = _timed(
            [TURNGATE, "proxy", "--url", mcp_url(port)], _line_back(INITIALIZE), runs)
    listen = free_port()
    found["`turngate proxy --listen HOST:PORT -- cat`, to the first HTTP answer"] = _timed(
        [TURNGATE, "proxy", "--listen", f"127.0.0.1:{listen}", "--", "cat"], _serving(listen), runs)
    return found


@asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    async with httpx2.AsyncClient() as raw, streamable_http_client(url, http_client=raw) as (read, write):
        async with ClientSession(read, write) as started:
            await started.initialize()
            yield started


async def http_cases(calls: int, environment: dict[str, str], timed: Any, arguments: dict[str, Any]) -> dict:
    """Each HTTP mode against the test server over HTTP (`--url`, `--listen --url`), or the
    same server over stdio (`--listen -- COMMAND`); the direct side: the server's own HTTP."""
    server_port, behind_stdio, behind_url = free_port(), free_port(), free_port()
    results = {}
    async with AsyncExitStack() as stack:
        stack.enter_context(serving(http_server(TICKET_SCRIPT, server_port), server_port, environment))
        stack.enter_context(serving([*PROXY, "--listen", f"127.0.0.1:{behind_stdio}", "--", *TICKET_SERVER],
                                    behind_stdio, environment))
        stack.enter_context(serving([*PROXY, "--listen", f"127.0.0.1:{behind_url}", "--url", mcp_url(server_port)],
                                    behind_url, environment))
        direct = await stack.enter_async_context(http_session(mcp_url(server_port)))
        sides = {
            "`--url`: SDK session over stdio, the test server over HTTP": await stack.enter_async_context(
                session([*PROXY, "--url", mcp_url(server_port)], environment)),
            "`--listen -- COMMAND`: SDK session over HTTP, the test server over stdio": await stack.enter_async_context(
                http_session(mcp_url(behind_stdio))),
            "`--listen --url`: SDK session over HTTP, the test server over HTTP": await stack.enter_async_context(
                http_session(mcp_url(behind_url))),
        }
        for name, proxied in sides.items():
            results[name] = await timed(direct, proxied, "assign", arguments, calls)
    return results


def environment_for(folder: Path) -> dict[str, str]:
    return {"TURNGATE_TEST_CALLS": str(folder / "calls.jsonl"), "PATH": os.environ.get("PATH", "")}
