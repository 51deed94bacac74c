"""`turngate proxy --listen HOST:PORT --url URL`: the SDK's clients over HTTP, the proxy, and
the SDK's server under uvicorn, relayed at the HTTP level: the server's status codes,
headers, event streams and their resumption pass through; each client is judged by the list
its own credentials get."""

from __future__ import annotations

import httpx2
import pytest

from proxy_support import (
    CATALOG_SCRIPT,
    TICKET_SCRIPT,
    dumped,
    free_port,
    http_server,
    mcp_url,
    read_lines,
    server_environment,
    serving,
)
from test_proxy_http_listen import INITIALIZE, JSON_AND_EVENTS, TOKENS, _resumed, http_client, listening
from test_proxy_lists import text_of

# Real servers over Streamable HTTP (or from PyPI), end to end: left out of the fast loop.
pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def remote_behind(tmp_path_factory):
    """The proxy listening in front of the catalog server over HTTP (with bearer tokens)."""
    folder, server_port, port = tmp_path_factory.mktemp("remote"), free_port(), free_port()
    environment = {**server_environment(folder), "TURNGATE_TOKENS": TOKENS}
    with serving(http_server(CATALOG_SCRIPT, server_port), server_port, environment), \
            serving(listening(port, "--url", mcp_url(server_port)), port, environment):
        yield port, folder


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_each_client_is_judged_by_the_list_its_own_credentials_get(remote_behind, mode):
    """Ann (admin) is offered `purge`; Bob is not: the proxy lists the tools for each with
    that client's own token, and refuses Bob's call of a tool his list lacks."""
    port, folder = remote_behind
    before = len(read_lines(folder / "calls.jsonl"))
    async with http_client(port, mode, "token-of-ann") as ann, http_client(port, mode, "token-of-bob") as bob:
        refused = text_of(await ann.call_tool("purge", {"days": ["all"]}))
        ran = dumped(await ann.call_tool("purge", {"days": 2}))
        unknown = text_of(await bob.call_tool("purge", {"days": 2}))
    assert refused.endswith('"days" must be an integer, but a list was sent.') and ran["isError"] is False
    assert unknown.startswith('Refused: no tool named "purge" was offered')
    assert [call["arguments"] for call in read_lines(folder / "calls.jsonl")[before:]] == [{"days": 2}]


async def test_the_remote_servers_errors_pass_through(remote_behind):
    port, _ = remote_behind
    async with httpx2.AsyncClient() as raw:
        unauthorized = await raw.post(mcp_url(port), json=INITIALIZE, headers=JSON_AND_EVENTS)
        gone = await raw.post(mcp_url(port), json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                              headers={**JSON_AND_EVENTS, "authorization": "Bearer token-of-bob",
                                       "mcp-session-id": "no-such-session", "mcp-protocol-version": "2025-11-25"})
    assert unauthorized.status_code == 401 and unauthorized.headers["www-authenticate"] == 'Bearer error="invalid_token"'
    assert gone.status_code == 404


async def test_a_dropped_stream_is_resumed_through_the_proxy(tmp_path):
    """The SDK's server keeps the stream's events (an event store); the client's GET with
    `Last-Event-ID` goes through the proxy to it, and the answer comes back."""
    server_port, port = free_port(), free_port()
    environment = server_environment(tmp_path)
    with serving(http_server(TICKET_SCRIPT, server_port), server_port, environment), \
            serving(listening(port, "--url", mcp_url(server_port)), port, environment):
        answer = await _resumed(port, {})
    assert answer["result"]["content"][0]["text"] == "done"


async def test_a_server_that_cannot_be_reached_is_a_502(tmp_path):
    port, nowhere = free_port(), free_port()
    with serving(listening(port, "--url", mcp_url(nowhere)), port, server_environment(tmp_path)):
        async with httpx2.AsyncClient() as raw:
            answers = [await raw.post(mcp_url(port), json=INITIALIZE, headers=JSON_AND_EVENTS),
                       await raw.get(mcp_url(port), headers={"accept": "text/event-stream"}),
                       await raw.delete(mcp_url(port), headers={"mcp-session-id": "s"})]
    assert [answer.status_code for answer in answers] == [502, 502, 502]


async def test_a_batch_through_the_proxy_is_answered_once(remote_behind):
    """A 2025-03-26 batch: the refused call answered by the proxy inside the server's batch
    answer, or alone where the batch held nothing else."""
    port, _ = remote_behind
    headers = {**JSON_AND_EVENTS, "authorization": "Bearer token-of-bob", "accept": "application/json"}
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "tag", "arguments": {"label": "x"}}}
    async with httpx2.AsyncClient() as raw:
        alone = await raw.post(mcp_url(port), json=[call], headers=headers)
    assert alone.status_code == 200 and [answer["id"] for answer in alone.json()] == [7]
    assert alone.json()[0]["result"]["isError"] is True
