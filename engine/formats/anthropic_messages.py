"""Anthropic Messages: the request's tools, the `tool_use` blocks of the assistant message,
and the answers of a refused turn as `tool_result` blocks with `is_error`, in one user
message."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from ..turn.calls import Call, TurnVerdict
from ..turn.gate import Toolset
from ..turn.tools import anthropic_tools
from ..values.shapes import Place, as_list, assistant_message, member, objects, plain_data, text_member
from .gating import gated

if TYPE_CHECKING:
    from anthropic.types import ToolResultBlockParam, UserMessageParam

    from ..turn.calls import TextIdCall
    from .gating import Passed, Refused

#: What `gate` returns: `Passed` (run `calls`) or `Refused` (send `reply`, the SDK's
#: `UserMessageParam`: a user message of `tool_result` blocks); call ids are the text the model sent.
AnthropicGated: TypeAlias = "Passed[TextIdCall, UserMessageParam] | Refused[TextIdCall, UserMessageParam]"

TITLE = "an Anthropic Messages turn"
TURN_KEY = "message"


#: Tool name -> schema, from the tools in this format's shape (see `turn.tools`).
tools = anthropic_tools


def calls(message: object) -> tuple[TextIdCall, ...]:
    """The calls of an assistant message: its `tool_use` content blocks, with `id`, `name`
    and `input`. Text content, thinking and server tool uses are not calls the host runs."""
    message = plain_data(message)
    place = Place("message")
    message = assistant_message(message, place)
    content = member(message, "content", place)
    if isinstance(content, str):
        return ()
    found = []
    for block, at in objects(as_list(content, place.key("content")), place.key("content")):
        if block.get("type") == "tool_use":
            found.append(Call(text_member(block, "id", at), text_member(block, "name", at),
                              member(block, "input", at)))
    return tuple(found)  # type: ignore[arg-type]  # each id read as text


def answers(verdict: TurnVerdict) -> list[ToolResultBlockParam]:
    """One `tool_result` block with `is_error` per call id of a refused turn, in the order
    of the turn; none for a turn that may run."""
    return [{"type": "tool_result", "tool_use_id": answer.call_id, "content": answer.text,  # type: ignore[typeddict-item]
             "is_error": True} for answer in verdict.answers]


def reply(verdict: TurnVerdict) -> UserMessageParam:
    """The user message that answers a refused turn: every `tool_use` block of the
    assistant message is answered in the next user message, by its `tool_result` block."""
    return {"role": "user", "content": answers(verdict)}


def gate(message: object, toolset: Toolset) -> AnthropicGated:
    """The assistant message (as the SDK returns it, or plain data) gated as one turn:
    `calls` to run, or `reply`, the user message of `tool_result` blocks to send next."""
    return gated(calls(message), reply, toolset)
