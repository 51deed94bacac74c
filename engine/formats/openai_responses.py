"""The OpenAI Responses API: function tools, the `function_call` items of a response's
output, and the answers of a refused turn as `function_call_output` items."""

from __future__ import annotations

from typing import Mapping

from ..turn.calls import Call, TurnVerdict
from .shapes import Place, as_list, member, objects, text_member, tool_schemas

TITLE = "an OpenAI Responses turn"
TURN_KEY = "output"


def tools(data: object) -> dict[str, object]:
    """Tool name -> schema, from a request's `tools`: `{"type": "function", "name",
    "parameters"}`. Built-in tools (web search, file search, ...) run at OpenAI and custom
    tools take free text, so the gate is not offered them."""
    place = Place("tools")
    named = [(text_member(tool, "name", at), tool.get("parameters"), at)
             for tool, at in objects(as_list(data, place), place) if tool.get("type") == "function"]
    return tool_schemas(named)


def calls(output: object) -> tuple[Call, ...]:
    """The calls of a response: its `function_call` items, with `call_id`, `name` and
    `arguments` (the raw JSON text the model wrote). `output` is the list of output items,
    or the whole response holding it. Other items (messages, reasoning, built-in tool
    calls) are not calls the host runs."""
    place = Place("output")
    if isinstance(output, Mapping) and "output" in output:
        output = output["output"]
    found = []
    for item, at in objects(as_list(output, place), place):
        kind = item.get("type")
        if kind == "custom_tool_call":
            # Its input is free text: leaving it out would gate half a turn.
            raise at.error('is a "custom_tool_call", and only "function_call" items can be checked')
        if kind == "function_call":
            found.append(Call(text_member(item, "call_id", at), text_member(item, "name", at),
                              member(item, "arguments", at)))
    return tuple(found)


def answers(verdict: TurnVerdict) -> list[dict]:
    """One `function_call_output` item per call id of a refused turn, in the order of the
    turn; none for a turn that may run."""
    return [{"type": "function_call_output", "call_id": answer.call_id, "output": answer.text}
            for answer in verdict.answers]


#: What the host sends as the next input: every call is answered by an item of its own.
reply = answers
