"""`turngate proxy --listen HOST:PORT -- COMMAND`: Streamable HTTP served to the SDK's
clients (`Client` over HTTP, in 2025-11-25 and 2026-07-28 sessions) in front of a stdio
server (a process per session); `Origin` checked. Raw HTTP (httpx2) only where no SDK client
would do it: a foreign Origin, a dropped stream. (In front of a remote server:
tests/test_proxy_http_forward.py.)"""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from proxy_support import (
    CATALOG_SERVER,
    PROXY,
    TICKET_SERVER,
    TIME_SERVER,
    dumped,
    free_port,
    mcp_url,
    read_lines,
    server_environment,
    serving,
)
from test_proxy_lists import text_of
from test_proxy_pypi import CONVERT

# Real servers over Streamable HTTP (or from PyPI), end to end: left out of the fast loop.
pytestmark = [pytest.mark.anyio, pytest.mark.slow]
TOKENS = "admin=token-of-ann,user=token-of-bob"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
JSON_AND_EVENTS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def listening(port: int, *options: str) -> list[str]:
    return [*PROXY, "--listen", f"127.0.0.1:{port}", *options]


@asynccontextmanager
async def http_client(port: int, mode: str, token: str | None = None):
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers) as raw:
        async with Client(streamable_http_client(mcp_url(port), http_client=raw), mode=mode) as client:
            yield client


@pytest.fixture(scope="module")
def stdio_behind(tmp_path_factory):
    """The proxy listening in front of the catalog server over stdio; its port and folder."""
    folder, port = tmp_path_factory.mktemp("behind"), free_port()
    with serving(listening(port, "--steps", str(folder / "steps.jsonl"), "--allow-origin", "https://app.example",
                           "--", *CATALOG_SERVER), port, server_environment(folder)) as proxy:
        yield port, folder, proxy


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_http_clients_reach_a_stdio_server_through_the_gate(stdio_behind, mode):
    port, folder, _ = stdio_behind
    before, steps = len(read_lines(folder / "calls.jsonl")), len(read_lines(folder / "steps.jsonl"))
    async with http_client(port, mode) as client:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        refused = text_of(await client.call_tool("tag", {"label": "green"}))
        ran = dumped(await client.call_tool("tag", {"label": "red"}))
    assert refused.endswith('"label" must be one of "red", "blue", but "green" was sent.')
    assert ran["isError"] is False
    assert [call["arguments"] for call in read_lines(folder / "calls.jsonl")[before:]] == [{"label": "red"}]
    # The steps keep the client's call ids, also where a shared server got others (2026-07-28).
    written = read_lines(folder / "steps.jsonl")[steps:]
    assert [(step["status"], type(step["call_id"])) for step in written] == [("refused", int), ("ok", int)]


async def test_a_pypi_server_over_stdio_serves_http_clients_through_the_gate(tmp_path):
    """mcp-server-time offers no listen stream and no ttlMs: in a 2026-07-28 session its
    list is read before each call, and each call is judged by it."""
    port = free_port()
    with serving(listening(port, "--", *TIME_SERVER), port, server_environment(tmp_path)):
        async with http_client(port, "auto") as client:
            converted = dumped(await client.call_tool("convert_time", CONVERT))
            refused = text_of(await client.call_tool("convert_time", {**CONVERT, "time": ["12:00"]}))
    assert converted["isError"] is False and '"target"' in converted["content"][0]["text"]
    assert refused.endswith('"time" must be text, but a list was sent.')


async def test_each_http_session_has_its_server_and_its_list(stdio_behind):
    """Two sessions at once: one changes its server's schema and reads the list again; the
    other's server, and list, are as they were. A session's end stops its server."""
    port, _, proxy = stdio_behind
    before = _children(proxy.pid)
    async with http_client(port, "legacy") as changed, http_client(port, "legacy") as unchanged:
        servers = _children(proxy.pid) - before
        await changed.call_tool("retype", {})
        await changed.list_tools()
        ran = dumped(await changed.call_tool("note", {"title": "a"}))
        refused = text_of(await unchanged.call_tool("note", {"title": "a"}))
    assert ran["isError"] is False and refused.endswith('"text" is missing; it is required and must be text.')
    assert len(servers) == 2
    with anyio.fail_after(20):  # DELETE ends each session: its server is given its time to leave, then stopped
        while servers & _children(proxy.pid):
            await anyio.sleep(0.1)


def _children(pid: int) -> set[int]:
    from pathlib import Path
    return {int(child) for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()}


