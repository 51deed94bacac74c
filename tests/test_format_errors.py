"""Shapes that are not a format's: one `FormatError` whose text is one sentence naming what
is missing or wrong and where, never another exception. And the turn files: their format
told by their shape."""

from __future__ import annotations

import json

import pytest

from conftest import EXAMPLES
from turngate.formats import (FormatError, anthropic_messages, detect_format, mcp_calls, openai_chat,
                            openai_responses, read_turn)

CALL = {"id": "a", "type": "function", "function": {"name": "get_page", "arguments": "{}"}}


@pytest.mark.parametrize("read, data, sentence", [
    (openai_chat.calls, {"role": "assistant", "tool_calls": [CALL, {"id": "b", "function": {"arguments": "{}"}}]},
     'message.tool_calls[1].function has no "name".'),
    (openai_chat.calls, {"role": "assistant", "tool_calls": [{"function": {"name": "x", "arguments": ""}}]},
     'message.tool_calls[0] has no "id".'),
    (openai_chat.calls, {"role": "assistant", "tool_calls": [{"id": 5, "function": {"name": "x", "arguments": ""}}]},
     "message.tool_calls[0].id is a number, not text."),
    (openai_chat.calls, {"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "x"}}]},
     'message.tool_calls[0].function has no "arguments".'),
    (openai_chat.calls, {"role": "assistant", "tool_calls": {"id": "a"}},
     "message.tool_calls is an object, not a list."),
    (openai_chat.calls, {"role": "user", "content": "Hi."},
     'message.role is "user", but tool calls come in an "assistant" message.'),
    (openai_chat.calls, [CALL], "message is a list, not an object."),
    (openai_chat.tools, [{"type": "function", "function": {"parameters": {}}}], 'tools[0].function has no "name".'),
    (openai_chat.tools, {"get_page": {}}, "tools is an object, not a list."),
    (openai_chat.tools, [{"type": "function", "function": {"name": "x"}}, {"function": {"name": "x"}}],
     'tools[1] offers the tool "x" again, after tools[0].'),
    (openai_responses.calls, [{"type": "function_call", "name": "x", "arguments": "{}"}],
     'output[0] has no "call_id".'),
    (openai_responses.calls, [None], "output[0] is null, not an object."),
    (openai_responses.tools, [{"type": "function", "parameters": {}}], 'tools[0] has no "name".'),
    (anthropic_messages.calls, {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x"}]},
     'message.content[0] has no "input".'),
    (anthropic_messages.calls, {"role": "assistant"}, 'message has no "content".'),
    (anthropic_messages.tools, [{"name": "x", "schema": {}}], 'tools[0] has no "input_schema".'),
    (mcp_calls.tools, {"tools": [{"name": "x", "input_schema": {}}]}, 'tools.tools[0] has no "inputSchema".'),
    (mcp_calls.tools, {"nextCursor": None}, 'tools has no "tools".'),
    (mcp_calls.calls, [{"arguments": {}}], 'calls[0] has no "name".'),
    (mcp_calls.calls, [{"name": "x", "arguments": [1]}], "calls[0].arguments is a list, not an object."),
    (mcp_calls.calls, [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}], 'calls[0].method is not "tools/call".'),
    (mcp_calls.calls, [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {}}}],
     'calls[0].params has no "name".'),
])
def test_a_malformed_shape_is_one_sentence_naming_what_and_where(read, data, sentence):
    with pytest.raises(FormatError) as raised:
        read(data)
    assert str(raised.value) == sentence


@pytest.mark.parametrize("name, expected", [("openai", "openai"), ("responses", "responses"),
                                            ("anthropic", "anthropic"), ("mcp", "mcp")])
def test_each_example_turn_file_is_told_by_its_shape(name, expected):
    data = json.loads((EXAMPLES / f"turn.{name}.json").read_text())
    assert detect_format(data) == expected
    turn = read_turn(data)
    assert turn.format == expected and set(turn.tools) == {"get_page", "update_page_metadata"}
    assert len(turn.calls) == 2


@pytest.mark.parametrize("data, expected", [
    ({"tools": [], "message": {"role": "assistant", "content": None, "tool_calls": None}}, "openai"),
    ({"tools": [{"type": "function", "function": {"name": "x"}}], "message": {"content": "Hi."}}, "openai"),
    ({"tools": [{"name": "x", "input_schema": {}}], "message": {"role": "assistant", "content": "Hi."}}, "anthropic"),
    ({"tools": [], "message": {"content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]}}, "anthropic"),
    ({"tools": [], "output": []}, "responses"),
    ({"tools": {"tools": []}, "calls": []}, "mcp"),
])
def test_the_format_is_told_by_where_the_turn_is_and_else_by_the_tools(data, expected):
    assert detect_format(data) == expected


@pytest.mark.parametrize("data, sentence", [
    ({"tools": []}, 'the turn has none of "message" (OpenAI Chat Completions or Anthropic Messages), '
                    '"output" (OpenAI Responses) or "calls" (MCP).'),
    ({"tools": [], "message": {"content": "Hi."}}, 'the turn\'s "message" has neither "tool_calls" (OpenAI Chat '
                                                  'Completions) nor "tool_use" blocks (Anthropic Messages), and '
                                                  'its "tools" tell neither.'),
])
def test_a_turn_of_no_known_shape_is_one_sentence(data, sentence):
    with pytest.raises(FormatError) as raised:
        read_turn(data)
    assert str(raised.value) == sentence


def test_a_turn_file_without_tools_or_that_is_not_an_object_is_one_sentence():
    with pytest.raises(FormatError, match=r'^the turn has no "tools"\.$'):
        read_turn({"message": {"tool_calls": []}}, "openai")
    with pytest.raises(FormatError, match=r"^the turn is a list, not an object\.$"):
        read_turn([], "mcp")
    with pytest.raises(FormatError, match=r'^the turn has no "output"\.$'):
        read_turn({"tools": []}, "responses")
