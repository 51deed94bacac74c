"""Every Python block of the README and of docs/ type-checks under `mypy --strict` with the
SDKs' own types, as a host that type-checks its code would paste it.

A block is checked with the blocks before it on its page (as `test_docs` runs them). A block
that uses what only the host has (its SDK client, its conversation, its tools, its MCP
session) is checked after a prelude that declares those names with the SDK's types, and
nothing more: each prelude is below, by the text that tells it. A block that is an excerpt of
an example (the integrations, OpenTelemetry) is checked as that example file, whole: the tests
that run the examples also hold each block to be a verbatim excerpt of its file.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from test_docs import PAGES, STAND_INS, blocks

pytestmark = pytest.mark.slow

_CHAT = """\
from typing import Callable
from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam
import turngate
client: OpenAI
model: str
tools: list[ChatCompletionToolParam]
messages: list[ChatCompletionMessageParam]
run: Callable[[turngate.Call], str]
"""
_RESPONSES = """\
from typing import Callable
from openai import OpenAI
from openai.types.responses import FunctionToolParam, ResponseInputItemParam
import turngate
client: OpenAI
model: str
tools: list[FunctionToolParam]
items: list[ResponseInputItemParam]
run: Callable[[turngate.Call], str]
"""
_ANTHROPIC = """\
from typing import Callable
from anthropic import Anthropic
from anthropic.types import MessageParam, ToolParam
import turngate
client: Anthropic
model: str
tools: list[ToolParam]
messages: list[MessageParam]
run: Callable[[turngate.Call], str]
"""
_MCP = """\
from typing import Any, Callable
from mcp import ClientSession
import turngate
session: ClientSession
class Budget:
    def charge(self, call: turngate.Call) -> None: ...
budget: Budget
turn: list[dict[str, Any]]
"""
_TOOLSET = "import turngate\ntoolset: turngate.Toolset\n"
_RESPONSE = "from openai.types.responses import Response\nresponse: Response\n"
_MESSAGE = "from anthropic.types import Message\nmessage: Message\n"
#: Per block, by a text it holds: the host's names it uses, declared (each piece once).
PRELUDES = {"client.chat.": (_CHAT,), "client.responses.": (_RESPONSES,), "client.messages.": (_ANTHROPIC,),
            "GatedSession(session": (_MCP,),
            # The README's lines for the other formats, after its OpenAI block.
            "gate(response, toolset)      # a Response": (_TOOLSET, _RESPONSE, _MESSAGE)}
#: Blocks that are excerpts of examples, by the names that tell them: the example files.
EXCERPTS = {"integrations": "examples/integrations", "TurnGate(": "examples/integrations",
            "telemetry": "examples/telemetry_otlp.py"}
#: Examples not checked here: CrewAI's has an environment of its own (`.ci/typecheck crewai`
#: checks it there).
NOT_HERE = {"crewai_crew.py": "CrewAI's environment"}


def preludes(text: str) -> str:
    return "".join(dict.fromkeys(piece for name, pieces in PRELUDES.items() if name in text for piece in pieces))


def sources(folder: Path) -> tuple[list[Path], set[str]]:
    """Each block as a file to check, and the examples its excerpts come from."""
    files: list[Path] = []
    examples: set[str] = set()
    for page in PAGES:
        earlier: list[str] = []
        for index, (language, text, _) in enumerate(blocks(page)):
            if language != "python":
                continue
            excerpt = next((example for name, example in EXCERPTS.items() if name in text), None)
            if excerpt is not None:
                examples.add(excerpt)
                continue
            prelude = preludes(text)
            body = "\n".join([*earlier, text])
            # A block with `await` at its top runs inside the host's coroutine.
            if "await " in text:
                body = "async def host() -> None:\n" + "".join(f"    {line}\n" for line in body.splitlines())
            file = folder / f"{page.stem.lower()}_{index}.py"
            file.write_text(prelude + "\n" + body)
            files.append(file)
            if not any(name in text for name in STAND_INS):
                earlier.append(text)
    return files, examples


def example_files(examples: set[str]) -> list[Path]:
    found: list[Path] = []
    for example in sorted(examples):
        path = ROOT / example
        found += sorted(path.glob("*.py")) if path.is_dir() else [path]
    return [path for path in found if path.name not in NOT_HERE]


def test_every_python_block_type_checks_strictly(tmp_path):
    files, examples = sources(tmp_path)
    checked = [*files, *example_files(examples)]
    assert len(files) >= 10 and len(checked) >= 15
    # --allow-redefinition: a block may show one name for each of several formats.
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--allow-redefinition", "--no-incremental",
                           *map(str, checked)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-4000:]


def test_a_block_that_does_not_type_check_is_found(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import turngate\nverdict: int = turngate.compile_schema({}).check({})\n")
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", str(bad)], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 1 and "Incompatible types in assignment" in done.stdout
