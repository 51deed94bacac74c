"""The agent-framework gates as a whole: each example in examples/integrations/ runs offline and
shows a refused turn answered; importing turngate imports no framework; each gate module
imports its own framework only, and turngate only through its public API; each framework's
extra is a range whose both ends the tests install."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
import tomllib

import pytest

from conftest import EXAMPLES, ROOT

REFUSED = 'Refused: the arguments do not match the schema of tool "update_page", so nothing was run.'
STEP = ('{"turn": 1, "index": 1, "tool": "update_page", "status": "refused", "tool_refusal": "arguments", '
        '"codes": ["missing", "enum"], "call_id": null, "text": null, "privacy": "metadata-only"')
RAN = "Page 42 is now 'Opening hours', review."
ASKED = {  # what each example prints for the one approval asked (LangGraph's asks none)
    "langchain_agent": "Approval asked for: {'uid': 42, 'title': 'Opening hours', 'status': 'review'}",
    "langgraph_graph": None,
    "openai_agents_run": """Approval asked for: ['{"uid":42,"title":"Opening hours","status":"review"}']""",
    "pydantic_ai_agent": """Approval asked for: ['{"uid": 42, "title": "Opening hours", "status": "review"}']""",
}


@pytest.mark.slow
def test_each_example_runs_offline_and_shows_the_refused_turn_answered():
    # Started together: each spends most of its time importing its framework.
    started = {name: subprocess.Popen([sys.executable, str(EXAMPLES / "integrations" / f"{name}.py")],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
               for name in ASKED}
    for name, process in started.items():
        out, err = process.communicate(timeout=180)
        assert process.returncode == 0, (name, err[-3000:])
        lines = out.splitlines()
        assert lines[0].startswith(STEP), (name, out)
        assert REFUSED in out and out.count(RAN) == 1 and "Done." in out, (name, out)
        if ASKED[name]:
            assert lines[1] == ASKED[name], (name, out)
        else:
            assert "Approval" not in out


def test_importing_turngate_imports_no_framework():
    frameworks = ("langchain", "langchain_core", "langgraph", "agents", "pydantic_ai", "llama_index", "google.adk",
                  "crewai")
    done = subprocess.run([sys.executable, "-c", "import sys, turngate, turngate.integrations; "
                           f"print([name for name in {frameworks!r} if name in sys.modules])"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# Each gate module's third-party imports; `langchain` also uses the LangGraph module's helpers,
# `llamaindex` turngate's own attrs for its options.
FRAMEWORKS = {"langchain": {"langchain"}, "langgraph": {"langchain_core", "langgraph"},
              "openai_agents": {"agents"}, "pydantic_ai": {"pydantic_ai"}, "llamaindex": {"llama_index", "attrs"},
              "adk": {"google"},
              # CrewAI's LLMs are pydantic models: the gate's wrapper keeps its state as theirs do.
              "crewai": {"crewai", "pydantic"}, "crewai_turns": {"crewai"}}
SIBLINGS = {"langchain": {"langgraph"}, "crewai": {"crewai_turns"}}


def test_each_gate_imports_its_own_framework_and_turngates_public_api_only():
    for name, frameworks in FRAMEWORKS.items():
        tree = ast.parse((ROOT / "engine" / "integrations" / f"{name}.py").read_text())
        imported = {(node.level, node.module) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        imported |= {(0, alias.name) for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        siblings = {module for level, module in imported if level == 1}
        assert siblings <= SIBLINGS.get(name, set()) and all(level <= 1 for level, _ in imported), name
        absolute = {module for level, module in imported if level == 0}
        ours = {module for module in absolute if module.split(".")[0] == "turngate"}
        # turngate.extras: the ImportError that names the extra and its install command.
        assert ours <= {"turngate", "turngate.formats", "turngate.extras"}, (name, ours)
        others = {module.split(".")[0] for module in absolute - ours} - set(sys.stdlib_module_names)
        assert others == frameworks, (name, others)


SHARING = ("langchain", "langgraph", "openai-agents", "pydantic-ai", "llamaindex", "adk")  # the test extra's
ON_THEIR_OWN = ("crewai", "litellm")


def test_each_frameworks_extra_is_a_range_and_the_test_extra_installs_those_that_can_share_it():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    for extra in (*SHARING, *ON_THEIR_OWN, "mcp"):
        assert extras[extra] and all(">=" in pin and ",<" in pin for pin in extras[extra]), extra
    (together,) = [pin for pin in extras["test"] if pin.startswith("turngate[")]
    assert set(together.removeprefix("turngate[").removesuffix("]").split(",")) == {"test-runner", "mcp", "otel", "typecheck", *SHARING}


def newest_tested(name: str, extra: str) -> str:
    """The release the newest end of an extra's range is tested on: the README's test command's
    (constraints/test.txt), or that of the extra's own environment (its newest, where it has two)."""
    own = [ROOT / "constraints" / f"{extra}{end}.txt" for end in ("-newest", "")]
    found = next((path for path in own if path.is_file()), ROOT / "constraints" / "test.txt")
    lines = found.read_text().splitlines()
    # Releases put in afterwards, without their requirements, are named in the header the lock
    # writes ("..., then litellm==1.110.2, semver==3.1.2 without their requirements."): they
    # replace what the constraints pin.
    header = lines[0].partition(", then ")[2].partition(" without their requirements")[0]
    pins = [*lines, *header.split(", ")] if header else lines
    name = name.split("[")[0]
    versions = [line.split("==")[1] for line in pins if line.split("==")[0].lower() == name.lower()]
    return versions[-1]


