"""The proxy's pieces, in-process: its reading of a call against `mcp_calls`, lines cut from
chunks, what it writes by hand instead of importing the SDK's types (half a second per
start) against the SDK, exit codes, the steps of calls the server answers, and its
command line."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys

import anyio
import mcp_types
import pytest
from mcp_types.methods import serialize_server_result
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from turngate.formats import FormatError, mcp_calls
from turngate.mcp import proxy
from turngate.mcp.proxy import messages
from turngate.mcp.proxy import add_proxy_command
from turngate.mcp.proxy.call_gate import as_call
from turngate.mcp.proxy.command import run_proxy
from turngate.mcp.proxy.pipes import lines
from turngate.mcp.proxy.server_process import Ending, exit_code
from turngate.mcp.proxy.steps_log import StepLog

SAMPLES = [
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a", "arguments": {"x": 1}}},
    {"jsonrpc": "2.0", "id": "b", "method": "tools/call", "params": {"name": "a"}},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "a", "arguments": None}},
    {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "a", "arguments": {}}},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "a", "arguments": [1]}},
    {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": 5, "arguments": {}}},
    {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"arguments": {}}},
    {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": []},
    {"jsonrpc": "2.0", "id": 7, "method": "tools/call"},
]


@pytest.mark.parametrize("request_", SAMPLES)
def test_the_proxys_reading_of_a_call_agrees_with_mcp_calls(request_):
    """The proxy reads a call itself (mcp_calls.calls costs 25 µs more); both read the same."""
    try:
        (expected,) = mcp_calls.calls([request_])
    except FormatError:
        expected = None
    got = as_call(request_)
    if expected is None:
        assert got is None
    else:
        assert (got["id"], got["name"], got["arguments"]) == (expected.id, expected.tool, expected.arguments)


def test_lines_keep_their_bytes_and_a_last_line_without_an_ending():
    chunks = iter([b'{"a":1}\r\n{"b"', b':2}\n\n', b'{"c":3}', b""])

    async def receive() -> bytes:
        return next(chunks)

    async def collect() -> list[bytes]:
        return [line async for line in lines(receive)]

    assert anyio.run(collect) == [b'{"a":1}\r\n', b'{"b":2}\n', b"\n", b'{"c":3}']


def test_the_meta_keys_are_the_sdks():
    from mcp.shared.subscriptions import SUBSCRIPTION_ID_META_KEY
    assert messages.PROTOCOL_VERSION_KEY == mcp_types.PROTOCOL_VERSION_META_KEY
    assert messages.ENVELOPE_KEYS == (mcp_types.PROTOCOL_VERSION_META_KEY, mcp_types.CLIENT_INFO_META_KEY,
                                      mcp_types.CLIENT_CAPABILITIES_META_KEY)
    assert messages.SERVER_INFO_KEY == mcp_types.SERVER_INFO_META_KEY
    assert messages.SUBSCRIPTION_ID_KEY == SUBSCRIPTION_ID_META_KEY


def test_what_the_proxy_writes_down_instead_of_importing_it_at_start():
    """The proxy starts without the core; these copies are held equal to the core's."""
    from turngate.mcp.proxy import call_gate, command, core
    from turngate.table import loading
    from turngate.turn import steps
    assert command.PRIVACY_LEVELS == steps.PRIVACY_LEVELS
    assert call_gate.NO_ID == mcp_calls.position_id(1)
    assert [folder.resolve() for folder in core.RULES_DIRS] == [folder.resolve() for folder in loading.RULES_DIRS]
    assert {name for name in loading.shipped_tables() if core.is_shipped(name)} == set(loading.shipped_tables())
    assert not core.is_shipped("no-such-table") and not core.is_shipped("rules/adr246")


