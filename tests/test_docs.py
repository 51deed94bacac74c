"""Every command and snippet of the README and of docs/ runs as shown.

A `sh` block's commands are run from the repository's top folder; where a `text` block
follows, it is their output (standard output, and standard error for a command that fails).
Three kinds of command are not run as written, each for a stated reason: an install before
`&&` is what CI itself does before the tests (the rest of the line is run); the test command
(`python3 -m pytest`) would run this very test, so the page must show exactly the line CI
runs (`.ci/run`), which is how it is run; the full benchmark takes ten minutes, so its smoke
run is made (`--smoke`).

A `python` block is run with the blocks before it on its page, in a fresh interpreter, and
its output compared with a `text` block that follows. Blocks that need a model or a server
(an SDK client, an MCP session, an agent framework's objects) are run against stand-ins by
the test named in `STAND_INS`. A `text` block after prose is a file's content where the prose
links a file, else it must be what a command above printed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Python blocks run with stand-ins elsewhere, by the names that tell them: the test that runs them.
STAND_INS = {"client.": "tests/test_docs_formats.py", "await ": "tests/test_docs_formats.py",
             "gate(response": "tests/test_docs_formats.py", "integrations": "tests/test_integrations.py",
             "TurnGate(": "tests/test_integrations.py",
             # docs/telemetry.md: lines of examples/telemetry_otlp.py, run against an OTLP receiver.
             "telemetry": "tests/test_otlp.py"}
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def blocks(page: Path) -> list[tuple[str, str, bool]]:
    """Each fenced block of a page: its language, its text, and whether a code block comes
    just before it (only blank lines between)."""
    text = page.read_text(encoding="utf-8")
    found, last_end = [], None
    for match in _BLOCK.finditer(text):
        follows_code = last_end is not None and not text[last_end:match.start()].strip()
        found.append((match.group(1), match.group(2), follows_code))
        last_end = match.end() if match.group(1) in ("sh", "python") else None
    return found


def commands(block: str) -> list[str]:
    joined = block.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


def as_run(command: str) -> str:
    """The command as the test runs it (see the module's docstring)."""
    if command.startswith("python3 -m pip install") and "&&" in command:
        command = command.split("&&", 1)[1].strip()
    if command == "python3 benchmarks/run.py":
        return command + " --smoke"
    return command


def run_shell(command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", as_run(command)], capture_output=True, text=True, cwd=ROOT,
                          timeout=600, stdin=subprocess.DEVNULL)


def shown(done: subprocess.CompletedProcess) -> str:
    return done.stdout if done.returncode == 0 else done.stdout + done.stderr


def cases() -> list:
    found = []
    for page in PAGES:
        for index, (language, text, _) in enumerate(blocks(page)):
            if language in ("sh", "python"):
                found.append(pytest.param(page, index, id=f"{page.name}-{index}-{language}"))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("page, index", cases())
def test_each_block_runs_as_shown(page, index):
    page_blocks = blocks(page)
    language, text, _ = page_blocks[index]
    following = page_blocks[index + 1] if index + 1 < len(page_blocks) else None
    expected = following[1] if following and following[0] == "text" and following[2] else None
    if language == "sh":
        outputs = []
        for command in commands(text):
            if "python3 -m pytest" in command:
                ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
                assert command in ci, f"{command!r} is not the line .ci/run runs"
                continue
            done = run_shell(command)
            # Exit 2 is unusable input: shown on purpose only where the page prints its sentence.
            allowed = (0, 1, 2) if expected is not None else (0, 1)
            assert done.returncode in allowed, f"{command}: exit {done.returncode}\n{done.stderr[-2000:]}"
            outputs.append(shown(done))
        if expected is not None:
            assert "".join(outputs) == expected
        return
    stand_in = next((test for name, test in STAND_INS.items() if name in text), None)
    if stand_in is not None:
        assert (ROOT / stand_in).is_file(), f"the block is run with stand-ins by {stand_in}"
        return
    earlier = [code for lang, code, _ in page_blocks[:index] if lang == "python"
               and not any(name in code for name in STAND_INS)]
    done = subprocess.run([sys.executable, "-c", "\n".join([*earlier, text])], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    if expected is not None:
        assert done.stdout.endswith(expected)


def test_every_json_block_is_json_and_every_mcp_client_entry_wraps_a_server_with_the_proxy():
    import json

    for page in PAGES:
        for language, code, _ in blocks(page):
            if language != "json":
                continue
            data = json.loads(code)
            for name, entry in data.get("mcpServers", {}).items():
                if entry.get("command") == "turngate":  # an HTTP client's entry has a "url" instead
                    server = "--" in entry["args"] or "--url" in entry["args"]
                    assert entry["args"][0] == "proxy" and server, (page.name, name)


def test_every_text_block_after_prose_is_a_file_or_an_output_shown_above():
    """A `text` block that follows no code block shows a file the prose links, or a line a
    command of the page printed (e.g. an error sentence quoted again)."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        page_blocks = blocks(page)
        printed = "".join(code for lang, code, follows in page_blocks if lang == "text" and follows)
        for language, code, follows in page_blocks:
            if language != "text" or follows:
                continue
            linked = [ROOT / path for path in re.findall(r"\]\(\.?\.?/?([^)#]+)\)", text)]
            files = [path.read_text(encoding="utf-8") for path in linked if path.is_file()]
            assert code in files or code in printed, f"{page.name}: a text block neither a file nor shown output"
