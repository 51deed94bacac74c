"""The tool-calling formats, read and answered as plain data: every input is built with the
real SDK's types and dumped, and every answer is parsed back with the SDK's types, so the
shapes are the SDKs', not our guesses."""

from __future__ import annotations

import json

import pytest
from anthropic import types as anthropic_types
from mcp import types as mcp_types
from openai.types import chat, responses
from openai.types.responses.response_input_param import FunctionCallOutput
from pydantic import TypeAdapter

from conftest import EXAMPLES
from turngate import Toolset, check_turn
from turngate.formats import FORMATS, FormatError, anthropic_messages, mcp_calls, openai_chat, openai_responses

GET = json.loads((EXAMPLES / "get_page.schema.json").read_text())
UPDATE = json.loads((EXAMPLES / "update_page_metadata.schema.json").read_text())
SCHEMAS = {"get_page": GET, "update_page_metadata": UPDATE}
GOOD_GET = {"uid": 42, "language": "de"}
BAD_UPDATE = {"uid": 42, "status": "archived", "fields": {"titel": "Opening hours"}}


def typed_dict(param_type, data: dict) -> dict:
    """`data` checked as an SDK's TypedDict: parsed by it, and no key it does not declare
    (a TypedDict parse ignores unknown keys)."""
    assert set(data) <= set(param_type.__annotations__), set(data) - set(param_type.__annotations__)
    return TypeAdapter(param_type).validate_python(data)


def chat_message(*calls: tuple[str, str, object]) -> dict:
    tool_calls = [chat.ChatCompletionMessageFunctionToolCall(
        id=call_id, type="function", function={"name": name, "arguments": json.dumps(arguments)})
        for call_id, name, arguments in calls]
    return chat.ChatCompletionMessage(role="assistant", content=None, tool_calls=tool_calls).model_dump()


def anthropic_message(*blocks) -> dict:
    return anthropic_types.Message(
        id="msg_1", type="message", role="assistant", model="claude-x", content=list(blocks),
        stop_reason="tool_use", stop_sequence=None,
        usage=anthropic_types.Usage(input_tokens=1, output_tokens=1)).model_dump()


def tool_use(call_id: str, name: str, arguments: object):
    return anthropic_types.ToolUseBlock(type="tool_use", id=call_id, name=name, input=arguments)


def mcp_dump(model) -> dict:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


# OpenAI Chat Completions

def test_openai_chat_tools_and_calls_are_read_from_the_sdk_shapes():
    tools = [chat.ChatCompletionFunctionTool(type="function", function={"name": name, "parameters": schema}).model_dump()
             for name, schema in SCHEMAS.items()]
    tools.append({"type": "custom", "custom": {"name": "grammar", "format": {"type": "text"}}})
    assert openai_chat.tools(tools) == SCHEMAS
    message = chat_message(("call_a", "get_page", GOOD_GET), ("call_b", "update_page_metadata", BAD_UPDATE))
    calls = openai_chat.calls(message)
    assert [(c.id, c.tool, c.arguments) for c in calls] == [
        ("call_a", "get_page", json.dumps(GOOD_GET)), ("call_b", "update_page_metadata", json.dumps(BAD_UPDATE))]
    assert openai_chat.calls(chat.ChatCompletionMessage(role="assistant", content="Hello.").model_dump()) == ()


def test_openai_chat_answers_are_tool_messages_the_sdk_takes():
    message = chat_message(("call_a", "get_page", GOOD_GET), ("call_b", "update_page_metadata", BAD_UPDATE))
    verdict = check_turn(openai_chat.calls(message), SCHEMAS)
    answers = openai_chat.reply(verdict)
    assert [a["tool_call_id"] for a in answers] == ["call_a", "call_b"]
    assert [a["content"] for a in answers] == [a.text for a in verdict.answers]
    for answer in answers:
        typed_dict(chat.ChatCompletionToolMessageParam, answer)
    conversation = [chat.ChatCompletionMessage.model_validate(message).model_dump(exclude_none=True), *answers]
    TypeAdapter(list[chat.ChatCompletionMessageParam]).validate_python(conversation)


