"""`turngate proxy --url URL`: a stdio client in front of a remote server over Streamable
HTTP. The servers are the SDK's, under uvicorn on 127.0.0.1 (tests/proxy_servers/
catalog_server.py with bearer tokens: the admin's list has one more tool); the clients are
the SDK's `ClientSession` (2025-11-25) and `Client` in its default mode (2026-07-28)."""

from __future__ import annotations

import pytest
from mcp import MCPError

from proxy_support import (
    CATALOG_SCRIPT,
    PROXY,
    dumped,
    free_port,
    http_server,
    mcp_url,
    read_lines,
    sdk_client,
    server_environment,
    serving,
    session,
    start_serving,
    stop_serving,
)
from test_proxy_lists import text_of

# Real servers over Streamable HTTP (or from PyPI), end to end: left out of the fast loop.
pytestmark = [pytest.mark.anyio, pytest.mark.slow]
TOKENS = "admin=token-of-ann,user=token-of-bob"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """The catalog server over HTTP, with bearer tokens; its port and folder."""
    folder, port = tmp_path_factory.mktemp("catalog"), free_port()
    environment = {**server_environment(folder), "TURNGATE_TOKENS": TOKENS}
    with serving(http_server(CATALOG_SCRIPT, port), port, environment):
        yield port, folder


def mcp_error(raised: pytest.ExceptionInfo) -> MCPError:
    """The error a client session raised (from inside its task group, where it is grouped)."""
    error = raised.value
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    assert isinstance(error, MCPError), error
    return error


def remote(port: int, *options: str) -> list[str]:
    return [*PROXY, *options, "--url", mcp_url(port)]


@pytest.mark.parametrize("legacy", [True, False])
async def test_a_stdio_client_reaches_a_remote_server_through_the_gate(catalog, tmp_path, legacy):
    """The token comes from the environment (`${...}` in --header), the list is the one
    the server gives that token, and a call that does not fit never reaches the server."""
    port, folder = catalog
    before = len(read_lines(folder / "calls.jsonl"))
    command = remote(port, "--steps", str(tmp_path / "steps.jsonl"), "--header", "Authorization: Bearer ${ANN}")
    environment = {**server_environment(tmp_path), "ANN": "token-of-ann"}
    opened = session(command, environment) if legacy else sdk_client(command, environment)
    async with opened as client:
        refused = text_of(await client.call_tool("purge", {"days": ["all"]}))
        ran = dumped(await client.call_tool("purge", {"days": 3}))
        unknown = text_of(await client.call_tool("purge_all", {}))
    assert refused.endswith('"days" must be an integer, but a list was sent.')
    assert ran["isError"] is False and ran["content"][0]["text"] == 'purge: {"days": 3}'
    assert unknown.startswith('Refused: no tool named "purge_all" was offered')
    assert [call["arguments"] for call in read_lines(folder / "calls.jsonl")[before:]] == [{"days": 3}]
    assert [step["status"] for step in read_lines(tmp_path / "steps.jsonl")] == ["refused", "ok", "refused"]


async def test_a_401_reaches_the_client_as_an_error_naming_it(catalog, tmp_path):
    port, _ = catalog
    with pytest.raises(BaseException) as raised:
        async with session(remote(port, "--header", "Authorization: Bearer wrong"), server_environment(tmp_path)):
            pass
    assert mcp_error(raised).error.message == (f"unauthorized: the server at {mcp_url(port)} answered 401 Unauthorized; "
                                          "give its credentials with --header.")


async def test_an_unreachable_server_is_named_and_nothing_hangs(tmp_path):
    port = free_port()  # nothing listens there
    with pytest.raises(BaseException) as raised:
        async with session(remote(port), server_environment(tmp_path)):
            pass
    assert mcp_error(raised).error.message.startswith(f"unreachable: the server at {mcp_url(port)} could not be reached (")


async def test_a_session_the_server_no_longer_knows_is_named_expired(tmp_path):
    """The server restarts: the session it gave is gone, and its 404 is told as such."""
    port, environment = free_port(), server_environment(tmp_path)
    server = start_serving(http_server(CATALOG_SCRIPT, port), port, environment)
    try:
        async with session(remote(port), environment) as client:
            assert dumped(await client.call_tool("note", {"text": "a"}))["isError"] is False
            stop_serving(server)
            server = start_serving(http_server(CATALOG_SCRIPT, port), port, environment)
            with pytest.raises(MCPError) as raised:
                await client.call_tool("note", {"text": "b"})
    finally:
        stop_serving(server)
    assert raised.value.error.message.startswith(f"session expired: the server at {mcp_url(port)} answered 404")
