"""`turngate demo`: the recorded turn replayed against the bundled example MCP server, and
the one sentence it prints where the `mcp` extra is not installed. The core package works
without `mcp`."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT
from turngate.cli.demo import DEMO_TURN_FILE, INSTALL_MCP, recorded_turns

WITHOUT_MCP = "import sys; sys.modules['mcp'] = None; "


def python(code_or_args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *code_or_args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_the_demo_refuses_the_recorded_turn_then_runs_the_corrected_one(snapshot):
    done = python(["-m", "turngate.cli", "demo"])
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    introduction, first, second = done.stdout.split("\n\n")
    assert introduction.endswith("offering get_page, update_page_metadata.")
    assert "Refused: nothing was sent to the server" in first
    assert first.endswith("Calls sent to the server so far: 0.")
    assert '- "status" must be one of "draft", "review", "published", but "archived" was sent.' in first
    assert "Accepted: every call was sent to the server, which answered:" in second
    assert '[call_2] update_page_metadata: Page 42 updated: title "Opening hours and holidays", status review' in second
    assert second.endswith("Calls sent to the server so far: 2.\n")
    assert done.stdout == snapshot
    assert f"```text\n{done.stdout}```" in (ROOT / "README.md").read_text(), "the README shows another output"


def test_the_recorded_turn_ships_in_the_package():
    assert DEMO_TURN_FILE == ROOT / "engine" / "mcp" / "demo_turn.json"
    turns = recorded_turns()
    assert [len(turn["calls"]) for turn in turns] == [2, 2]


def test_without_the_mcp_extra_the_demo_says_to_install_it_and_exits_2():
    done = python(["-c", WITHOUT_MCP + "from turngate.cli import main; sys.exit(main(['demo']))"])
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"turngate: {INSTALL_MCP}\n"
    assert INSTALL_MCP == ("the demo needs the MCP SDK; install it with: python3 -m pip install 'turngate[mcp]' "
                           "(in a checkout of turngate: python3 -m pip install -e '.[mcp]').")


def test_the_core_package_and_check_turn_work_without_mcp():
    code = (WITHOUT_MCP + "import turngate, turngate.formats, turngate.mcp.gate, turngate.cli.demo; "
            "from turngate.cli import main; sys.exit(main(['check-turn', 'examples/turn.anthropic.json']))")
    done = python(["-c", code])
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("Refused: nothing of the turn runs (anthropic, 2 calls)")


def test_the_demo_piped_into_a_reader_that_closes_early_ends_quietly_with_141():
    import os
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "turngate.cli", "demo"], stdout=write, stderr=subprocess.PIPE,
                              cwd=ROOT, timeout=120)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, b"")