def test_a_custom_tool_call_cannot_be_left_out_of_the_turn():
    message = chat.ChatCompletionMessage(role="assistant", tool_calls=[
        chat.ChatCompletionMessageFunctionToolCall(id="a", type="function", function={"name": "get_page", "arguments": "{}"}),
        chat.ChatCompletionMessageCustomToolCall(id="b", type="custom", custom={"name": "grammar", "input": "x"}),
    ]).model_dump()
    with pytest.raises(FormatError) as raised:
        openai_chat.calls(message)
    assert str(raised.value) == ('message.tool_calls[1] is a "custom" tool call, and only "function" tool calls '
                                 'can be checked.')


# OpenAI Responses

def test_openai_responses_tools_and_function_calls_are_read_from_a_response():
    tools = [responses.FunctionTool(type="function", name=name, parameters=schema, strict=False).model_dump()
             for name, schema in SCHEMAS.items()]
    tools.append(responses.WebSearchTool(type="web_search").model_dump())
    assert openai_responses.tools(tools) == SCHEMAS
    output = [
        responses.ResponseReasoningItem(id="rs_1", type="reasoning", summary=[]),
        responses.ResponseFunctionToolCall(type="function_call", id="fc_1", call_id="call_a", name="get_page",
                                           arguments=json.dumps(GOOD_GET), status="completed"),
        responses.ResponseFunctionToolCall(type="function_call", id="fc_2", call_id="call_b",
                                           name="update_page_metadata", arguments=json.dumps(BAD_UPDATE)),
    ]
    response = responses.Response(id="resp_1", created_at=0, model="gpt-x", object="response", output=output,
                                  parallel_tool_calls=True, tool_choice="auto", tools=[]).model_dump()
    calls = openai_responses.calls(response)
    assert [(c.id, c.tool) for c in calls] == [("call_a", "get_page"), ("call_b", "update_page_metadata")]
    assert openai_responses.calls(response["output"]) == calls


def test_openai_responses_answers_are_function_call_outputs_the_sdk_takes():
    output = [responses.ResponseFunctionToolCall(type="function_call", call_id="call_b", name="update_page_metadata",
                                                 arguments=json.dumps(BAD_UPDATE)).model_dump()]
    verdict = check_turn(openai_responses.calls(output), SCHEMAS)
    (answer,) = openai_responses.reply(verdict)
    assert answer == {"type": "function_call_output", "call_id": "call_b", "output": verdict.answers[0].text}
    typed_dict(FunctionCallOutput, answer)
    sent_back = [{k: v for k, v in item.items() if v is not None} for item in output]
    TypeAdapter(responses.ResponseInputParam).validate_python([*sent_back, answer])


def test_a_custom_tool_call_item_cannot_be_left_out_of_the_turn():
    item = responses.ResponseCustomToolCall(type="custom_tool_call", call_id="c", name="grammar", input="x")
    with pytest.raises(FormatError, match=r'^output\[0\] is a "custom_tool_call", and only "function_call" items'):
        openai_responses.calls([item.model_dump()])


# Anthropic Messages

def test_anthropic_tools_and_tool_use_blocks_are_read_from_the_sdk_shapes():
    tools = [typed_dict(anthropic_types.ToolParam, {"name": name, "input_schema": schema})
             for name, schema in SCHEMAS.items()]
    tools.append(typed_dict(anthropic_types.ToolBash20250124Param, {"type": "bash_20250124", "name": "bash"}))
    assert anthropic_messages.tools(tools) == {**SCHEMAS, "bash": None}
    message = anthropic_message(
        anthropic_types.TextBlock(type="text", text="Reading the page first."),
        tool_use("toolu_a", "get_page", GOOD_GET),
        anthropic_types.ServerToolUseBlock(type="server_tool_use", id="srvtoolu_1", name="web_search", input={}),
        tool_use("toolu_b", "update_page_metadata", BAD_UPDATE))
    calls = anthropic_messages.calls(message)
    assert [(c.id, c.tool, c.arguments) for c in calls] == [
        ("toolu_a", "get_page", GOOD_GET), ("toolu_b", "update_page_metadata", BAD_UPDATE)]
    assert anthropic_messages.calls({"role": "assistant", "content": "Just text."}) == ()


