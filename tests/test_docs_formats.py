"""The lines per format of the README and of docs/formats.md run as shown: each snippet is
executed against a stand-in client that returns the SDK's own objects, for a turn that
fits and for one that is refused, and what it appends is what the SDK takes back."""

from __future__ import annotations

import json
import re
import textwrap

import anyio
import pytest
from anthropic import types as anthropic_types
from mcp import types as mcp_types
from openai.types import chat, responses
from pydantic import TypeAdapter

import turngate
from conftest import ROOT

SCHEMA = {"type": "object", "properties": {"uid": {"type": "integer"}}, "required": ["uid"]}
FITS, REFUSED = {"uid": 42}, {"uid": [42]}


def snippets() -> list[str]:
    """docs/formats.md's four snippets, one per format."""
    page = (ROOT / "docs" / "formats.md").read_text()
    section = page.split("## One call per turn")[1].split("\n## ")[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def readme_snippets() -> list[str]:
    """The README's OpenAI snippet, and its lines for the other formats."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## From Python")[1].split("\n## ")[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


class Client:
    """Answers every create() with the one SDK object it was given, as the real client does."""

    def __init__(self, answer):
        self.chat = self.completions = self.responses = self.messages = self
        self.answer = answer

    def create(self, **_):
        return self.answer


def run(call) -> str:
    return f"ran {call.tool}"


def run_snippet(number: int, source=snippets, **names) -> dict:
    namespace = {"run": run, "model": "m", **names}
    exec(source()[number], namespace)
    return namespace


def test_the_formats_page_shows_one_snippet_per_format():
    assert [re.search(r"from turngate\.[.\w]+ import (\w+)", code).group(1) for code in snippets()] == [
        "openai_chat", "openai_responses", "anthropic_messages", "GatedSession"]
    assert len(readme_snippets()) == 2


@pytest.mark.parametrize("arguments", [FITS, REFUSED])
def test_the_openai_chat_snippet(arguments):
    tools = [{"type": "function", "function": {"name": "get_page", "parameters": SCHEMA}}]
    message = chat.ChatCompletionMessage(role="assistant", tool_calls=[chat.ChatCompletionMessageFunctionToolCall(
        id="call_1", type="function", function={"name": "get_page", "arguments": json.dumps(arguments)})])
    completion = chat.ChatCompletion(id="c", created=0, model="m", object="chat.completion", choices=[
        {"index": 0, "finish_reason": "tool_calls", "message": message}])
    for source in (snippets, readme_snippets):
        done = run_snippet(0, source, client=Client(completion), tools=tools, messages=[])
        TypeAdapter(list[chat.ChatCompletionMessageParam]).validate_python(done["messages"])
        answer = done["messages"][1]
        assert answer["tool_call_id"] == "call_1"
        assert (answer["content"] == "ran get_page") is (arguments is FITS)


@pytest.mark.parametrize("arguments", [FITS, REFUSED])
def test_the_openai_responses_snippet(arguments):
    tools = [{"type": "function", "name": "get_page", "parameters": SCHEMA, "strict": False}]
    response = responses.Response(
        id="r", created_at=0, model="m", object="response", parallel_tool_calls=True, tool_choice="auto",
        tools=[], output=[responses.ResponseFunctionToolCall(
            type="function_call", id="fc_1", call_id="call_1", name="get_page", arguments=json.dumps(arguments))])
    done = run_snippet(1, client=Client(response), tools=tools, items=[])
    TypeAdapter(responses.ResponseInputParam).validate_python(done["items"])
    assert done["items"][1]["call_id"] == "call_1"
    assert (done["items"][1]["output"] == "ran get_page") is (arguments is FITS)


@pytest.mark.parametrize("arguments", [FITS, REFUSED])
def test_the_anthropic_snippet(arguments):
    tools = [{"name": "get_page", "input_schema": SCHEMA}]
    message = anthropic_types.Message(
        id="m", type="message", role="assistant", model="m", stop_reason="tool_use", stop_sequence=None,
        usage=anthropic_types.Usage(input_tokens=1, output_tokens=1),
        content=[anthropic_types.ToolUseBlock(type="tool_use", id="toolu_1", name="get_page", input=arguments)])
    done = run_snippet(2, client=Client(message), tools=tools, messages=[])
    TypeAdapter(list[anthropic_types.MessageParam]).validate_python(done["messages"])
    (result,) = done["messages"][1]["content"]
    assert result["tool_use_id"] == "toolu_1"
    assert result.get("is_error", False) is (arguments is REFUSED)


class Session:
    """A stand-in for an initialized `mcp.ClientSession`: one tool, and the calls it got."""

    def __init__(self):
        self.sent = []

    async def list_tools(self, params=None):
        return mcp_types.ListToolsResult(tools=[mcp_types.Tool(name="get_page", input_schema=SCHEMA)])

    async def call_tool(self, name, arguments):
        self.sent.append((name, arguments))
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=f"ran {name}")])


class Budget:
    def __init__(self):
        self.charged = []

    def charge(self, call) -> None:
        self.charged.append(call.id)


@pytest.mark.parametrize("arguments", [FITS, REFUSED])
def test_the_mcp_snippet(arguments):
    session, budget = Session(), Budget()
    code = "async def snippet():\n" + textwrap.indent(snippets()[3], "    ") + "    return outcome\n"
    namespace = {"session": session, "budget": budget, "turn": [{"name": "get_page", "arguments": arguments}]}
    exec(code, namespace)
    outcome = anyio.run(namespace["snippet"])
    assert outcome.sent is (arguments is FITS)
    assert session.sent == ([("get_page", FITS)] if arguments is FITS else [])
    assert budget.charged == (["call_1"] if arguments is FITS else [])
    assert outcome.results[0].is_error is (arguments is REFUSED)


def test_the_readme_lines_for_the_other_formats():
    """They gate a Response and a Message as the formats page does, given the toolset of the
    README's first snippet."""
    response = responses.Response(
        id="r", created_at=0, model="m", object="response", parallel_tool_calls=True, tool_choice="auto",
        tools=[], output=[responses.ResponseFunctionToolCall(
            type="function_call", id="fc_1", call_id="call_1", name="get_page", arguments=json.dumps(REFUSED))])
    message = anthropic_types.Message(
        id="m", type="message", role="assistant", model="m", stop_reason="tool_use", stop_sequence=None,
        usage=anthropic_types.Usage(input_tokens=1, output_tokens=1),
        content=[anthropic_types.ToolUseBlock(type="tool_use", id="toolu_1", name="get_page", input=FITS)])
    toolset = turngate.Toolset({"get_page": SCHEMA})
    namespace = {"response": response, "message": message, "toolset": toolset}
    code = readme_snippets()[1].replace("gated = anthropic", "first = gated\ngated = anthropic")
    exec(code, namespace)
    assert not namespace["first"].ok and namespace["first"].reply[0]["type"] == "function_call_output"
    assert namespace["gated"].ok and namespace["gated"].calls[0].arguments == FITS
