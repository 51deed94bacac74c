"""The proxy's reading of lines and tool lists, in-process: a line cut where the Python SDK
cuts it, bytes decoded as the SDKs decode them, a listing's end, a malformed entry, when a
list stops being current, batches answered once, and what it does with a server that does
not answer its requests. (The same, end to end with real clients and servers, is in
tests/test_proxy_lists.py and tests/test_proxy_reading.py.)"""

from __future__ import annotations

import io
import json
import math

import anyio
import mcp_types
import pytest

from turngate.mcp.proxy import messages
from turngate.mcp.proxy.batches import BatchAnswers
from turngate.mcp.proxy.core import Core
from turngate.mcp.proxy.listing import KnownList, Listing
from turngate.mcp.proxy.own_requests import OwnRequests
from turngate.mcp.proxy.reading import pieces
from turngate.mcp.proxy.tool_list import ToolList

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
CORE = Core(None, casts=False)


def sdk_read(line: bytes) -> list:
    """What the Python SDK's stdio server reads from these bytes: text with universal
    newlines, invalid bytes as U+FFFD, each line parsed by pydantic (None where it fails)."""
    text = io.TextIOWrapper(io.BytesIO(line), encoding="utf-8", errors="replace")
    read = []
    for each in text:
        try:
            read.append(mcp_types.jsonrpc_message_adapter.validate_json(each, by_name=False)
                        .model_dump(by_alias=True, exclude_unset=True))
        except ValueError:
            read.append(None)
    return read


@pytest.mark.parametrize("line", [
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n',
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}\r{"jsonrpc":"2.0","id":2,"method":"tools/call",'
    b'"params":{"name":"echo","arguments":{"text":5}}}\n',
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}\r\r\n{"jsonrpc":"2.0","id":3,"method":"ping"}\r',
    b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"caf\xe9 \xff"}}}\n',
    b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":NaN,"n":-Infinity}}}\n',
])
def test_a_line_is_cut_and_decoded_as_the_python_sdk_reads_it(line):
    cut = pieces(line)
    assert b"".join(piece.data for piece in cut).replace(b"\r", b"").replace(b"\n", b"") == \
        line.replace(b"\r", b"").replace(b"\n", b"")
    expected = [message for message in sdk_read(line) if message is not None]
    got = [piece.message for piece in cut]
    assert json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)  # NaN equal as text


def test_invalid_bytes_are_read_as_replacement_characters():
    (piece,) = pieces(b'{"a":"\xff\xfe!"}\n')
    assert piece.message == {"a": "\ufffd\ufffd!"}
    assert math.isnan(messages.parse(b'{"x":NaN}')["x"])


@pytest.mark.parametrize("cursors, pages", [
    (["next", "next"], 2),  # the same cursor again: the listing ends
    ([""], 1),  # an empty cursor: "no more"
    ([None], 1),
    ([7], 1),  # not text
    (["a", "b", "a"], 3),
])
def test_a_repeating_or_empty_cursor_ends_a_listing(cursors, pages):
    listing = Listing(0, None)
    for cursor in cursors:
        assert not listing.complete
        listing.add({"tools": [{"name": f"t{listing.pages}", "inputSchema": TEXT}], "nextCursor": cursor})
    assert listing.complete and listing.pages == pages


def test_a_result_that_is_not_a_page_of_tools_fails_the_listing():
    listing = Listing(0, None)
    assert not listing.add({"tools": "none"}) and not listing.add(None) and not listing.complete


def test_a_malformed_entry_leaves_that_tool_unjudged_and_the_others_judged():
    known = KnownList(["shout", {"name": 5}, {"name": "whisper"}, {"name": "tally", "inputSchema": "?"},
                       {"name": "twice", "inputSchema": TEXT}, {"name": "twice", "inputSchema": {}},
                       {"name": "same", "inputSchema": TEXT}, {"name": "same", "inputSchema": TEXT},
                       {"name": "echo", "inputSchema": TEXT}], CORE)
    known.toolset()
    assert sorted(known.schemas) == ["echo", "same"] and known.unjudged == {"whisper", "tally", "twice"}
    assert known.unreadable  # some entry names no tool: a name not listed is not refused as unknown
    assert known.judges("echo") and not known.judges("twice") and not known.judges("nowhere")
    clean = KnownList([{"name": "echo", "inputSchema": TEXT}], CORE)
    assert clean.judges("nowhere")  # refused as unknown: the list is whole


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def adopted(tools: ToolList, result: dict, stream: int | None = None) -> None:
    listing = tools.continued(stream)
    listing.add(result)
    tools.adopt(listing, stream)


