"""The tools offered, read from what a host has at hand: a mapping of tool name to schema, or
the tools as an SDK is given them or returns them (OpenAI Chat Completions, OpenAI
Responses, Anthropic Messages, MCP `tools/list`), as plain data or as the SDK's objects,
told apart by their shape. Each format's module reads its own shape with these functions."""

from __future__ import annotations

from typing import Any, Callable

from collections.abc import Mapping

from ..values.shapes import (
    Place,
    as_list,
    described,
    member,
    object_member,
    objects,
    plain_data,
    text_member,
    tool_schemas,
)

ACCEPTED = ("a mapping of tool name to schema, or the tools as OpenAI Chat Completions, OpenAI "
            "Responses, Anthropic or MCP give them (a list, or an MCP tools/list result; plain data "
            "or the SDK's objects)")


def offered_tools(tools: object) -> dict[str, object]:
    """Tool name -> schema, from any of the shapes above; `TypeError` for anything else, and
    `FormatError` for a list of one shape with a tool that is not well formed."""
    data = plain_data(tools)
    if isinstance(data, Mapping):
        if _is_tools_list_result(data):
            return mcp_tools(data)
        return dict(data)
    if isinstance(data, (list, tuple)):
        reader = _reader_for(data)
        if reader is not None:
            return reader(data)
        if not data:
            return {}
    raise TypeError(f"a toolset is made of {ACCEPTED}; this is {_described(tools)}.")


def _is_tools_list_result(data: Mapping[str, Any]) -> bool:
    """Whether a mapping is an MCP `tools/list` result rather than tool names and schemas: its
    "tools" lists tools (objects with a "name" and an "inputSchema"), and none of its other
    members could be a schema (an object or a boolean) but `_meta`. A tool may be named
    "tools": its schema is then an object or a boolean, or, where it is a list, other tools
    sit beside it."""
    listed = data.get("tools")
    if not isinstance(listed, (list, tuple)) or not all(
            isinstance(tool, Mapping) and "name" in tool and "inputSchema" in tool for tool in listed):
        return False
    return not any(isinstance(value, (Mapping, bool)) for key, value in data.items() if key not in ("tools", "_meta"))


def _reader_for(tools: list[Any] | tuple[Any, ...]) -> Callable[[Any], dict[str, object]] | None:
    """The reader of a list's shape, from the first tool that tells it."""
    for tool in tools:
        if not isinstance(tool, Mapping):
            return None
        if "function" in tool:
            return openai_chat_tools
        if "input_schema" in tool:
            return anthropic_tools
        if "inputSchema" in tool:
            return mcp_tools
        if tool.get("type") == "function" and "name" in tool:
            return openai_responses_tools
    return None


def _described(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)} that no tools shape fits"
    return described(value)


def openai_chat_tools(data: object) -> dict[str, object]:
    """From a Chat Completions request's `tools`: `{"type": "function", "function": {"name",
    "parameters"}}`. Custom tools take free text, not JSON arguments, so the gate is not
    offered them; a function without `parameters` judges nothing."""
    place = Place("tools")
    named = []
    for tool, at in objects(as_list(data, place), place):
        if tool.get("type", "function") != "function":
            continue
        function = object_member(tool, "function", at)
        named.append((text_member(function, "name", at.key("function")), function.get("parameters"), at))
    return tool_schemas(named)


def openai_responses_tools(data: object) -> dict[str, object]:
    """From a Responses request's `tools`: `{"type": "function", "name", "parameters"}`.
    Built-in tools (web search, file search, ...) run at OpenAI and custom tools take free
    text, so the gate is not offered them."""
    place = Place("tools")
    named = [(text_member(tool, "name", at), tool.get("parameters"), at)
             for tool, at in objects(as_list(data, place), place) if tool.get("type") == "function"]
    return tool_schemas(named)


def anthropic_tools(data: object) -> dict[str, object]:
    """From a Messages request's `tools`: `{"name", "input_schema"}`. A tool of a built-in
    type (`bash_20250124`, `text_editor_...`) has its schema at Anthropic, so it is offered
    judging nothing; one without a name (an MCP toolset) is not the host's to run."""
    place = Place("tools")
    named = []
    for tool, at in objects(as_list(data, place), place):
        if tool.get("type", "custom") in ("custom", None):
            named.append((text_member(tool, "name", at), member(tool, "input_schema", at), at))
        elif isinstance(tool.get("name"), str):
            named.append((tool["name"], None, at))
    return tool_schemas(named)


def mcp_tools(data: object) -> dict[str, object]:
    """From a `tools/list` result (`{"tools": [{"name", "inputSchema"}]}`) or its list of
    tools; an SDK's result is read as dumped with `by_alias=True`."""
    place = Place("tools")
    if isinstance(data, Mapping):
        place = place.key("tools")
        data = member(data, "tools", Place("tools"))
    named = [(text_member(tool, "name", at), member(tool, "inputSchema", at), at)
             for tool, at in objects(as_list(data, place), place)]
    return tool_schemas(named)
