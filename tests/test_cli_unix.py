"""The command line behaves like a Unix tool: quiet on a closed pipe (exit 141) and on Ctrl-C
(exit 130), `--version`, and a `--help` that shows examples, exit codes and help for every
argument. The pipes and signals are real: the command runs as a subprocess."""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import EXAMPLES, ROOT
from turngate.cli import main
from turngate.cli.main import parser

COMMAND = [sys.executable, "-m", "turngate.cli"]
STEPS = EXAMPLES / "steps.jsonl"
CORPUS_LINE = b'{"id": 1, "schema": {"required": ["a"]}, "arguments": {}}\n'


@pytest.fixture(scope="module")
def many_steps(tmp_path_factory):
    """A record file whose timeline is far larger than a pipe's buffer."""
    path = tmp_path_factory.mktemp("steps") / "many.jsonl"
    path.write_text(STEPS.read_text() * 2000)
    return path


@pytest.fixture(scope="module")
def many_calls(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "many.jsonl"
    path.write_bytes(CORPUS_LINE * 5000)
    return path


def quiet(stderr: bytes) -> bool:
    return b"Traceback" not in stderr and b"Exception ignored" not in stderr and stderr.count(b"\n") <= 1


@pytest.mark.parametrize("argv", [
    ["timeline", "MANY_STEPS"], ["timeline", "MANY_STEPS", "--json"], ["stats", "MANY_STEPS", "--by", "code"],
    ["batch", "MANY_CALLS"], ["check-turn", str(EXAMPLES / "turn.openai.json")], ["--help"],
    ["check", str(EXAMPLES / "update_page_metadata.schema.json"), str(EXAMPLES / "update_page_metadata.bad.json")],
])
def test_a_reader_that_closes_early_ends_the_command_quietly_with_141(tmp_path, many_steps, many_calls, argv):
    argv = [str(many_steps) if a == "MANY_STEPS" else str(many_calls) if a == "MANY_CALLS" else a for a in argv]
    read, write = os.pipe()
    os.close(read)  # nobody will read: the first write fails
    try:
        done = subprocess.run([*COMMAND, *argv], stdout=write, stderr=subprocess.PIPE, cwd=ROOT, timeout=60)
    finally:
        os.close(write)
    # argparse itself swallows the failed write of --help, which then exits 0
    assert done.returncode in ((0, 141) if argv == ["--help"] else (141,)), done.returncode
    assert done.stderr == b"", done.stderr.decode()


@pytest.mark.parametrize("command", ["timeline", "stats", "batch"])
def test_piped_into_head_the_command_prints_no_traceback(many_steps, many_calls, command):
    path = many_calls if command == "batch" else many_steps
    script = f'"$@" {command} "{path}" 2>&1 | head -1; echo "status ${{PIPESTATUS[0]}}"'
    done = subprocess.run(["bash", "-c", script, "bash", *COMMAND], capture_output=True, cwd=ROOT, timeout=60)
    first, status = done.stdout.decode().splitlines()
    assert "Traceback" not in first and "Error" not in first
    # stats prints a few lines only: head may still be reading when they are written (exit 0)
    assert status in (("status 0", "status 141") if command == "stats" else ("status 141",))
    assert done.stderr == b""


def interruptible(argv: list[str]) -> subprocess.Popen:
    """The command started as from a shell, where Ctrl-C is not ignored: a test runner's
    worker may ignore SIGINT, and a child would inherit that."""
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def interrupted(process: subprocess.Popen) -> subprocess.CompletedProcess:
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def test_ctrl_c_while_batch_reads_a_pipe_that_never_ends_exits_130_quietly():
    process = interruptible([*COMMAND, "batch", "-"])
    process.stdin.write(CORPUS_LINE)
    process.stdin.flush()
    assert process.stdout.readline().startswith(b'{"id": 1, "ok": false')  # answered as it came: running
    done = interrupted(process)
    assert done.returncode == 130 and quiet(done.stderr), done.stderr.decode()


def test_ctrl_c_while_check_waits_for_standard_input_exits_130_quietly():
    process = interruptible([*COMMAND, "check", str(EXAMPLES / "get_page.schema.json"), "-"])
    _wait_until_reading(process.pid)
    done = interrupted(process)
    assert (done.returncode, done.stdout) == (130, b"") and quiet(done.stderr), done.stderr.decode()


def _wait_until_reading(pid: int) -> None:
    """Until the process sleeps reading its standard input, a pipe (Linux's /proc tells; where
    there is none, a few seconds are taken to be enough to start)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/wchan") as wchan:
                if "pipe" in wchan.read():
                    return
        except OSError:
            time.sleep(3)
            return
        time.sleep(0.05)


def test_an_interrupt_inside_a_command_returns_130_with_nothing_printed(capfd, monkeypatch):
    def interrupt(_):
        raise KeyboardInterrupt
    monkeypatch.setattr("turngate.cli.commands_steps.read_steps_file", interrupt)
    assert main(["timeline", str(STEPS)]) == 130
    assert capfd.readouterr() == ("", "")


def test_version_prints_the_installed_distribution_s_version(capfd):
    assert main(["--version"]) == 0
    printed = f"turngate {importlib.metadata.version('turngate')}\n"
    assert capfd.readouterr().out == printed
    done = subprocess.run([*COMMAND, "--version"], capture_output=True, text=True, cwd=ROOT)
    assert (done.returncode, done.stdout, done.stderr) == (0, printed, "")


def test_the_top_level_help_shows_examples_and_exit_codes(capfd):
    assert main(["--help"]) == 0
    out = capfd.readouterr().out
    assert "\nexamples:\n  turngate check examples/update_page_metadata.schema.json" in out
    assert "--plugin examples/writing_a_rule/max_length.py \\\n      --table examples/writing_a_rule/host.rules" in out
    for code in ("0 ", "1 ", "2 ", "130", "141"):
        assert f"\n  {code}" in "\n" + out.split("exit codes:\n")[1]
    for command in ("check", "batch", "check-turn", "timeline", "stats", "coverage", "demo"):
        assert f"\n    {command}" in out


def _parsers(top: argparse.ArgumentParser):
    yield "turngate", top
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub


def test_every_argument_of_every_command_has_help():
    seen = 0
    for name, command in _parsers(parser()):
        assert command.description, name
        for action in command._actions:
            assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)
            seen += 1
            if isinstance(action, argparse._SubParsersAction):
                assert all(choice.help for choice in action._choices_actions)
    assert seen > 30


@pytest.mark.parametrize("command", ["check", "batch", "check-turn", "coverage"])
def test_every_command_that_checks_takes_a_table_and_plugins(command):
    sub = dict(_parsers(parser()))[command]
    options = {option for action in sub._actions for option in action.option_strings}
    assert {"--table", "--plugin"} <= options


def test_every_command_help_runs(capfd):
    for name, _ in _parsers(parser()):
        argv = ["--help"] if name == "turngate" else [name, "--help"]
        assert main(argv) == 0, name
        assert capfd.readouterr().out.startswith("usage: turngate")


def test_a_usage_error_exits_2_with_argparse_s_message(capfd):
    assert main(["check"]) == 2
    assert "the following arguments are required: schema, arguments" in capfd.readouterr().err
