"""A host adopts turngate in minutes: each friction a new user met is a test here. The tools
are taken as the SDKs give them, a format's turn is gated in one call, casts are asked for
once and say what they changed, and `import turngate` alone gives what the README uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import requires

import pytest
from anthropic.types import Message, ToolUseBlock, Usage
from mcp.types import ListToolsResult, Tool
from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageFunctionToolCall

import turngate
from conftest import EXAMPLES, ROOT
from turngate.formats import FormatError, anthropic_messages, mcp_calls, openai_chat, openai_responses

PAGE = {"type": "object", "properties": {"uid": {"type": "integer"}}, "required": ["uid"]}
AS_THE_SDKS_GIVE_THEM = {
    "a mapping": {"get_page": PAGE},
    "OpenAI Chat tools": [{"type": "function", "function": {"name": "get_page", "parameters": PAGE}}],
    "Responses tools": [{"type": "function", "name": "get_page", "parameters": PAGE, "strict": False},
                        {"type": "web_search"}],
    "Anthropic tools": [{"name": "get_page", "input_schema": PAGE}],
    "an MCP result, plain": {"tools": [{"name": "get_page", "inputSchema": PAGE}]},
    "an MCP result, the SDK's": ListToolsResult(tools=[Tool(name="get_page", input_schema=PAGE)]),
    "MCP tools, the SDK's": [Tool(name="get_page", input_schema=PAGE)],
}


@pytest.mark.parametrize("shape", AS_THE_SDKS_GIVE_THEM)
def test_a_toolset_is_made_from_what_each_sdk_gives(shape):
    toolset = turngate.Toolset(AS_THE_SDKS_GIVE_THEM[shape])
    assert toolset.names == ("get_page",)
    assert not turngate.check_turn([{"id": "a", "tool": "get_page", "arguments": {}}], toolset).ok


@pytest.mark.parametrize("given, said", [
    (5, "this is a number"), ("get_page", "this is text"),
    ([{"colour": "red"}], "this is a list of 1 that no tools shape fits"),
])
def test_anything_else_is_one_sentence_naming_what_was_given_and_what_is_taken(given, said):
    with pytest.raises(TypeError) as caught:
        turngate.Toolset(given)
    text = str(caught.value)
    assert text.startswith("a toolset is made of a mapping of tool name to schema, or the tools as OpenAI")
    assert text.endswith(said + ".") and "\n" not in text


def test_a_tool_list_of_one_shape_that_is_not_well_formed_says_where():
    with pytest.raises(FormatError, match=r'^tools\[1\] has no "input_schema"\.$'):
        turngate.Toolset([{"name": "a", "input_schema": PAGE}, {"name": "b"}])


def test_a_message_given_to_check_turn_is_one_sentence_pointing_to_the_formats():
    message = {"role": "assistant", "tool_calls": []}
    with pytest.raises(TypeError, match=r"^check_turn takes the turn's calls .* read a model's message with its "
                                        r"format's calls\(\) or gate\(\) \(turngate\.formats\)$"):
        turngate.check_turn(message, turngate.Toolset({"get_page": PAGE}))
    with pytest.raises(TypeError, match=r'^a call of a turn is a Call, or a mapping with "id", "tool" and '
                                        r'"arguments"; this is a str$'):
        turngate.check_turn(["get_page"], {"get_page": PAGE})


def chat_message(arguments: str) -> ChatCompletionMessage:
    return ChatCompletionMessage(role="assistant", tool_calls=[ChatCompletionMessageFunctionToolCall(
        id="call_1", type="function", function={"name": "get_page", "arguments": arguments})])


def test_an_openai_message_is_gated_in_one_call_from_the_sdk_s_object():
    toolset = turngate.Toolset(AS_THE_SDKS_GIVE_THEM["OpenAI Chat tools"])
    ran = openai_chat.gate(chat_message('{"uid": 42}'), toolset)
    assert ran.ok and ran.calls == (turngate.Call("call_1", "get_page", {"uid": 42}),) and ran.reply is None
    refused = openai_chat.gate(chat_message('{"uid": [42]}'), toolset)
    assert not refused.ok and refused.calls == ()
    assert refused.reply == [{"role": "tool", "tool_call_id": "call_1", "content": refused.verdict.answers[0].text}]


def test_each_format_has_its_gate():
    toolset = turngate.Toolset({"get_page": PAGE})
    message = Message(id="m", type="message", role="assistant", model="m", stop_reason="tool_use",
                      stop_sequence=None, usage=Usage(input_tokens=1, output_tokens=1),
                      content=[ToolUseBlock(type="tool_use", id="toolu_1", name="get_page", input={"uid": 1})])
    assert anthropic_messages.gate(message, toolset).ok
    output = [{"type": "function_call", "call_id": "c1", "name": "get_page", "arguments": "{}"}]
    assert openai_responses.gate(output, toolset).reply[0]["type"] == "function_call_output"
    assert mcp_calls.gate([{"name": "get_page", "arguments": {"uid": 1}}], toolset).ok


def test_casts_are_asked_for_once_and_the_verdict_says_which_paths_were_cast():
    toolset = turngate.Toolset(AS_THE_SDKS_GIVE_THEM["OpenAI Chat tools"], casts=True)
    gated = openai_chat.gate(chat_message('{"uid": "3"}'), toolset)
    assert gated.calls[0].arguments == {"uid": 3} and gated.verdict.casts[0].changed == (("uid",),)
    plain = openai_chat.gate(chat_message('{"uid": "3"}'), turngate.Toolset({"get_page": PAGE}))
    assert plain.calls[0].arguments == {"uid": "3"} and plain.verdict.casts == ()  # lenient: passed as sent


def test_import_turngate_alone_gives_what_the_readme_uses():
    done = subprocess.run([sys.executable, "-c", "import turngate; v = turngate.compile_schema({}).check(1); "
                           "print(turngate.to_data(v), turngate.convert.to_data(v) == turngate.to_data(v), "
                           "turngate.from_data(turngate.to_data(v), turngate.Verdict) == v, "
                           "[name for name in ('formats', 'Toolset', 'Gated', 'RunStep', 'Loop') "
                           "if not hasattr(turngate, name)])"], capture_output=True, text=True)
    assert done.stdout == "{'ok': True, 'mismatches': [], 'truncated': False, 'unjudged': {}} True True []\n", done.stderr


def test_the_example_gates_an_openai_an_anthropic_and_an_mcp_turn_with_one_call_each():
    done = subprocess.run([sys.executable, str(EXAMPLES / "gate_formats.py")], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    openai, anthropic, mcp = done.stdout.splitlines()
    assert openai == "OpenAI Chat: run (Call(id='call_1', tool='get_page', arguments={'uid': '42'}),)"
    assert anthropic.startswith("Anthropic: reply {'role': 'user', 'content': [{'type': 'tool_result'")
    assert mcp == "MCP: run (Call(id='call_1', tool='get_page', arguments={'uid': 42}),) cast: (('uid',),)"


def test_the_readme_leads_and_stays_short():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 200
    headings = [line for line in readme.splitlines() if line.startswith("## ")]
    assert headings[:3] == ["## Try it", "## From Python", "## The command line"]
    assert "(docs/adr-246.md)" in readme.split("## Try it")[0]
    assert "turngate[" not in readme, "nothing publishes turngate: install from the checkout"


def test_the_version_is_the_installed_distribution_s():
    from importlib.metadata import version

    assert turngate.__version__ == version("turngate")
    assert turngate.__version__.count(".") == 2 and "__version__" not in turngate.__all__


#: Each module of an extra, the package whose absence the test stands for, and the extra.
MODULES_OF_EXTRAS = [
    ("turngate.integrations.langchain", "langchain", "langchain"),
    ("turngate.integrations.langgraph", "langchain_core", "langgraph"),
    ("turngate.integrations.openai_agents", "agents", "openai-agents"),
    ("turngate.integrations.pydantic_ai", "pydantic_ai", "pydantic-ai"),
    ("turngate.integrations.llamaindex", "llama_index", "llamaindex"),
    ("turngate.integrations.adk", "google.adk", "adk"),
    ("turngate.integrations.crewai", "crewai", "crewai"),
    ("turngate.integrations.crewai_turns", "crewai", "crewai"),
    ("turngate.integrations.litellm", "litellm", "litellm"),
    ("turngate.mcp.demo_server", "mcp", "mcp"),
]


@pytest.mark.parametrize("module, missing, extra", MODULES_OF_EXTRAS, ids=[m for m, _, _ in MODULES_OF_EXTRAS])
def test_a_module_whose_extra_is_missing_says_which_and_how_to_install_it(module, missing, extra):
    """The framework is made unimportable (None in sys.modules, as an uninstalled package is
    to the import system); the import error names the extra, its releases and the command."""
    done = subprocess.run([sys.executable, "-c", f"import sys; sys.modules[{missing!r}] = None\n"
                           f"try:\n    import {module}\nexcept ImportError as error:\n"
                           "    print(error.name); print(error)"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    name, said = done.stdout.splitlines()
    assert name.startswith(missing.split(".")[0])
    declared = ", ".join(requirement.split(";")[0].strip() for requirement in requires("turngate")
                         if f'extra == "{extra}"' in requirement)
    assert declared and said.startswith(f"{module} needs the {extra} extra ({declared}), which is not installed "
                                        "or not of a release it allows (")
    assert said.endswith(f"); install it with: python3 -m pip install 'turngate[{extra}]'.")


def test_every_module_that_imports_a_framework_is_in_the_list_above():
    gates = {f"turngate.integrations.{path.stem}" for path in (ROOT / "engine" / "integrations").glob("*.py")
             if path.stem != "__init__"}
    assert gates <= {module for module, _, _ in MODULES_OF_EXTRAS}


def test_batch_reads_text_arguments_as_check_turn_does():
    """OpenAI's calls (and the logs that keep them) hold the arguments as JSON text: batch
    decodes it as check_turn does, and refuses text that is not JSON with check_turn's answer."""
    schema = {"type": "object", "properties": {"uid": {"type": "integer"}}, "required": ["uid"]}
    lines = [{"id": "as text", "schema": schema, "arguments": '{"uid": [42]}'},
             {"id": "as a value", "schema": schema, "arguments": {"uid": [42]}},
             {"id": "blank", "schema": schema, "arguments": " "},
             {"id": "cut off", "tool": "get_page", "schema": schema, "arguments": '{"uid": 4'}]
    done = subprocess.run([sys.executable, "-m", "turngate.cli", "batch", "-"], capture_output=True, text=True,
                          input="".join(json.dumps(line) + "\n" for line in lines))
    assert (done.returncode, done.stderr) == (1, "")
    as_text, as_value, blank, cut_off = map(json.loads, done.stdout.splitlines())
    assert {**as_text, "id": "as a value"} == as_value and as_value["mismatches"][0]["path"] == ["uid"]
    assert blank["mismatches"] == [{"path": ["uid"], "code": "missing", "message": '"uid" is missing; it is required '
                                                                                   'and must be an integer.',
                                    "expected": {"keyword": "required", "value": "uid"}, "sent": None}]
    toolset = turngate.Toolset({"get_page": schema})
    answer = turngate.check_turn([{"id": "c", "tool": "get_page", "arguments": '{"uid": 4'}], toolset).answers[0]
    assert cut_off == {"id": "cut off", "ok": False, "truncated": False,
                       "mismatches": [{"path": [], "code": "cut-off-json", "message": answer.text, "expected": None,
                                       "sent": None}]}


@pytest.mark.slow
def test_one_test_file_runs_alone_and_passes(tmp_path):
    """Coverage is measured in every run, but its floor applies to all of them combined
    (.ci/matrix): a developer's run of one file passes, below the floor as it is."""
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith(("COV_CORE_", "COVERAGE_", "PYTEST_"))}
    done = subprocess.run([sys.executable, "-m", "pytest", "tests/test_vocabulary.py", "-p", "no:cacheprovider"],
                          capture_output=True, text=True, cwd=ROOT,
                          env={**environment, "COVERAGE_FILE": str(tmp_path / "data")})
    assert done.returncode == 0, done.stdout[-3000:]
    total = [line for line in done.stdout.splitlines() if line.startswith("TOTAL")]
    assert total and int(total[0].split()[-1].rstrip("%")) < 95 and "Required test coverage" not in done.stdout
