"""`turngate proxy` on the wire: the very bytes that pass through it both ways, batches, calls
sent as notifications, a 2026-07-28 session (a per-request envelope), and a server that waits
for the client while the proxy lists the tools."""

from __future__ import annotations

import json
import subprocess
import time

import anyio
import pytest

from proxy_support import (
    ECHO_SERVER,
    TICKET_SERVER,
    dumped,
    own_requests,
    proxied,
    read_lines,
    recorded,
    server_environment,
    session,
    tool_calls_received,
)

pytestmark = pytest.mark.anyio

INITIALIZE = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
              b'"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n')
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


class Raw:
    """A client that writes lines and reads what comes back, byte for byte."""

    def __init__(self, process):
        self.process, self.buffer = process, b""

    async def send(self, line: bytes) -> None:
        await self.process.stdin.send(line)

    async def line(self) -> bytes:
        while b"\n" not in self.buffer:
            with anyio.fail_after(20):
                self.buffer += await self.process.stdout.receive()
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line + b"\n"

    async def ask(self, line: bytes, answer_id) -> list[bytes]:
        """Send a line; every line received until the answer with that id (or a batch)."""
        await self.send(line)
        received = []
        while True:
            received.append(await self.line())
            message = json.loads(received[-1])
            if isinstance(message, list) or (message.get("id") == answer_id and "method" not in message):
                return received


async def converse(command: list[str], environment: dict, script: list[tuple[bytes, object]]) -> list[bytes]:
    """The lines of `script` sent in turn, each waiting for the answer with its id (None: no
    answer); every line received."""
    async with await anyio.open_process(command, env={**environment, "PATH": "/usr/bin:/bin"},
                                        stderr=subprocess.DEVNULL) as process:
        raw, received = Raw(process), []
        for line, answer_id in script:
            if answer_id is None:
                await raw.send(line)
            else:
                received += await raw.ask(line, answer_id)
        await process.stdin.aclose()
        with anyio.fail_after(20):
            await process.wait()
    return received


SCRIPT = [
    (INITIALIZE, 1),
    (INITIALIZED, None),
    # spaces, key order, escapes, a CRLF: what reaches the server is these very bytes
    (b'{ "method" : "tools/call", "jsonrpc":"2.0", "params":{"arguments":{"title":"Caf\\u00e9 \xc3\xa9 \\/",'
     b'"kind":"bug"},"name":"create_ticket"},"id":"a\\u0062c"}\r\n', "abc"),
    (b'{"jsonrpc":"2.0","id":3,"method":"resources/list"}\n', 3),
    (b'{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"tickets://open"}}\n', 4),
    (b'{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"triage","arguments":{"title":"x"}}}\n', 5),
    (b'{"jsonrpc":"2.0","id":6,"method":"ping"}\n', 6),
    (b'{"jsonrpc":"2.0","id":7,"method":"no/such/method"}\n', 7),
    (b'{"jsonrpc":"2.0","id":8,"method":"tools/list"}\n', 8),
    (b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"assign","arguments":[1]}}\n', 9),
    (b'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"assign",'
     b'"arguments":{"ticket":1.0,"people":[]}}}\n', 10),
    (b'{"jsonrpc":"2.0","id":11,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"triage"},'
     b'"argument":{"name":"severity","value":"h"}}}\n', 11),
    (b'{"jsonrpc":"2.0","id":12,"method":"logging/setLevel","params":{"level":"debug"}}\n', 12),
    # a call cancelled by the client: the server gets the cancellation, and answers nothing
    (b'{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":5}}}\n', None),
    (b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":13,"reason":"enough"}}\n', None),
    (b'{"jsonrpc":"2.0","id":14,"method":"ping"}\n', 14),
    (b'{"jsonrpc":"2.0","id":15,"method":"resources/read","params":{"uri":"tickets://archive"}}\n', 15),
]


async def test_what_passes_is_byte_for_byte_what_the_server_and_the_client_sent(tmp_path):
    environment = server_environment(tmp_path)
    direct_wire, proxied_wire = tmp_path / "direct.jsonl", tmp_path / "proxied.jsonl"
    received: dict[str, list[bytes]] = {}

    async def conversation(name: str, command: list[str]) -> None:
        received[name] = await converse(command, environment, SCRIPT)

    async with anyio.create_task_group() as both:  # side by side: the test takes half the time
        both.start_soon(conversation, "direct", recorded(direct_wire, TICKET_SERVER))
        both.start_soon(conversation, "through", proxied(recorded(proxied_wire, TICKET_SERVER)))
    direct, through = received["direct"], received["through"]
    assert through == direct  # every byte the client received, in order
    assert len(direct) == 14 and len(direct[13]) > 3_000_000
    assert b"Ticket opened: Caf\xc3\xa9 \xc3\xa9 / (bug, low)." in direct[1]
    assert b'"code":-32601' in direct[6] and b'"code":-32602' in direct[8]  # the server's errors, passed on
    assert b'"values":["high"]' in direct[10] and direct[12] == b'{"jsonrpc":"2.0","id":14,"result":{}}\n'
    assert "slow done" not in [c["tool"] for c in read_lines(tmp_path / "calls.jsonl")]
    # The server read the client's lines as they were sent and, besides, only the proxy's own
    # tools/list, asked before the first call.
    own = [line for line in proxied_wire.read_bytes().splitlines(keepends=True) if b"turngate-proxy-" in line]
    assert len(own) == 1 and json.loads(own[0])["method"] == "tools/list"
    assert [line for line in proxied_wire.read_bytes().splitlines(keepends=True) if line not in own] == \
        direct_wire.read_bytes().splitlines(keepends=True) == [line for line, _ in SCRIPT]


