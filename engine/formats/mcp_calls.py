"""MCP: the tools of a `tools/list` result, the params of `tools/call` requests, and the
answers of a refused turn as `CallToolResult`s with `isError` and text content.

A `tools/call` has no call id of its own, but the gate answers each call by id and refuses
a turn whose ids repeat. A call given as a whole JSON-RPC request is known by the request's
id; one given as bare params is known by its place in the turn: "call_1", "call_2", ...
"""

from __future__ import annotations

from typing import Mapping

from ..turn.calls import Call, TurnVerdict
from .shapes import Place, as_list, as_object, member, object_member, objects, text_member, tool_schemas

TITLE = "an MCP turn"
TURN_KEY = "calls"


def tools(data: object) -> dict[str, object]:
    """Tool name -> schema, from a `tools/list` result (`{"tools": [{"name", "inputSchema"}]}`)
    or its list of tools. The result of an SDK is read as dumped with `by_alias=True`."""
    place = Place("tools")
    if isinstance(data, Mapping):
        place = place.key("tools")
        data = member(data, "tools", Place("tools"))
    named = [(text_member(tool, "name", at), member(tool, "inputSchema", at), at)
             for tool, at in objects(as_list(data, place), place)]
    return tool_schemas(named)


def position_id(number: int) -> str:
    """The id of the call at `number` (from 1) in a turn of calls given without ids."""
    return f"call_{number}"


def calls(data: object) -> tuple[Call, ...]:
    """The calls of a turn: each the params of a `tools/call` (`{"name", "arguments"}`), the
    whole JSON-RPC request, or an `engine.Call` (taken as it is). Absent or null arguments
    are no arguments."""
    place = Place("calls")
    found = []
    for number, item in enumerate(as_list(data, place), 1):
        if isinstance(item, Call):
            found.append(item)
            continue
        at = place.index(number - 1)
        item, call_id = as_object(item, at), position_id(number)
        if "method" in item:
            if item["method"] != "tools/call":
                raise at.key("method").error('is not "tools/call"')
            call_id = item.get("id", call_id)
            item, at = object_member(item, "params", at), at.key("params")
        name = text_member(item, "name", at)
        arguments = item.get("arguments")
        found.append(Call(call_id, name, {} if arguments is None else as_object(arguments, at.key("arguments"))))
    return tuple(found)


def answers(verdict: TurnVerdict) -> list[dict]:
    """One `CallToolResult` per call id of a refused turn, in the order of the turn; none
    for a turn that may run."""
    return [{"content": [{"type": "text", "text": answer.text}], "isError": True}
            for answer in verdict.answers]


#: What the host returns for the turn's `tools/call` requests, one result each.
reply = answers
