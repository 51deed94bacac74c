"""OpenAI Chat Completions: the request's function tools, the tool calls of the assistant
message, and the answers of a refused turn as `tool` messages, one per call id."""

from __future__ import annotations

from ..turn.calls import Call, TurnVerdict
from .shapes import (Place, as_list, assistant_message, list_member, member, object_member,
                     objects, text_member, tool_schemas)

TITLE = "an OpenAI Chat Completions turn"
TURN_KEY = "message"


def tools(data: object) -> dict[str, object]:
    """Tool name -> schema, from a request's `tools`: `{"type": "function", "function":
    {"name", "parameters"}}`. Custom tools take free text, not JSON arguments, so the gate
    is not offered them; a function without `parameters` judges nothing."""
    place = Place("tools")
    named = []
    for tool, at in objects(as_list(data, place), place):
        if tool.get("type", "function") != "function":
            continue
        function = object_member(tool, "function", at)
        named.append((text_member(function, "name", at.key("function")), function.get("parameters"), at))
    return tool_schemas(named)


def calls(message: object) -> tuple[Call, ...]:
    """The calls of an assistant message: `tool_calls[]` with `id`, `function.name` and
    `function.arguments` (the raw JSON text the model wrote). No `tool_calls` is no call."""
    place = Place("message")
    message = assistant_message(message, place)
    found = []
    for call, at in objects(list_member(message, "tool_calls", place, optional=True), place.key("tool_calls")):
        kind = call.get("type", "function")
        if kind != "function":
            # A custom tool call's input is free text: leaving it out would gate half a turn.
            raise at.error(f'is a "{kind}" tool call, and only "function" tool calls can be checked')
        function = object_member(call, "function", at)
        name = text_member(function, "name", at.key("function"))
        found.append(Call(text_member(call, "id", at), name, member(function, "arguments", at.key("function"))))
    return tuple(found)


def answers(verdict: TurnVerdict) -> list[dict]:
    """One `tool` message per call id of a refused turn, in the order of the turn; none for
    a turn that may run."""
    return [{"role": "tool", "tool_call_id": answer.call_id, "content": answer.text}
            for answer in verdict.answers]


#: What the host appends after the assistant message: Chat Completions answers each call
#: with a message of its own.
reply = answers
