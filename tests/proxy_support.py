"""Helpers of the proxy's tests (tests/test_proxy_*.py) and its latency benchmark: real MCP
client sessions (the SDK's `ClientSession` over `stdio_client`) against real servers,
started directly or through `python -m turngate.mcp.proxy`, and the records that tell what
reached a server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import mcp_types as types
from mcp import Client as SdkClient
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import turngate
from turngate.formats import mcp_calls

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SERVERS = TESTS / "proxy_servers"
#: The project's test server with resources, prompts and tools that change the list.
TICKET_SERVER = [sys.executable, str(SERVERS / "ticket_server.py")]
#: A server in plain Python (no SDK import): it starts fast, where the server does not matter.
ECHO_SERVER = [sys.executable, str(SERVERS / "echo_server.py")]
#: The SDK's low-level Server, with a paged tool list whose schemas change (see the file).
CATALOG_SCRIPT = SERVERS / "catalog_server.py"
CATALOG_SERVER = [sys.executable, str(CATALOG_SCRIPT)]
TICKET_SCRIPT = SERVERS / "ticket_server.py"
#: The console scripts of the PyPI servers (the test extra), beside the Python that runs the tests.
BIN = Path(sys.executable).parent
TIME_SERVER = [str(BIN / "mcp-server-time"), "--local-timezone", "Europe/Berlin"]
#: What a test's proxy processes are started with, as `python -m turngate.mcp.proxy`.
PROXY = [sys.executable, "-m", "turngate.mcp.proxy"]


def git_server(repo: Path) -> list[str]:
    return [str(BIN / "mcp-server-git"), "--repository", str(repo)]


def proxied(command: list[str], *options: str) -> list[str]:
    return [*PROXY, *options, "--", *command]


def recorded(log: Path, command: list[str]) -> list[str]:
    """The command, wrapped so that every line the server reads is appended to `log`."""
    return [sys.executable, str(SERVERS / "record_stdin.py"), str(log), "--", *command]


def server_environment(folder: Path) -> dict[str, str]:
    """The variables a test server reads (where it records its calls and its process id),
    and coverage's, so that the proxy is measured in its own process too: an SDK client
    starts its server with a few safe variables only."""
    passed_on = {name: value for name, value in os.environ.items() if name.startswith("COVERAGE_")}
    return {**passed_on, "TURNGATE_TEST_CALLS": str(folder / "calls.jsonl"),
            "TURNGATE_TEST_PID": str(folder / "server.pid")}


def read_lines(path: Path) -> list:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def tool_calls_received(log: Path) -> list[dict]:
    """The `tools/call` requests a recorded server read."""
    return [m for m in read_lines(log) if isinstance(m, dict) and m.get("method") == "tools/call"]


def own_requests(log: Path) -> list[dict]:
    """The proxy's own requests a recorded server read."""
    return [m for m in read_lines(log) if isinstance(m, dict) and str(m.get("id")).startswith("turngate-proxy-")]


class Client:
    """What a client session gets asked and told, so that a direct and a proxied one compare."""

    def __init__(self) -> None:
        self.seen: list = []

    async def sampling(self, context, params):
        self.seen.append(("sampling", params.model_dump(mode="json")))
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="short"),
                                         model="test-model")

    async def elicitation(self, context, params):
        self.seen.append(("elicitation", params.model_dump(mode="json")))
        return types.ElicitResult(action="accept", content={"sure": True})

    async def roots(self, context):
        self.seen.append(("roots",))
        return types.ListRootsResult(roots=[types.Root(uri="file:///work/tickets")])

    async def logging(self, params):
        self.seen.append(("log", params.model_dump(mode="json")))

    async def messages(self, message):
        if not isinstance(message, Exception):
            self.seen.append(("notification", message.model_dump(mode="json", by_alias=True, exclude_none=True)))

    async def progress(self, progress, total, message):
        self.seen.append(("progress", progress, total, message))


@asynccontextmanager
async def session(command: list[str], environment: dict[str, str], client: Client | None = None,
                  initialize: bool = True):
    """A client session with the server `command` starts (initialized, unless told not to)."""
    client = client or Client()
    parameters = StdioServerParameters(command=command[0], args=command[1:], env=environment, cwd=str(ROOT))
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write, sampling_callback=client.sampling,
                                 elicitation_callback=client.elicitation, list_roots_callback=client.roots,
                                 logging_callback=client.logging, message_handler=client.messages) as started:
            if initialize:
                await started.initialize()
            yield started


@asynccontextmanager
async def sdk_client(command: list[str], environment: dict[str, str], mode: str = "auto", **options):
    """The SDK's high-level `Client` with the server `command` starts; in its default mode it
    speaks 2026-07-28 to a server that does."""
    parameters = StdioServerParameters(command=command[0], args=command[1:], env=environment, cwd=str(ROOT))
    async with SdkClient(parameters, mode=mode, **options) as connected:
        yield connected


async def list_every_page(lister) -> list[str]:
    """The names of every tool, page by page, as a client reads a paged list (a
    `ClientSession` takes the cursor in params, the high-level `Client` as is)."""
    names: list[str] = []
    cursor = None
    while True:
        if isinstance(lister, ClientSession):
            listed = await lister.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        else:
            listed = await lister.list_tools(cursor=cursor)
        names += [tool.name for tool in listed.tools]
        cursor = listed.next_cursor
        if not cursor:
            return names


def expected_answer(listed: types.ListToolsResult, tool: str, arguments: dict) -> str:
    """turngate's answer to a call, judged in-process against the tools the server listed."""
    toolset = turngate.Toolset(mcp_calls.tools(listed.model_dump(by_alias=True, mode="json")))
    verdict = turngate.check_turn([{"id": 1, "name": tool, "arguments": arguments}], toolset)
    assert not verdict.ok
    return verdict.answers[0].text


def dumped(result) -> dict:
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"{process.args} exited with {process.returncode}"
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


def start_serving(command: list[str], port: int, environment: dict[str, str]) -> subprocess.Popen:
    """A process that serves HTTP on `port` (a server under uvicorn, or `turngate proxy
    --listen`), once it listens; its stderr goes to a file (`process.stderr_file`)."""
    stderr = tempfile.NamedTemporaryFile(prefix="turngate-serving-", suffix=".err", delete=False)
    process = subprocess.Popen(command, env={**os.environ, **environment}, cwd=ROOT, stdin=subprocess.DEVNULL,
                               stderr=stderr)
    process.stderr_file = Path(stderr.name)  # type: ignore[attr-defined]
    stderr.close()
    wait_for_port(port, process)
    return process


def stop_serving(process: subprocess.Popen) -> int:
    """Stop it with SIGTERM (SIGKILL if it will not go); its exit code."""
    if process.poll() is None:
        process.terminate()
    try:
        return process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()


@contextmanager
def serving(command: list[str], port: int, environment: dict[str, str]):
    """`start_serving` for a block; a proxy (`python -m turngate.mcp.proxy`) is held to
    exit 0 on SIGTERM without a word on stderr."""
    process = start_serving(command, port, environment)
    try:
        yield process
    finally:
        code = stop_serving(process)
        said = process.stderr_file.read_text(errors="replace")  # type: ignore[attr-defined]
        process.stderr_file.unlink()  # type: ignore[attr-defined]
        if command[:3] == PROXY:
            assert (code, said) == (0, ""), said


def http_server(script: Path, port: int) -> list[str]:
    return [sys.executable, str(script), "--http", str(port)]


def mcp_url(port: int) -> str:
    return f"http://127.0.0.1:{port}/mcp"
