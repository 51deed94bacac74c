"""The tool-calling formats of the APIs hosts use, read and answered as plain JSON data (no
SDK is needed): OpenAI Chat Completions (`openai_chat`), the OpenAI Responses API
(`openai_responses`), Anthropic Messages (`anthropic_messages`) and MCP (`mcp_calls`).

Each format's module has `tools(data)` (tool name -> schema, for `engine.Toolset`),
`calls(data)` (the turn's `engine.Call`s, for `engine.check_turn`), `answers(verdict)`
(each call id's answer of a refused turn, in the format's shape) and `reply(verdict)` (what
the host sends back for a refused turn). A shape that is not the format's raises
`FormatError`, whose text is one sentence naming what is missing and where.

A turn file holds the tools offered and the model's turn, in the format's own shapes:
`{"tools": [...], "message": {...}}` (OpenAI Chat Completions, Anthropic Messages),
`{"tools": [...], "output": [...]}` (OpenAI Responses) and `{"tools": <tools/list result>,
"calls": [<tools/call params>, ...]}` (MCP).
"""

from __future__ import annotations

from types import ModuleType
from collections.abc import Mapping
from typing import Any

from attrs import field, frozen

from ..values.converters import as_tuple
from ..turn.calls import Call
from ..values.shapes import FormatError, Place, as_object, member
from . import anthropic_messages, mcp_calls, openai_chat, openai_responses

#: The formats by the name `--format` takes.
FORMATS: dict[str, ModuleType] = {
    "openai": openai_chat,
    "responses": openai_responses,
    "anthropic": anthropic_messages,
    "mcp": mcp_calls,
}

__all__ = ["FORMATS", "FormatError", "Turn", "detect_format", "read_turn", "anthropic_messages",
           "mcp_calls", "openai_chat", "openai_responses"]


@frozen
class Turn:
    """A turn file read: its format's name, the tools offered (name -> schema), the calls."""

    format: str
    tools: Mapping[str, object]
    calls: tuple[Call, ...] = field(converter=as_tuple)


def read_turn(data: object, format: str = "auto") -> Turn:
    """A turn file's data read as `format`, or as the format its shape shows ("auto")."""
    place = Place("the turn")
    data = as_object(data, place)
    name = detect_format(data) if format == "auto" else format
    if name not in FORMATS:
        raise ValueError(f"there is no format {name!r}; the formats are {', '.join(FORMATS)} and auto")
    shape = FORMATS[name]
    offered = shape.tools(member(data, "tools", place))
    return Turn(name, offered, shape.calls(member(data, shape.TURN_KEY, place)))


def detect_format(turn: Mapping[str, Any]) -> str:
    """The format of a turn file, from its shape: the key that holds the model's turn, and
    for a "message" its tool calls, or else the tools offered."""
    if "calls" in turn:
        return "mcp"
    if "output" in turn:
        return "responses"
    if "message" not in turn:
        raise FormatError('the turn has none of "message" (OpenAI Chat Completions or Anthropic '
                          'Messages), "output" (OpenAI Responses) or "calls" (MCP).')
    message, tools = turn["message"], turn.get("tools")
    if isinstance(message, Mapping):
        if "tool_calls" in message:
            return "openai"
        if isinstance(message.get("content"), list) and any(
                isinstance(block, Mapping) and block.get("type") == "tool_use" for block in message["content"]):
            return "anthropic"
    tools = tools if isinstance(tools, list) else []
    if any(isinstance(tool, Mapping) and "function" in tool for tool in tools):
        return "openai"
    if any(isinstance(tool, Mapping) and "input_schema" in tool for tool in tools):
        return "anthropic"
    raise FormatError('the turn\'s "message" has neither "tool_calls" (OpenAI Chat Completions) '
                      'nor "tool_use" blocks (Anthropic Messages), and its "tools" tell neither.')
