"""`turngate proxy` reads a line as the servers read it: an invalid UTF-8 byte, two messages
joined by a bare CR, a `NaN`, an id MCP does not allow. Each line is sent to the SDK's
low-level `Server` (tests/proxy_servers/catalog_server.py, which runs any call it reads)
directly and through the proxy: what the server runs directly, the proxy judges. Raw lines,
since no SDK client sends them."""

from __future__ import annotations

import json
import math
import subprocess

import anyio
import pytest

from proxy_support import CATALOG_SERVER, proxied, read_lines, recorded, server_environment
from test_proxy_wire import INITIALIZE, INITIALIZED, Raw

pytestmark = pytest.mark.anyio

TAG = b'{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"tag","arguments":{"label":"%s"}}}'
LINES = [
    TAG % (b"2", b"gr\xffen") + b"\n",  # an invalid byte, read as U+FFFD
    b'{"jsonrpc":"2.0","id":3,"method":"ping"}\r' + TAG % (b"4", b"green") + b"\n",  # a bare CR: two messages
    b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"note","arguments":{"text":[NaN]}}}\n',
    TAG % (b"null", b"green") + b"\n",  # an id MCP does not allow: the SDKs read a notification
    TAG % (b'{"n":1}', b"red") + b"\n",
    b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"note","arguments":{"text":"caf\xc3\xa9 \xff"}}}\n',
]
ANSWERED = {2, 3, 4, 5, 6}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


async def exchange(command: list[str], environment: dict[str, str]) -> dict[object, dict]:
    """Every line sent, then the answers read until each expected id has one (and a last
    ping's, so that nothing more is on its way)."""
    async with await anyio.open_process(command, env=environment, stderr=subprocess.DEVNULL) as process:
        raw = Raw(process)
        await raw.ask(INITIALIZE, 1)
        await raw.send(INITIALIZED)
        for line in LINES:
            await raw.send(line)
        answers: dict[object, dict] = {}
        while not ANSWERED <= set(answers):
            message = json.loads(await raw.line())
            answers[message.get("id")] = message
        answers.update({json.loads(line)["id"]: json.loads(line)
                        for line in await raw.ask(b'{"jsonrpc":"2.0","id":9,"method":"ping"}\n', 9)})
        await process.stdin.aclose()
    return answers


async def test_what_a_server_reads_as_a_call_the_proxy_judges(tmp_path):
    direct_folder, proxied_folder = tmp_path / "direct", tmp_path / "proxied"
    direct_folder.mkdir()
    proxied_folder.mkdir()
    direct = await exchange(CATALOG_SERVER, server_environment(direct_folder))
    wire = proxied_folder / "wire.jsonl"
    through = await exchange(proxied(recorded(wire, CATALOG_SERVER)), server_environment(proxied_folder))
    ran_directly = [(c["tool"], c["arguments"]) for c in read_lines(direct_folder / "calls.jsonl")]
    assert ran_directly[:2] == [("tag", {"label": "gr\ufffden"}), ("tag", {"label": "green"})]
    assert ran_directly[2][0] == "note" and math.isnan(ran_directly[2][1]["text"][0])
    assert ran_directly[3:] == [("note", {"text": "caf\u00e9 \ufffd"})]
    assert set(direct) == set(through) == ANSWERED | {9}  # nothing answers the ids MCP does not allow
    refusals = {key: through[key]["result"]["content"][0]["text"].splitlines()[-1] for key in (2, 4, 5)}
    assert refusals == {2: '- "label" must be one of "red", "blue", but "gr\ufffden" was sent.',
                        4: '- "label" must be one of "red", "blue", but "green" was sent.',
                        5: '- "text" must be text, but a list was sent.'}
    assert through[3] == direct[3] and through[6] == direct[6]
    # Through the proxy the server ran the valid call alone, and read the id it does not
    # allow (a notification to it) only where the call fits, as the bytes it was sent.
    assert [(c["tool"], c["arguments"]) for c in read_lines(proxied_folder / "calls.jsonl")] == [
        ("note", {"text": "caf\u00e9 \ufffd"})]
    read = wire.read_bytes().splitlines(keepends=True)
    assert LINES[4] in read and LINES[5] in read and not any(b'"id":null' in line for line in read)
    assert b'{"jsonrpc":"2.0","id":3,"method":"ping"}\r\n' in read  # the pieces that go on, each a line
