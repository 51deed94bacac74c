"""The streams of Streamable HTTP through `turngate proxy`, in each mode: a 2026-07-28 client's
progress and its own `subscriptions/listen` stream, the proxy's own stream that tells it of a
changed list, a request whose client goes away, and before 2026-07-28 the GET stream that
carries the server's own messages. The SDK's clients and its low-level server (with listen
streams, tests/proxy_servers/catalog_server.py)."""

from __future__ import annotations

import anyio
import pytest

from proxy_support import (
    CATALOG_SCRIPT,
    CATALOG_SERVER,
    PROXY,
    TICKET_SCRIPT,
    Client,
    dumped,
    free_port,
    http_server,
    mcp_url,
    own_requests,
    read_lines,
    recorded,
    sdk_client,
    server_environment,
    serving,
    session,
)
from test_proxy_http_listen import http_client, listening
from test_proxy_lists import text_of

# Real servers over Streamable HTTP (or from PyPI), end to end: left out of the fast loop.
pytestmark = [pytest.mark.anyio, pytest.mark.slow]
NOTIFYING = {"TURNGATE_LISTEN": "1", "TURNGATE_NOTIFY": "1"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


async def relearnt(client) -> tuple[dict, str]:
    """After `retype`: the proxy is told of the change and reads the list again, so the call
    that fits the new schema runs (once the notice has come), and the old one is refused.
    The schema is changed back at the end (the server serves other tests)."""
    await client.call_tool("retype", {})
    with anyio.fail_after(15):
        while (ran := dumped(await client.call_tool("note", {"title": "a"})))["isError"]:
            await anyio.sleep(0.05)
    refused = text_of(await client.call_tool("note", {"text": "a"}))
    await client.call_tool("retype", {})
    return ran, refused


def assert_relearnt(ran: dict, refused: str) -> None:
    assert ran["content"][0]["text"] == 'note: {"title": "a"}'
    assert refused.endswith('"title" is missing; it is required and must be text.')


async def test_behind_listen_a_2026_client_gets_its_progress_and_its_stream(tmp_path):
    """A stdio server shared by 2026-07-28 clients: each request's progress token and listen
    stream id are the proxy's on the server's side, the client's own on the way back."""
    port, wire = free_port(), tmp_path / "wire.jsonl"
    with serving(listening(port, "--", *recorded(wire, CATALOG_SERVER)), port,
                 {**server_environment(tmp_path), **NOTIFYING}):
        async with http_client(port, "auto") as client:
            steps: list[float] = []

            async def progress(done: float, total: float | None, message: str | None) -> None:
                steps.append(done)

            counted = dumped(await client.call_tool("count", {"n": 3}, progress_callback=progress))
            async with client.listen(tools_list_changed=True) as events:
                ran, refused = await relearnt(client)
                with anyio.fail_after(10):
                    event = await events.__anext__()
    assert counted["isError"] is False and steps == [1, 2, 3]
    assert type(event).__name__ == "ToolsListChanged"
    assert_relearnt(ran, refused)
    assert "subscriptions/listen" in [m["method"] for m in own_requests(wire)]


async def test_behind_listen_a_2026_request_whose_client_goes_away_is_cancelled(tmp_path):
    port, wire = free_port(), tmp_path / "wire.jsonl"
    with serving(listening(port, "--", *recorded(wire, CATALOG_SERVER)), port, server_environment(tmp_path)):
        async with http_client(port, "auto") as client:
            with pytest.raises(Exception):
                await client.call_tool("wait", {"seconds": 30}, read_timeout_seconds=1)
            with anyio.fail_after(15):
                while not [m for m in read_lines(wire) if m.get("method") == "notifications/cancelled"]:
                    await anyio.sleep(0.05)
    (cancelled,) = [m for m in read_lines(wire) if m.get("method") == "notifications/cancelled"]
    (waited,) = [m for m in read_lines(wire) if m.get("params", {}).get("name") == "wait"]
    assert cancelled["params"]["requestId"] == waited["id"]  # the id the server knows it by
    assert "wait done" not in [call["tool"] for call in read_lines(tmp_path / "calls.jsonl")]


@pytest.fixture(scope="module")
def notifying_server(tmp_path_factory):
    port = free_port()
    with serving(http_server(CATALOG_SCRIPT, port), port,
                 {**server_environment(tmp_path_factory.mktemp("notifying")), **NOTIFYING}):
        yield port


async def test_in_front_of_a_remote_server_the_proxys_own_stream_tells_it_of_a_change(notifying_server, tmp_path):
    port = free_port()
    with serving(listening(port, "--url", mcp_url(notifying_server)), port, server_environment(tmp_path)):
        async with http_client(port, "auto") as client:
            assert dumped(await client.call_tool("note", {"text": "a"}))["isError"] is False
            async with client.listen(tools_list_changed=True) as events:  # the client's own, passed through
                ran, refused = await relearnt(client)
                with anyio.fail_after(10):
                    event = await events.__anext__()
    assert_relearnt(ran, refused)
    assert type(event).__name__ == "ToolsListChanged"


async def test_a_stdio_client_of_a_remote_2026_server_is_told_of_a_change_by_the_proxys_stream(
        notifying_server, tmp_path):
    async with sdk_client([*PROXY, "--url", mcp_url(notifying_server)], server_environment(tmp_path)) as client:
        assert dumped(await client.call_tool("note", {"text": "a"}))["isError"] is False
        ran, refused = await relearnt(client)
    assert_relearnt(ran, refused)


async def test_a_stdio_client_of_a_remote_server_gets_the_get_streams_messages(notifying_server, tmp_path):
    """Before 2026-07-28 the server's own messages come on the GET stream the proxy opens
    after `initialized`: the change notice reaches the client, and the proxy reads the list
    again before the next call, though the client does not."""
    told = Client()
    async with session([*PROXY, "--url", mcp_url(notifying_server)], server_environment(tmp_path), told) as client:
        await client.list_tools()
        assert dumped(await client.call_tool("note", {"text": "a"}))["isError"] is False
        ran, refused = await relearnt(client)
    assert_relearnt(ran, refused)
    assert ("notification", {"method": "notifications/tools/list_changed"}) in told.seen


@pytest.fixture(scope="module")
def resumable_server(tmp_path_factory):
    """The test server over HTTP with an event store: `pause` closes its call's stream, and
    the answer comes to the client that resumes it (`Last-Event-ID`)."""
    port = free_port()
    with serving(http_server(TICKET_SCRIPT, port), port, server_environment(tmp_path_factory.mktemp("resumable"))):
        yield port


async def test_a_stream_the_remote_server_closes_is_resumed_for_a_stdio_client(resumable_server, tmp_path):
    async with session([*PROXY, "--url", mcp_url(resumable_server)], server_environment(tmp_path)) as client:
        resumed = dumped(await client.call_tool("pause", {}))
    assert resumed["content"][0]["text"] == "resumed"


async def test_an_http_client_resumes_a_stream_through_the_proxy(resumable_server, tmp_path):
    port = free_port()
    with serving(listening(port, "--url", mcp_url(resumable_server)), port, server_environment(tmp_path)):
        async with http_client(port, "legacy") as client:
            resumed = dumped(await client.call_tool("pause", {}))
    assert resumed["content"][0]["text"] == "resumed"
