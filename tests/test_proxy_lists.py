"""`turngate proxy` judges by the list the client sees, on every protocol version: a paged
listing the client reads (and reads again), a 2026-07-28 session's `subscriptions/listen`
stream and `ttlMs`, a repeating cursor, a malformed entry, an unknown name, and a server
that does not answer the proxy's own requests. Real SDK clients (`ClientSession`, `Client`
in its default mode) and the SDK's low-level `Server` (tests/proxy_servers/catalog_server.py);
the plain echo server only for lists and ids no SDK server sends."""

from __future__ import annotations

import json
import subprocess

import anyio
import pytest

from proxy_support import (
    CATALOG_SERVER,
    ECHO_SERVER,
    Client,
    dumped,
    list_every_page,
    own_requests,
    proxied,
    read_lines,
    recorded,
    sdk_client,
    server_environment,
    session,
    tool_calls_received,
)
from test_proxy_wire import CALL, INITIALIZE, INITIALIZED, Raw, converse

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def catalog(tmp_path, **settings: str) -> tuple[list[str], dict[str, str]]:
    """The catalog server behind the proxy (its input recorded), and its environment."""
    wire = tmp_path / "wire.jsonl"
    environment = {**server_environment(tmp_path), **{f"TURNGATE_{k.upper()}": v for k, v in settings.items()}}
    return proxied(recorded(wire, CATALOG_SERVER)), environment


def text_of(result) -> str:
    return dumped(result)["content"][0]["text"]


def own_methods(tmp_path) -> list[str]:
    return [m["method"] for m in own_requests(tmp_path / "wire.jsonl")]


async def test_a_paged_listing_the_client_reads_again_is_the_list(tmp_path):
    """The client reads both pages, the schema changes without a word, and the client reads
    both pages again: each call is judged by the list the client read last, and the proxy
    asked the server nothing itself."""
    command, environment = catalog(tmp_path, page="2")
    async with session(command, environment) as client:
        assert await list_every_page(client) == ["note", "tag", "clip", "count", "wait", "retype"]
        before = text_of(await client.call_tool("note", {"title": "a"}))
        await client.call_tool("retype", {})
        assert await list_every_page(client) == ["note", "tag", "clip", "count", "wait", "retype"]
        ran = dumped(await client.call_tool("note", {"title": "a"}))
        refused = text_of(await client.call_tool("note", {"text": "a"}))
    assert before.endswith('"text" is missing; it is required and must be text.')
    assert ran["isError"] is False and ran["content"][0]["text"] == 'note: {"title": "a"}'
    assert refused.endswith('"title" is missing; it is required and must be text.')
    assert own_methods(tmp_path) == []
    assert [call["tool"] for call in read_lines(tmp_path / "calls.jsonl")] == ["retype", "note"]


async def test_a_2026_07_28_session_keeps_a_listen_stream_and_relearns_on_its_change(tmp_path):
    """The SDK's `Client` in its default mode speaks 2026-07-28: the proxy opens a listen
    stream of its own, so the client's listing stays current until the server tells of a
    change on it; then the proxy reads the list once. Its stream never reaches the client."""
    command, environment = catalog(tmp_path, listen="1", notify="1")
    told = Client()
    async with sdk_client(command, environment, message_handler=told.messages) as client:
        assert client.protocol_version == "2026-07-28"
        await client.list_tools()
        ran = text_of(await client.call_tool("note", {"text": "a"}))
        await client.call_tool("retype", {})
        with anyio.fail_after(10):
            while "tools/list" not in own_methods(tmp_path):
                now = dumped(await client.call_tool("note", {"title": "a"}))
                if now["isError"] is False:
                    break
                await anyio.sleep(0.05)  # the change is on its way to the proxy
        refused = text_of(await client.call_tool("note", {"text": "a"}))
    assert ran == 'note: {"text": "a"}' and now["isError"] is False
    assert refused.endswith('"title" is missing; it is required and must be text.')
    assert own_methods(tmp_path) == ["subscriptions/listen", "tools/list"]
    assert told.seen == []  # no frame of the proxy's stream, no answer to its requests


@pytest.mark.parametrize("ttl, lists", [(None, 3), ("60000", 0)])  # (an explicit 0: tests/test_proxy_pieces.py)
async def test_without_a_stream_the_ttl_says_how_long_a_list_is_current(tmp_path, ttl, lists):
    """No listen stream (the server offers none): a list is current for its `ttlMs`, and an
    absent one is 0 in 2026-07-28. Within a long ttl the schema change is not seen, as the
    server promised it would not be needed."""
    command, environment = catalog(tmp_path, **({"ttl_ms": ttl} if ttl else {}))
    async with sdk_client(command, environment) as client:
        await client.list_tools()
        first = dumped(await client.call_tool("note", {"title": "a"}))
        await client.call_tool("retype", {})
        second = dumped(await client.call_tool("note", {"title": "a"}))
    assert first["isError"] is True
    assert second["isError"] is (ttl == "60000")  # judged by the new schema, or by the unexpired list
    assert own_methods(tmp_path) == ["subscriptions/listen"] + ["tools/list"] * lists


async def test_the_clients_own_listen_stream_passes_through(tmp_path):
    command, environment = catalog(tmp_path, listen="1", notify="1")
    async with sdk_client(command, environment) as client:
        async with client.listen(tools_list_changed=True) as events:
            await client.call_tool("retype", {})
            with anyio.fail_after(10):
                event = await events.__anext__()
    assert type(event).__name__ == "ToolsListChanged"
    listens = [m for m in read_lines(tmp_path / "wire.jsonl") if m.get("method") == "subscriptions/listen"]
    assert len(listens) == 2 and sum(str(m["id"]).startswith("turngate-proxy-") for m in listens) == 1


