"""MCP: the tools of a `tools/list` result, the params of `tools/call` requests, and the
answers of a refused turn as `CallToolResult`s with `isError` and text content.

A `tools/call` has no call id of its own, but the gate answers each call by id and refuses
a turn whose ids repeat. A call given as a whole JSON-RPC request is known by the request's
id; one given as bare params is known by its place in the turn: "call_1", "call_2", ...
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypedDict

from ..turn.calls import Call, TurnVerdict
from ..turn.gate import Toolset
from ..turn.tools import mcp_tools
from ..values.shapes import Place, as_list, as_object, object_member, plain_data, text_member
from .gating import gated

if TYPE_CHECKING:
    from .gating import Passed, Refused


class TextContent(TypedDict):
    """A text content block of an MCP tool result."""

    type: Literal["text"]
    text: str


class ToolResult(TypedDict):
    """An MCP `CallToolResult` as plain data (what `mcp.types.CallToolResult` validates): the
    answer of one refused call, marked `isError`."""

    content: list[TextContent]
    isError: bool


#: What `gate` returns: `Passed` (send `calls` to the server) or `Refused` (answer each
#: `tools/call` with its `ToolResult` in `reply`); ids are the requests' own (any JSON value).
McpGated: TypeAlias = "Passed[Call, list[ToolResult]] | Refused[Call, list[ToolResult]]"

TITLE = "an MCP turn"
TURN_KEY = "calls"


#: Tool name -> schema, from the tools in this format's shape (see `turn.tools`).
tools = mcp_tools


def position_id(number: int) -> str:
    """The id of the call at `number` (from 1) in a turn of calls given without ids."""
    return f"call_{number}"


def calls(data: object) -> tuple[Call, ...]:
    """The calls of a turn: each the params of a `tools/call` (`{"name", "arguments"}`), the
    whole JSON-RPC request, or an `engine.Call` (taken as it is). Absent or null arguments
    are no arguments."""
    data = plain_data(data)
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
        found.append(Call(call_id, name, {} if arguments is None else as_object(arguments, at.key("arguments"))))  # type: ignore[arg-type]
    return tuple(found)


def answers(verdict: TurnVerdict) -> list[ToolResult]:
    """One `CallToolResult` per call id of a refused turn, in the order of the turn; none
    for a turn that may run."""
    return [{"content": [{"type": "text", "text": answer.text}], "isError": True}
            for answer in verdict.answers]


#: What the host returns for the turn's `tools/call` requests, one result each.
reply = answers


def gate(turn: object, toolset: Toolset) -> McpGated:
    """A turn of `tools/call` params (or JSON-RPC requests, or `Call`s) gated as one: `calls`
    to send to the server, or `reply`, a `CallToolResult` per call (nothing was sent)."""
    return gated(calls(turn), reply, toolset)