def test_anthropic_answers_are_error_tool_results_in_one_user_message():
    message = anthropic_message(tool_use("toolu_a", "get_page", GOOD_GET),
                                tool_use("toolu_b", "update_page_metadata", BAD_UPDATE))
    verdict = check_turn(anthropic_messages.calls(message), SCHEMAS)
    reply = anthropic_messages.reply(verdict)
    assert reply["role"] == "user"
    assert [(b["tool_use_id"], b["is_error"]) for b in reply["content"]] == [("toolu_a", True), ("toolu_b", True)]
    for block in reply["content"]:
        typed_dict(anthropic_types.ToolResultBlockParam, block)
    typed_dict(anthropic_types.UserMessageParam, reply)
    assistant = anthropic_types.Message.model_validate(message)
    TypeAdapter(list[anthropic_types.MessageParam]).validate_python(
        [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in assistant.content]}, reply])


# MCP

def test_mcp_tools_and_calls_are_read_from_the_sdk_shapes():
    listed = mcp_types.ListToolsResult(tools=[mcp_types.Tool(name=name, input_schema=schema)
                                              for name, schema in SCHEMAS.items()])
    assert mcp_calls.tools(mcp_dump(listed)) == SCHEMAS
    assert mcp_calls.tools(mcp_dump(listed)["tools"]) == SCHEMAS
    params = [mcp_dump(mcp_types.CallToolRequestParams(name="get_page", arguments=GOOD_GET)),
              mcp_dump(mcp_types.CallToolRequestParams(name="get_page"))]
    calls = mcp_calls.calls(params)
    assert [(c.id, c.tool, c.arguments) for c in calls] == [("call_1", "get_page", GOOD_GET), ("call_2", "get_page", {})]


def test_mcp_calls_given_as_json_rpc_requests_are_known_by_their_request_ids():
    request = mcp_types.JSONRPCRequest(jsonrpc="2.0", id=7, method="tools/call", params=mcp_dump(
        mcp_types.CallToolRequestParams(name="get_page", arguments=GOOD_GET)))
    calls = mcp_calls.calls([mcp_dump(request), {"name": "get_page", "arguments": {"uid": 1}}])
    assert [(c.id, c.tool) for c in calls] == [(7, "get_page"), ("call_2", "get_page")]


def test_mcp_answers_are_error_call_tool_results_the_sdk_takes():
    calls = mcp_calls.calls([{"name": "get_page", "arguments": GOOD_GET},
                             {"name": "update_page_metadata", "arguments": BAD_UPDATE}])
    verdict = check_turn(calls, SCHEMAS)
    results = [mcp_types.CallToolResult.model_validate(answer) for answer in mcp_calls.reply(verdict)]
    assert [(r.is_error, r.content[0].type, r.content[0].text) for r in results] == [
        (True, "text", answer.text) for answer in verdict.answers]
    assert mcp_calls.reply(verdict)[0] == {"content": [{"type": "text", "text": verdict.answers[0].text}],
                                           "isError": True}


# Every format

@pytest.mark.parametrize("name", FORMATS)
def test_a_turn_that_fits_has_nothing_to_answer_in_any_format(name):
    assert FORMATS[name].answers(check_turn([], SCHEMAS)) == []


def test_the_answers_in_each_format(snapshot):
    """The same refused turn, answered in each format's own shape."""
    turns = {
        "openai": openai_chat.calls(chat_message(("call_a", "get_page", GOOD_GET),
                                                 ("call_b", "update_page_metadata", BAD_UPDATE))),
        "responses": openai_responses.calls([
            {"type": "function_call", "call_id": "call_a", "name": "get_page", "arguments": json.dumps(GOOD_GET)},
            {"type": "function_call", "call_id": "call_b", "name": "update_page_metadata",
             "arguments": '{"uid": 42, "fields": {"title": "Opening'}]),
        "anthropic": anthropic_messages.calls(anthropic_message(
            tool_use("toolu_a", "get_page", GOOD_GET), tool_use("toolu_b", "get_pages", {"uid": 42}))),
        "mcp": mcp_calls.calls([{"name": "get_page", "arguments": GOOD_GET},
                                {"name": "update_page_metadata", "arguments": BAD_UPDATE}]),
    }
    toolset = Toolset(SCHEMAS)
    replies = {name: FORMATS[name].reply(check_turn(calls, toolset)) for name, calls in turns.items()}
    assert replies == snapshot