@pytest.mark.parametrize("origin, status", [("http://evil.example", 403), ("http://127.0.0.1.evil.example", 403),
                                            ("null", 403), ("http://localhost:5173", 405), ("https://app.example", 405),
                                            (None, 405)])
async def test_an_origin_elsewhere_is_refused(stdio_behind, origin, status):
    """A web page elsewhere gets 403 before anything else is looked at; this machine's
    pages, the allowed origin and a client that is no browser get on (to the 405 a GET
    without a session gets)."""
    port, _, _ = stdio_behind
    async with httpx2.AsyncClient() as raw:
        answer = await raw.get(mcp_url(port), headers={"accept": "text/event-stream",
                                                        **({"origin": origin} if origin else {})})
    assert answer.status_code == status


async def _resumed(port: int, base: dict[str, str]) -> dict:
    """A call's stream dropped after its first event, then taken up with `Last-Event-ID`:
    the answer comes on the GET that resumes it."""
    async with httpx2.AsyncClient(headers=base, timeout=30) as raw:
        opened = await raw.post(mcp_url(port), json=INITIALIZE, headers=JSON_AND_EVENTS)
        headers = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        await raw.post(mcp_url(port), json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                       headers={**JSON_AND_EVENTS, **headers})
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "slow", "arguments": {"seconds": 1}}}
        async with raw.stream("POST", mcp_url(port), json=call, headers={**JSON_AND_EVENTS, **headers}) as stream:
            first = await anext(aiter(httpx2.EventSource(stream)))
        assert first.id and not first.data  # the stream's first event: an id to resume from, nothing else
        async with raw.stream("GET", mcp_url(port), headers={**headers, "accept": "text/event-stream",
                                                              "last-event-id": first.id}) as resumed:
            async for event in httpx2.EventSource(resumed):
                if event.data and json.loads(event.data).get("id") == 2:
                    return json.loads(event.data)
    raise AssertionError("no answer")


async def test_a_dropped_stream_is_resumed_in_front_of_a_stdio_server(tmp_path):
    port = free_port()
    with serving(listening(port, "--", *TICKET_SERVER), port, server_environment(tmp_path)):
        answer = await _resumed(port, {})
    assert answer["result"]["content"][0]["text"] == "done"


async def test_what_the_http_server_answers_requests_it_cannot_serve(stdio_behind):
    """The proxy's own answers, as the specification has them: a body that is not JSON,
    a request with no session, a session or an event id it does not know, a client that
    accepts JSON alone (answered as JSON), a notification (202). (A batch goes on to the
    server as it came: the SDK's servers, which took 2025-03-26 out, answer none.)"""
    port, _, _ = stdio_behind
    url = mcp_url(port)
    async with httpx2.AsyncClient() as raw:
        not_json_type = await raw.post(url, content=b"{}", headers={"content-type": "text/plain"})
        not_json = await raw.post(url, content=b"{nope", headers=JSON_AND_EVENTS)
        no_session = await raw.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                    headers=JSON_AND_EVENTS)
        unknown = await raw.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                 headers={**JSON_AND_EVENTS, "mcp-session-id": "no-such-session"})
        opened = await raw.post(url, json=INITIALIZE, headers={"accept": "application/json"})
        session_id = {"mcp-session-id": opened.headers["mcp-session-id"]}
        accepted = await raw.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                                  headers={**JSON_AND_EVENTS, **session_id})
        refused = await raw.post(url, json={"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                            "params": {"name": "tag", "arguments": {"label": "green"}}},
                                 headers={"accept": "application/json", "content-type": "application/json",
                                          "mcp-protocol-version": "2025-11-25", **session_id})
        no_event = await raw.get(url, headers={"accept": "text/event-stream", "last-event-id": "nope.1",
                                               **session_id})
        ended = await raw.delete(url, headers=session_id)
        ended_again = await raw.delete(url, headers=session_id)
        no_session_delete = await raw.delete(url)
    assert [not_json_type.status_code, not_json.status_code, no_session.status_code, unknown.status_code] == \
        [415, 400, 400, 404]
    assert not_json.json()["error"]["code"] == -32700
    assert opened.status_code == 200 and opened.headers["content-type"] == "application/json"
    assert opened.json()["result"]["serverInfo"]["name"] == "catalog"
    assert accepted.status_code == 202
    assert refused.headers["content-type"] == "application/json" and refused.json()["result"]["isError"] is True
    assert [no_event.status_code, ended.status_code, ended_again.status_code, no_session_delete.status_code] == \
        [404, 200, 404, 405]