CALL = b'{"jsonrpc":"2.0",%s"method":"tools/call","params":{"name":"echo","arguments":%s}}'


async def test_a_batch_is_split_between_the_server_and_the_gate_and_answered_once(tmp_path):
    """A JSON-RPC batch (MCP 2025-03-26 only): the refused call is answered by the proxy, the
    rest goes on to the server as a batch, and the client gets one batch answer: the
    server's, with the proxy's answers joined in."""
    wire = tmp_path / "wire.jsonl"
    batch = b"[" + CALL % (b'"id":20,', b'{"text":"hi"}') + b"," + CALL % (b'"id":21,', b'{"text":[1]}') + b"]\n"
    received = await converse(proxied(recorded(wire, ECHO_SERVER)), server_environment(tmp_path),
                              [(INITIALIZE, 1), (INITIALIZED, None), (batch, "batch"),
                               (b'{"jsonrpc":"2.0","id":22,"method":"ping"}\n', 22)])
    answers = [json.loads(line) for line in received[1:]]
    assert [type(answer).__name__ for answer in answers] == ["list", "dict"]  # one batch answer, then the ping's
    by_id = {answer["id"]: answer for answer in answers[0]}
    assert sorted(by_id) == [20, 21]
    assert by_id[20]["result"] == {"content": [{"type": "text", "text": "hi"}]}
    assert by_id[21]["result"]["isError"] is True and by_id[21]["result"]["content"][0]["text"].startswith("Refused")
    forwarded = [m for m in read_lines(wire) if isinstance(m, list)]
    assert [[call["id"] for call in batch] for batch in forwarded] == [[20]]


async def test_a_batch_of_refused_calls_and_notifications_is_answered_by_the_proxy_alone(tmp_path):
    """Nothing that goes on is answered by the server: the proxy's answers are the batch answer."""
    wire = tmp_path / "wire.jsonl"
    batch = (b"[" + CALL % (b'"id":30,', b'{"text":[1]}') + b"," + CALL % (b"", b'{"text":"hi"}') + b","
             + CALL % (b'"id":31,', b"{}") + b"]\n")
    received = await converse(proxied(recorded(wire, ECHO_SERVER)), server_environment(tmp_path),
                              [(INITIALIZE, 1), (INITIALIZED, None), (batch, "batch")])
    (answer,) = [json.loads(line) for line in received[1:]]
    assert [item["id"] for item in answer] == [30, 31] and all(item["result"]["isError"] for item in answer)
    forwarded = [m for m in read_lines(wire) if isinstance(m, list)]
    assert forwarded == [[json.loads(CALL % (b"", b'{"text":"hi"}'))]]


async def test_a_call_sent_as_a_notification_is_judged_too(tmp_path):
    wire = tmp_path / "wire.jsonl"
    received = await converse(proxied(recorded(wire, ECHO_SERVER)), server_environment(tmp_path), [
        (INITIALIZE, 1), (INITIALIZED, None), (CALL % (b"", b'{"text":{}}') + b"\n", None),
        (CALL % (b"", b'{"text":"hi"}') + b"\n", None), (b'{"jsonrpc":"2.0","id":30,"method":"ping"}\n', 30)])
    assert [json.loads(line).get("id") for line in received] == [1, 30]  # nothing answers a notification
    assert [c["params"]["arguments"] for c in tool_calls_received(wire)] == [{"text": "hi"}]


async def test_a_2026_07_28_session_is_gated_with_the_per_request_envelope(tmp_path):
    wire = tmp_path / "wire.jsonl"
    good = {"ticket": 4, "people": [{"name": "Ann"}]}
    async with session(proxied(recorded(wire, TICKET_SERVER)), server_environment(tmp_path),
                       initialize=False) as gated:
        discovered = await gated.discover()
        refused = dumped(await gated.call_tool("assign", {"ticket": 4}))
        ran = dumped(await gated.call_tool("assign", good))
    assert discovered.supported_versions == ["2026-07-28"]
    assert ran["content"] == [{"type": "text", "text": "Ticket 4 assigned to Ann."}] and ran["isError"] is False
    # What every result of that version carries: resultType, and who answered (the server).
    assert ran["_meta"] == {"io.modelcontextprotocol/serverInfo": {"name": "turngate-test", "version": ""}}
    assert refused == {"content": [{"type": "text", "text": (
        'Refused: the arguments do not match the schema of tool "assign", so nothing was run.\n'
        '- "people" is missing; it is required and must be a list.')}], "isError": True, "resultType": "complete",
        "_meta": ran["_meta"]}
    # The proxy's own requests (its listen stream, then the list) carried the envelope of the
    # call that needed them.
    assert [m["method"] for m in own_requests(wire)] == ["subscriptions/listen", "tools/list"]
    own = own_requests(wire)[1]
    assert set(own["params"]["_meta"]) == {"io.modelcontextprotocol/protocolVersion",
                                           "io.modelcontextprotocol/clientInfo",
                                           "io.modelcontextprotocol/clientCapabilities"}
    assert [c["params"]["arguments"] for c in tool_calls_received(wire)] == [good]


