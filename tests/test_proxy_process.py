"""`turngate proxy` as a process: the server's stderr and exit code become the proxy's,
closing the client or a signal stops the server, a server that cannot be started is told in
one sentence, unusable options stop the proxy before any server starts; and the `turngate
proxy` subcommand, once wired into the command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from proxy_support import ECHO_SERVER, ROOT, dumped, proxied, server_environment, session
from turngate.cli import main as turngate_main

ENV = {**os.environ}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def start(command: list[str], environment: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**ENV, **(environment or {})}, cwd=ROOT)


def run(command: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=ENV, cwd=ROOT,
                          timeout=30)


def written_pid(path: Path, timeout: float = 20.0) -> int:
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text()):
        assert time.monotonic() < deadline, f"{path} was not written"
        time.sleep(0.02)
    return int(path.read_text())


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_command_that_does_not_exist_gets_one_sentence_and_exit_127():
    done = run(proxied(["no-such-mcp-server", "--flag"]))
    assert (done.returncode, done.stdout) == (127, "")
    assert done.stderr == ('turngate proxy: the server command "no-such-mcp-server" could not be started '
                           "(No such file or directory).\n")


def test_a_command_that_cannot_be_run_gets_one_sentence_and_exit_126(tmp_path):
    not_executable = tmp_path / "server.sh"
    not_executable.write_text("#!/bin/sh\n")
    done = run(proxied([str(not_executable)]))
    assert done.returncode == 126
    assert done.stderr.count("\n") == 1 and "Permission denied" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("options, said", [
    (["--table", "no-such-table"], "turngate proxy: no-such-table: there is no table file here"),
    (["--steps", "/no/such/folder/steps.jsonl"], 'turngate proxy: the steps file "/no/such/folder/steps.jsonl" '
                                                 "cannot be opened (No such file or directory)."),
])
def test_unusable_options_exit_2_before_any_server_starts(tmp_path, options, said):
    marker = tmp_path / "started"
    done = run(proxied(["sh", "-c", f"touch {marker}"], *options))
    assert done.returncode == 2 and done.stderr.startswith(said) and done.stderr.count("\n") == 1
    assert not marker.exists()


def test_when_the_server_exits_the_proxy_exits_with_its_code_and_its_stderr_came_through():
    proxy = start(proxied(["sh", "-c", "echo 'server: cannot open the database' >&2; exit 3"]))
    try:
        code = proxy.wait(timeout=30)  # while the client still holds the proxy's stdin open
    finally:
        proxy.stdin.close()
    assert code == 3
    assert proxy.stderr.read().decode() == "server: cannot open the database\n"


def test_a_server_killed_by_a_signal_gives_128_plus_the_signal():
    proxy = start(proxied(["sh", "-c", "kill -KILL $$"]))
    assert proxy.wait(timeout=30) == 128 + signal.SIGKILL
    proxy.stdin.close()


@pytest.mark.anyio
async def test_closing_the_client_stops_the_server(tmp_path):
    async with session(proxied(ECHO_SERVER), server_environment(tmp_path)) as gated:
        assert dumped(await gated.call_tool("echo", {"text": "hi"}))["content"][0]["text"] == "hi"
        pid = int((tmp_path / "server.pid").read_text())
        assert alive(pid)
    assert not alive(pid)


def test_a_server_that_ignores_the_end_of_its_input_and_sigterm_is_killed(tmp_path):
    pid_file = tmp_path / "server.pid"
    stubborn = [sys.executable, "-c", "import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                f"open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(120)"]
    proxy = start(proxied(stubborn))
    pid = written_pid(pid_file)
    closed = time.monotonic()
    proxy.stdin.close()
    assert proxy.wait(timeout=30) == 0  # the client ended the run; the proxy stopped the server
    took = time.monotonic() - closed
    assert not alive(pid)
    assert 1.4 < took < 3.5  # 1 s to leave on its own, 0.5 s after SIGTERM, then SIGKILL
    assert proxy.stderr.read() == b""


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_server_and_the_proxy_exits_quietly(tmp_path, number):
    proxy = start(proxied(ECHO_SERVER), server_environment(tmp_path))
    pid = written_pid(tmp_path / "server.pid")
    time.sleep(0.5)  # the proxy has its signal handlers by now
    proxy.send_signal(number)
    assert proxy.wait(timeout=30) == 128 + number
    assert not alive(pid)
    assert proxy.stderr.read() == b""
    proxy.stdin.close()


def test_stdin_and_stdout_may_be_files(tmp_path):
    """Not only pipes: a recorded session replayed from a file, the answers written to one."""
    script, answers = tmp_path / "script.jsonl", tmp_path / "answers.jsonl"
    script.write_text("\n".join(json.dumps(m) for m in [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "file", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": []}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}},
    ]) + "\n")
    with script.open("rb") as stdin, answers.open("wb") as stdout:
        done = subprocess.run(proxied(ECHO_SERVER), stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, env=ENV,
                              cwd=ROOT, timeout=30)
    assert (done.returncode, done.stderr) == (0, b"")
    by_id = {m["id"]: m["result"] for m in map(json.loads, answers.read_text().splitlines())}
    assert by_id[2]["isError"] is True and by_id[3] == {"content": [{"type": "text", "text": "hi"}]}


def test_a_client_that_goes_away_ends_the_run(tmp_path):
    """The client closed its end of the proxy's stdout: the next line for it ends the run,
    and the server is stopped, quietly."""
    proxy = start(proxied(ECHO_SERVER), server_environment(tmp_path))
    pid = written_pid(tmp_path / "server.pid")
    proxy.stdout.close()
    proxy.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    proxy.stdin.flush()
    assert proxy.wait(timeout=30) == 0
    assert not alive(pid)
    assert proxy.stderr.read() == b""
    proxy.stdin.close()


def _cli_has_proxy(capsys) -> bool:
    """Whether `turngate proxy --help` is understood (argparse exits 2 on a command it lacks)."""
    try:
        code = turngate_main(["proxy", "--help"])
    except SystemExit as exit_:
        code = exit_.code
    capsys.readouterr()
    return code == 0


@pytest.mark.anyio
async def test_turngate_proxy_runs_through_the_cli(tmp_path, capsys):
    """`turngate proxy`, the command line's subcommand, is the proxy."""
    assert _cli_has_proxy(capsys)
    steps = tmp_path / "steps.jsonl"
    command = [sys.executable, "-m", "turngate.cli", "proxy", "--steps", str(steps), "--", *ECHO_SERVER]
    async with session(command, server_environment(tmp_path)) as gated:
        ran = dumped(await gated.call_tool("echo", {"text": "hi"}))
        refused = dumped(await gated.call_tool("echo", {"text": ["hi"]}))
    assert ran["content"][0]["text"] == "hi" and ran["isError"] is False
    assert refused["isError"] is True and refused["content"][0]["text"].endswith(
        '"text" must be text, but a list was sent.')
    assert [line.count('"status": "refused"') for line in steps.read_text().splitlines()] == [0, 1]