@pytest.mark.parametrize("version", KNOWN_PROTOCOL_VERSIONS)
def test_a_refusal_is_shaped_as_the_sdk_shapes_a_tool_error_result(version):
    answer = {"content": [{"type": "text", "text": 'Refused: no tool named "x" was offered, so nothing was run.'}],
              "isError": True}
    meta = {messages.PROTOCOL_VERSION_KEY: version} if version in MODERN_PROTOCOL_VERSIONS else {}
    request = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "x", "_meta": meta}}
    response = messages.refusal_response(request, answer)
    assert response["id"] == 3
    assert response["result"] == serialize_server_result("tools/call", version, {**answer, "resultType": "complete"})


@pytest.mark.parametrize("returncode, signal, stopped, code", [
    (0, None, False, 0), (3, None, False, 3),
    (-9, None, False, 137),  # the server was killed: 128 + 9, as a shell tells it
    (-15, None, True, 0),  # the proxy stopped it after the client left: a clean end
    (-15, 2, True, 130),  # Ctrl-C at the proxy
    (None, None, False, 1),
])
def test_the_exit_code(returncode, signal, stopped, code):
    ending = Ending()
    ending.signal, ending.stopped = signal, stopped
    assert exit_code(returncode, ending) == code


def _steps(privacy: str) -> tuple[StepLog, io.StringIO]:
    out = io.StringIO()
    out.close = lambda: None  # read after the log is closed
    return StepLog(out, privacy), out


def test_steps_of_calls_the_server_answers_or_never_does():
    log, out = _steps("full")
    for number in (1, 2, 3, 4):
        log.forwarded({"id": number}, "echo", True, ())
    log.answered({"jsonrpc": "2.0", "id": 1, "result": {"content": []}})
    log.answered({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "no"}})
    log.answered({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "input_required"}})  # asked again later
    log.answered({"jsonrpc": "2.0", "id": 99, "result": {}})  # no call of ours
    log.close()  # 4 was never answered
    written = [(step["call_id"], step["status"]) for step in map(json.loads, out.getvalue().splitlines())]
    assert written == [(1, "ok"), (2, "failed"), (4, "failed")]


def test_at_metadata_only_a_tool_not_known_to_be_offered_is_not_named():
    """With no tool list read, a call is sent unjudged: its tool's name is the model's text."""
    log, out = _steps("metadata-only")
    log.forwarded({"jsonrpc": "2.0", "method": "tools/call"}, "drop_database", False, ())
    log.forwarded({"jsonrpc": "2.0", "method": "tools/call"}, "echo", True, (("when",),))
    steps = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(s["tool"], s["call_id"], s["casts"], s["cast_count"]) for s in steps] == [
        (None, None, [], 0), ("echo", None, [], 1)]


def test_the_command_line_helps_and_refuses_a_missing_command(capsys):
    assert proxy.main(["--help"]) == 0
    assert "-- COMMAND [ARGS...]" in capsys.readouterr().out
    assert proxy.main(["--casts"]) == 2
    assert capsys.readouterr().err == ("turngate proxy: give the server to put behind the gate: -- COMMAND [ARGS...] "
                                       "(a server over stdio) or --url URL (one over Streamable HTTP).\n")


def test_without_anyio_the_proxy_says_how_to_install_it(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "anyio", None)  # what an import of a missing module raises
    assert proxy.main(["--", "mcp-server-time"]) == 2
    assert capsys.readouterr().err == ("turngate proxy: the proxy needs anyio (part of the MCP SDK); install it "
                                       "with: python3 -m pip install 'mcp>=2.3,<3' (in a checkout of turngate: "
                                       "python3 -m pip install -e '.[mcp]').\n")


def test_add_proxy_command_gives_turngate_the_proxy_subcommand():
    top = argparse.ArgumentParser(prog="turngate")
    add_proxy_command(top.add_subparsers(dest="command", required=True))
    args = top.parse_args(["proxy", "--casts", "--steps", "s.jsonl", "--", "python", "-m", "server", "--", "--casts"])
    # No --privacy: the steps keep everything (full), --otel nothing the model sent (metadata-only).
    assert (args.command, args.server_command, args.casts, args.steps, args.privacy, args.otel) == (
        "proxy", ["python", "-m", "server", "--", "--casts"], True, "s.jsonl", None, False)
    assert args.run is run_proxy