@pytest.mark.parametrize("cursor, pages", [("repeat", 2), ("empty", 1)])
async def test_a_repeating_or_empty_cursor_ends_the_proxys_listing(tmp_path, cursor, pages):
    command, environment = catalog(tmp_path, page="2" if cursor == "repeat" else "10", cursor=cursor)
    async with session(command, environment) as client:
        refused = dumped(await client.call_tool("note", {"text": ["a"]}))
        again = dumped(await client.call_tool("tag", {"label": "green"}))
    assert refused["isError"] is True and again["isError"] is True
    assert own_methods(tmp_path) == ["tools/list"] * pages  # not a thousand pages per call


def echo(tmp_path, mode: str) -> tuple[list[str], dict[str, str]]:
    wire = tmp_path / "wire.jsonl"
    return proxied(recorded(wire, ECHO_SERVER), "--steps", str(tmp_path / "steps.jsonl")), \
        {**server_environment(tmp_path), "TURNGATE_ECHO_TOOLS": mode}


def call_line(request_id: int, tool: str, arguments: str) -> bytes:
    return (CALL % (b'"id":%d,' % request_id, arguments.encode())).replace(b'"echo"', json.dumps(tool).encode()) \
        + b"\n"


async def test_a_malformed_entry_leaves_only_that_tool_unjudged(tmp_path):
    """One list with an entry of each malformed kind beside `echo`: `echo` is judged, the
    others go on unjudged (and say so in their steps), and the list is read once."""
    command, environment = echo(tmp_path, "malformed")
    script = [(INITIALIZE, 1), (INITIALIZED, None), (call_line(2, "echo", '{"text":[5]}'), 2),
              (call_line(3, "whisper", '{"text":[5]}'), 3), (call_line(4, "twice", '{"text":[5]}'), 4),
              (call_line(5, "tally", "{}"), 5), (call_line(6, "nowhere", "{}"), 6),
              (call_line(7, "echo", '{"text":"hi"}'), 7)]
    received = {json.loads(line)["id"]: json.loads(line)["result"] for line in
                await converse(command, environment, script)}
    assert received[2]["isError"] is True and received[7] == {"content": [{"type": "text", "text": "hi"}]}
    assert [received[n] for n in (3, 4)] == [{"content": [{"type": "text", "text": [5]}]}] * 2
    assert [c["params"]["name"] for c in tool_calls_received(tmp_path / "wire.jsonl")] == [
        "whisper", "twice", "tally", "nowhere", "echo"]
    assert own_methods(tmp_path) == ["tools/list"]
    steps = [(s["tool"], s["status"], s.get("judged", True)) for s in read_lines(tmp_path / "steps.jsonl")]
    assert steps == [("echo", "refused", True), ("whisper", "ok", False), ("twice", "ok", False),
                     ("tally", "ok", False), ("nowhere", "ok", False), ("echo", "ok", True)]


async def test_a_name_the_list_lacks_has_the_list_read_again_once(tmp_path):
    command, environment = echo(tmp_path, "plain")
    script = [(INITIALIZE, 1), (INITIALIZED, None)] + [
        (call_line(n, name, "{}"), n) for n, name in enumerate(["nowhere", "nowhere", "elsewhere", "nowhere"], 2)]
    received = [json.loads(line)["result"] for line in await converse(command, environment, script)][1:]
    assert all(result["content"][0]["text"].startswith("Refused: no tool named") for result in received)
    assert own_methods(tmp_path) == ["tools/list", "tools/list"]  # for the first call, and for "elsewhere"


@pytest.mark.parametrize("mode", ["null-id", "silent"])
async def test_a_server_that_does_not_answer_the_proxy_costs_one_wait_and_holds_no_other_line(tmp_path, mode):
    """The server cannot take text ids: it answers them with a null id, or not at all. The
    first call waits for the proxy's list once (not at all for a null id); a ping sent
    meanwhile does not wait; the null-id error never reaches the client; later calls
    do not wait; and once the client lists, its list judges."""
    command, environment = echo(tmp_path, mode)
    async with await anyio.open_process(command, env=environment, stderr=subprocess.DEVNULL) as process:
        raw = Raw(process)
        await raw.ask(INITIALIZE, 1)
        await raw.send(INITIALIZED)
        await raw.send(call_line(2, "echo", '{"text":[1]}'))
        await raw.send(b'{"jsonrpc":"2.0","id":3,"method":"ping"}\n')
        order = [json.loads(await raw.line()) for _ in range(2)]
        unjudged = await raw.ask(call_line(4, "echo", '{"text":[2]}'), 4)
        await raw.ask(b'{"jsonrpc":"2.0","id":5,"method":"tools/list"}\n', 5)
        judged = await raw.ask(call_line(6, "echo", '{"text":[3]}'), 6)
        await process.stdin.aclose()
    # Silent: the call waits for the list, and the ping goes by. A null id ends the wait at
    # once, so the call and the ping race to the server: either may be answered first.
    assert [m["id"] for m in order] == [3, 2] if mode == "silent" else sorted(m["id"] for m in order) == [2, 3]
    assert order[[m["id"] for m in order].index(2)]["result"] == {"content": [{"type": "text", "text": [1]}]}
    assert json.loads(unjudged[-1])["result"] == {"content": [{"type": "text", "text": [2]}]}
    assert json.loads(judged[-1])["result"]["isError"] is True
    assert own_methods(tmp_path) == ["tools/list"]
    steps = [(s["status"], s.get("judged", True)) for s in read_lines(tmp_path / "steps.jsonl")]
    assert steps == [("ok", False), ("ok", False), ("refused", True)]