EXAMPLE_OF = ["langchain_agent", "langgraph_graph", "openai_agents_run", "pydantic_ai_agent", "llamaindex_agent",
              "adk_agent", "crewai_crew"]


def excerpt_at(snippet: str, lines: list[str]) -> int | None:
    """Where `snippet` is the dedented text of consecutive lines of `lines` (None: nowhere)."""
    wanted = snippet.rstrip("\n")
    count = len(wanted.splitlines())
    return next((at for at in range(len(lines) - count + 1)
                 if textwrap.dedent("\n".join(lines[at:at + count])) == wanted), None)


def test_the_docs_show_each_gate_as_a_verbatim_excerpt_of_its_example_and_the_pins_tested():
    """Each snippet is consecutive lines of the example the first test runs, dedented: it
    pastes as it is (it compiles), and says what the running example does."""
    page = (ROOT / "docs" / "integrations.md").read_text()
    blocks = [block.split("```")[0] for block in page.split("```python\n")[1:]]
    assert len(blocks) == len(EXAMPLE_OF)
    for block, example in zip(blocks, EXAMPLE_OF):
        assert len(block.splitlines()) <= 15, block
        compile(block, f"the {example} snippet", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        lines = (EXAMPLES / "integrations" / f"{example}.py").read_text().splitlines()
        assert excerpt_at(block, lines) is not None, (example, block)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra in ("mcp", *SHARING, *ON_THEIR_OWN):
        names = [pin.split(">=")[0] for pin in extras[extra]]
        oldest = ", ".join(pin.replace(">=", " ").split(",<")[0] for pin in extras[extra])
        newest = ", ".join(f"{name} {newest_tested(name, extra)}" for name in names)
        row = f"| `{extra}` | " + ", ".join(f"`{pin}`" for pin in extras[extra]) + f" | {oldest} | {newest} |"
        assert row in page, row
    assert 'tool_not_found_behavior="return_error_to_model"' in page


def test_a_snippet_is_found_only_as_consecutive_lines_and_pasted_whole():
    lines = ["def run(model):", "    gate = TurnGate(model)", "    other()", "    result = gate.run()"]
    assert excerpt_at("gate = TurnGate(model)\nother()\n", lines) == 1
    assert excerpt_at("gate = TurnGate(model)\nresult = gate.run()\n", lines) is None  # a line left out
    with pytest.raises(IndentationError):  # the snippet this test was written for: its last line indented
        compile("gate = TurnGate(agent)\n    result = await Runner.run(gate.agent)\n", "snippet", "exec",
                flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