def test_a_line_that_is_not_json_is_read_as_nothing():
    assert messages.parse(b"Content-Length: 12\r\n") is None
    assert messages.parse(b"[" * 100_000) is None  # nested too deeply for the decoder


def test_turngate_builds_its_command_line_without_importing_anyio():
    """`turngate` adds the proxy's subcommand at every start: without the mcp extra, the
    other commands must still work."""
    probe = "import sys, turngate.mcp.proxy; print('anyio' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout == "False\n"


def test_the_proxy_starts_without_the_core_and_import_turngate_loads_nothing_more():
    """What the proxy's start costs is the relay's: the core, the table and its grammar are
    loaded on first use (in the warm-up thread), and `import turngate` loads none of them."""
    probe = ("import sys, turngate; before = sorted(m for m in sys.modules if m.startswith('turngate.')); "
             "import turngate.mcp.proxy.run, turngate.mcp.proxy.command; "
             "heavy = ('turngate.turn', 'turngate.check', 'turngate.compile', 'turngate.table', 'turngate.formats', "
             "'turngate.kinds', 'lark', 'attr', 'cattrs', 'referencing', 'mcp.', 'pydantic'); "
             "print(before, sorted(m for m in sys.modules if m.startswith(heavy)))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout == "[] []\n"


def test_the_console_script_starts_the_proxy_without_the_other_commands():
    """`turngate proxy` (the console script, `turngate.console:main`) goes to the proxy's
    command line without importing `turngate.cli`, whose commands load the core; any other
    command goes to `turngate.cli`."""
    probe = ("import sys; from turngate.console import main; code = main(['proxy', '--casts']); "
             "print(code, 'turngate.cli' in sys.modules); print(main(['timeline', 'no-such-file.jsonl']), "
             "'turngate.cli' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout == "2 False\n2 True\n"
    assert done.stderr.startswith("turngate proxy: give the server to put behind the gate")


@pytest.mark.parametrize("argv, said", [
    (["--url", "http://127.0.0.1:9/mcp", "--", "cat"], "give the server once: -- COMMAND or --url, not both."),
    (["--header", "A: b", "--", "cat"], "--header goes with --url: it is sent with every request to the server."),
    (["--allow-origin", "https://app.example", "--", "cat"],
     "--allow-origin goes with --listen: it names web pages that may reach the proxy."),
    (["--url", "ftp://example.org/mcp"], 'the server\'s URL "ftp://example.org/mcp" is not an http:// or https:// address.'),
    (["--url", "http://x/mcp", "--header", "no colon"], 'the header "no colon" is not "Name: value".'),
    (["--url", "http://x/mcp", "--header", "Authorization: Bearer ${TURNGATE_NO_SUCH_VARIABLE}"],
     'the header "Authorization" takes ${TURNGATE_NO_SUCH_VARIABLE} from the environment, which does not set it.'),
    (["--listen", "8808", "--", "cat"], 'the address "8808" is not HOST:PORT (127.0.0.1:8808, say).'),
])
def test_unusable_http_options_are_one_sentence_and_exit_2(capsys, argv, said):
    assert proxy.main(argv) == 2
    assert capsys.readouterr().err == f"turngate proxy: {said}\n"


def test_an_address_in_use_is_one_sentence_and_exit_2(capsys):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert proxy.main(["--listen", f"127.0.0.1:{port}", "--", "cat"]) == 2
    assert capsys.readouterr().err == f"turngate proxy: cannot listen on 127.0.0.1:{port} (Address already in use).\n"


def test_a_header_takes_its_value_from_the_environment():
    from turngate.mcp.proxy.http.wire import header_option
    assert header_option("Authorization:  Bearer ${TOKEN} ", {"TOKEN": "s3cret"}) == ("Authorization", "Bearer s3cret")
    assert header_option("X-Price: $5", {}) == ("X-Price", "$5")  # only ${NAME} is read
