"""A host adopts turngate in minutes: each friction a new user met is a test here. The tools
are taken as the SDKs give them, a format's turn is gated in one call, casts are asked for
once and say what they changed, and `import turngate` alone gives what the README uses."""

from __future__ import annotations

import subprocess
import sys

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
    assert done.stdout == "{'ok': True, 'mismatches': [], 'truncated': False} True True []\n", done.stderr


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
