"""OpenAI Chat Completions: the request's function tools, the tool calls of the assistant
message, and the answers of a refused turn as `tool` messages, one per call id."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from ..turn.calls import Call, TurnVerdict
from ..turn.gate import Toolset
from ..turn.tools import openai_chat_tools
from ..values.quoting import quote_any
from ..values.shapes import (
    Place,
    assistant_message,
    list_member,
    member,
    object_member,
    objects,
    plain_data,
    text_member,
)
from .gating import gated

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionToolMessageParam

    from ..turn.calls import TextIdCall
    from .gating import Passed, Refused

#: What `gate` returns: `Passed` (run `calls`) or `Refused` (append `reply`, a list of the
#: SDK's `ChatCompletionToolMessageParam`); call ids are the text the model sent.
ChatGated: TypeAlias = "Passed[TextIdCall, list[ChatCompletionToolMessageParam]] | Refused[TextIdCall, list[ChatCompletionToolMessageParam]]"

TITLE = "an OpenAI Chat Completions turn"
TURN_KEY = "message"


#: Tool name -> schema, from the tools in this format's shape (see `turn.tools`).
tools = openai_chat_tools


def calls(message: object) -> tuple[TextIdCall, ...]:
    """The calls of an assistant message: `tool_calls[]` with `id`, `function.name` and
    `function.arguments` (the raw JSON text the model wrote). No `tool_calls` is no call."""
    message = plain_data(message)
    place = Place("message")
    message = assistant_message(message, place)
    found = []
    for call, at in objects(list_member(message, "tool_calls", place, optional=True), place.key("tool_calls")):
        kind = call.get("type", "function")
        if kind != "function":
            # A custom tool call's input is free text: leaving it out would gate half a turn.
            raise at.error(f'is a {quote_any(kind, 40)} tool call, and only "function" tool calls can be checked')
        function = object_member(call, "function", at)
        name = text_member(function, "name", at.key("function"))
        found.append(Call(text_member(call, "id", at), name, member(function, "arguments", at.key("function"))))
    return tuple(found)  # type: ignore[arg-type]  # each id read as text


def answers(verdict: TurnVerdict) -> list[ChatCompletionToolMessageParam]:
    """One `tool` message per call id of a refused turn, in the order of the turn; none for
    a turn that may run."""
    return [{"role": "tool", "tool_call_id": answer.call_id, "content": answer.text}  # type: ignore[typeddict-item]
            for answer in verdict.answers]


#: What the host appends after the assistant message: Chat Completions answers each call
#: with a message of its own.
reply = answers


def gate(message: object, toolset: Toolset) -> ChatGated:
    """The assistant message (as the SDK returns it, or plain data) gated as one turn:
    `calls` to run, or `reply` to append after it (a `tool` message per call id)."""
    return gated(calls(message), reply, toolset)