async def test_a_server_that_waits_for_the_client_while_the_proxy_lists_gets_its_answer(tmp_path):
    """The server asks for the client's roots and handles nothing until it has them; the
    proxy's own tools/list waits in the server's queue, and the client's calls wait in the
    proxy's; its other lines (the ping, the answer to the server) go on at once."""
    wire = tmp_path / "wire.jsonl"
    initialize = INITIALIZE.replace(b'"capabilities":{}', b'"capabilities":{"roots":{}}')
    bad, good = CALL % (b'"id":10,', b'{"text":["hi"]}') + b"\n", CALL % (b'"id":11,', b'{"text":"hi"}') + b"\n"
    began = time.monotonic()
    async with await anyio.open_process(proxied(recorded(wire, ECHO_SERVER)),
                                        env=server_environment(tmp_path)) as process:
        raw = Raw(process)
        await raw.ask(initialize, 1)
        for line in (INITIALIZED, bad, good, b'{"jsonrpc":"2.0","id":12,"method":"ping"}\n'):
            await raw.send(line)  # all sent before the server's question is answered
        assert json.loads(await raw.line())["method"] == "roots/list"
        await raw.send(b'{"jsonrpc":"2.0","id":"roots-1","result":{"roots":[]}}\n')
        answers = {json.loads(line)["id"]: json.loads(line) for line in [await raw.line() for _ in range(3)]}
        await process.stdin.aclose()
    assert time.monotonic() - began < 10  # not the proxy's 30 s wait for its tool list
    assert answers[10]["result"]["isError"] is True
    assert answers[10]["result"]["content"][0]["text"].endswith('"text" must be text, but a list was sent.')
    assert answers[11]["result"] == {"content": [{"type": "text", "text": "hi"}]}
    assert answers[12]["result"] == {}
    # The server read the calls after the answer to its question, in their order; the ping did not wait.
    read = [m.get("method") or m.get("id") for m in read_lines(wire)]
    assert read[:2] == ["initialize", "notifications/initialized"] and read[4:] == ["roots-1", "tools/call"]
    assert sorted(read[2:4]) == ["ping", "tools/list"]  # the proxy's list, and the ping, which did not wait
    assert [m["id"] for m in read_lines(wire) if m.get("method") == "tools/call"] == [11]


async def test_a_paged_tool_list_is_read_whole_before_a_call_is_judged(tmp_path):
    """The client's own listing has more pages, which it did not ask for: the proxy does not
    judge by one page, but reads the rest itself, from the client's cursor."""
    wire = tmp_path / "wire.jsonl"
    listing = b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
    bad, good = CALL % (b'"id":3,', b'{"text":[5]}'), CALL % (b'"id":4,', b'{"text":"hi"}')
    received = await converse(proxied(recorded(wire, ECHO_SERVER)),
                              {**server_environment(tmp_path), "TURNGATE_ECHO_TOOLS": "paged"},
                              [(INITIALIZE, 1), (INITIALIZED, None), (listing, 2),
                               (bad.replace(b'"echo"', b'"shout"') + b"\n", 3),
                               (good.replace(b'"echo"', b'"shout"') + b"\n", 4)])
    refused, ran = json.loads(received[-2]), json.loads(received[-1])
    assert refused["result"]["content"][0]["text"].startswith('Refused: the arguments do not match the schema of '
                                                              'tool "shout"')
    assert ran["result"] == {"content": [{"type": "text", "text": "HI"}]}
    assert [m.get("params", {}).get("cursor") for m in own_requests(wire)] == ["page-2"]


async def test_a_tool_list_that_cannot_be_read_judges_nothing(tmp_path):
    """The server answers the proxy's tools/list with an error: calls go on unjudged (the
    server judges them, as without the proxy), and the list is asked for again each time."""
    wire = tmp_path / "wire.jsonl"
    received = await converse(proxied(recorded(wire, ECHO_SERVER)),
                              {**server_environment(tmp_path), "TURNGATE_ECHO_TOOLS": "broken"},
                              [(INITIALIZE, 1), (INITIALIZED, None), (CALL % (b'"id":2,', b'{"text":[5]}') + b"\n", 2),
                               (CALL % (b'"id":3,', b'{"text":"hi"}') + b"\n", 3)])
    assert [json.loads(line)["result"]["content"][0]["text"] for line in received[-2:]] == [[5], "hi"]
    assert [c["params"]["arguments"] for c in tool_calls_received(wire)] == [{"text": [5]}, {"text": "hi"}]
    assert len(own_requests(wire)) == 2  # once per call