def test_a_list_stops_being_current_on_a_change_a_ttl_or_a_client_reading_it_again():
    clock = Clock()
    tools = ToolList(CORE, clock)
    assert not tools.current(None)
    adopted(tools, {"tools": []})
    assert tools.current(None)  # no ttlMs before 2026-07-28: current until a change
    tools.changed()
    assert not tools.current(None)
    adopted(tools, {"tools": [], "ttlMs": 0})  # 0: stale at once
    assert not tools.current(None)
    adopted(tools, {"tools": [], "ttlMs": 500})
    clock.now += 0.4
    assert tools.current(None)
    clock.now += 0.2
    assert not tools.current(None)
    tools.modern = True
    came = clock.now
    clock.now += 0.1
    adopted(tools, {"tools": []})  # 2026-07-28: no ttlMs is 0
    assert not tools.current(None)
    assert tools.current(None, since=came)  # but a list that came after a call is current for it
    adopted(tools, {"tools": []}, stream=1)  # asked while the proxy's stream was held
    assert tools.current(1) and not tools.current(None)
    tools.client_asked({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}, 1)
    assert not tools.current(1)  # the client reads the list again


def test_a_clients_paged_listing_is_adopted_whole_and_a_page_it_skipped_is_not():
    tools = ToolList(CORE)
    page = {"tools": [{"name": "a", "inputSchema": TEXT}], "nextCursor": "2"}
    tools.client_asked({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, None)
    tools.client_answered({"jsonrpc": "2.0", "id": 1, "result": page}, None)
    assert tools.known is None and tools.pending is not None and tools.pending.cursor == "2"
    tools.client_asked({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": "elsewhere"}}, None)
    assert "2" not in tools.client_listings  # not the next page of its listing: not read
    tools.client_asked({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": "2"}}, None)
    tools.client_answered({"jsonrpc": "2.0", "id": 3, "result": {"tools": [{"name": "b", "inputSchema": TEXT}]}},
                          None)
    assert tools.known is not None and sorted(tools.known.schemas) == ["a", "b"] and tools.current(None)


def test_a_name_the_list_lacks_has_it_read_again_once():
    tools = ToolList(CORE)
    adopted(tools, {"tools": [{"name": "a", "inputSchema": TEXT}]})
    assert tools.wants("b") and not tools.wants("a")
    listing = tools.continued(None)
    listing.add({"tools": [{"name": "a", "inputSchema": TEXT}]})
    tools.adopt(listing, None, checked=("b",))
    assert not tools.wants("b")


def test_refusals_of_a_batch_join_the_servers_answer():
    batches = BatchAnswers()
    refusal = {"jsonrpc": "2.0", "id": 2, "result": {"isError": True}}
    assert not batches.expect([{"jsonrpc": "2.0", "method": "notifications/x"}], [refusal])
    assert batches.expect([{"jsonrpc": "2.0", "id": 1, "method": "tools/call"}], [refusal])
    other = [{"jsonrpc": "2.0", "id": 7, "result": {}}]
    assert batches.settle(other) == (other, None)
    assert batches.settle([{"jsonrpc": "2.0", "id": 1, "result": {}}]) == (
        [{"jsonrpc": "2.0", "id": 1, "result": {}}, refusal], None)
    assert not batches.waiting
    batches.expect([{"jsonrpc": "2.0", "id": 1, "method": "tools/call"}], [refusal])
    single = {"jsonrpc": "2.0", "id": 1, "result": {}}  # a server that answers a batch piece by piece
    assert batches.settle(single) == (single, [refusal])


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_server_that_does_not_answer_costs_one_wait(anyio_backend):
    sent: list[bytes] = []

    async def to_server(data: bytes) -> None:
        sent.append(data)

    own = OwnRequests(to_server, answer_wait=0.05, silence=0.2)
    assert await own.ask("tools/list", {}) is None and own.given_up  # a server that says nothing, for long
    own.given_up, own.silence = False, 60.0

    async def answers_others() -> None:
        await anyio.sleep(0.01)
        own.heard += 1  # a line of the server's, not the answer

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(answers_others)
        with anyio.fail_after(30):  # one wait of 0.05 s, not the minute a silent server gets
            assert await own.ask("tools/list", {}) is None
    assert own.given_up
    assert await own.ask("tools/list", {}) is None and len(sent) == 2  # nothing more is asked
    late = {"jsonrpc": "2.0", "id": json.loads(sent[0])["id"], "result": {"tools": []}}
    assert own.take(late) and not own.given_up  # a late answer: it does answer, slowly

    async def null_answer() -> None:
        await anyio.sleep(0.01)
        assert own.take({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "bad id"}})

    own.answer_wait = 5
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(null_answer)
        with anyio.fail_after(2):
            assert await own.ask("tools/list", {}) is None
    assert own.given_up
    assert not own.take({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "not ours"}})


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_session_its_client_left_without_a_word_is_ended(anyio_backend, monkeypatch):
    """Behind --listen, a session with no request for SESSION_IDLE and no stream read, or
    whose server is gone, is ended (its server stopped); one a client reads stays."""
    from turngate.mcp.proxy.http import stdio_sessions
    from turngate.mcp.proxy.http.events import EventStream

    class Server:
        def __init__(self, alive: bool, read: bool) -> None:
            self.alive, self.stopped, self.streams = alive, False, {}
            stream = EventStream(self.streams)
            stream.readers = int(read)

        async def stop(self) -> None:
            self.stopped = True

    monkeypatch.setattr(stdio_sessions, "SESSION_IDLE", 0.0)
    async with anyio.create_task_group() as tasks:
        sessions = stdio_sessions.StdioSessions(["true"], CORE, None, tasks)
        servers = {"idle": Server(True, False), "read": Server(True, True), "gone": Server(False, True)}
        sessions.sessions.update(servers)
        sessions.used.update({name: anyio.current_time() - 1 for name in servers})
        tasks.start_soon(sessions._reap, 0.01)
        with anyio.fail_after(10):
            while len(sessions.sessions) > 1 or not servers["gone"].stopped:
                await anyio.sleep(0.01)
        tasks.cancel_scope.cancel()
    assert list(sessions.sessions) == ["read"] and servers["idle"].stopped and not servers["read"].stopped


def test_a_schema_the_compiler_fails_on_leaves_its_tool_unjudged(monkeypatch):
    from turngate.turn import gate

    real = gate.SHARED_CACHE.compile

    def compile(schema, table=None, casts=False):
        if schema.get("title") == "breaks":
            raise ValueError("the compiler cannot read this")
        return real(schema, table, casts)

    monkeypatch.setattr(gate.SHARED_CACHE, "compile", compile)
    known = KnownList([{"name": "fine", "inputSchema": TEXT},
                       {"name": "odd", "inputSchema": {**TEXT, "title": "breaks"}}], CORE)
    assert sorted(known.toolset().compiled) == ["fine"]
    assert known.unjudged == {"odd"} and known.judges("fine") and not known.judges("odd")


def test_a_page_that_is_not_one_ends_the_clients_listing():
    tools = ToolList(CORE)
    tools.client_asked({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, None)
    tools.client_answered({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "no"}}, None)
    assert tools.pending is None and tools.known is None


def test_a_batch_answered_piece_by_piece_gets_the_proxys_answers_after_its_last_piece():
    batches = BatchAnswers()
    refusal = {"jsonrpc": "2.0", "id": 3, "result": {"isError": True}}
    batches.expect([{"jsonrpc": "2.0", "id": 1, "method": "tools/call"},
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}], [refusal])
    first, second = ({"jsonrpc": "2.0", "id": n, "result": {}} for n in (1, 2))
    assert batches.settle(first) == (first, None)
    assert batches.settle(second) == (second, [refusal]) and not batches.waiting
