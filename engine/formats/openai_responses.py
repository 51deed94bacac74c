"""The OpenAI Responses API: function tools, the `function_call` items of a response's
output, and the answers of a refused turn as `function_call_output` items."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from collections.abc import Mapping

from ..turn.calls import Call, TurnVerdict
from ..turn.gate import Toolset
from ..turn.tools import openai_responses_tools
from ..values.shapes import Place, as_list, member, objects, plain_data, text_member
from .gating import gated

if TYPE_CHECKING:
    from openai.types.responses.response_input_param import FunctionCallOutput

    from ..turn.calls import TextIdCall
    from .gating import Passed, Refused

#: What `gate` returns: `Passed` (run `calls`) or `Refused` (send `reply`, a list of the SDK's
#: `FunctionCallOutput` input items); call ids are the text the model sent.
ResponsesGated: TypeAlias = "Passed[TextIdCall, list[FunctionCallOutput]] | Refused[TextIdCall, list[FunctionCallOutput]]"

TITLE = "an OpenAI Responses turn"
TURN_KEY = "output"


#: Tool name -> schema, from the tools in this format's shape (see `turn.tools`).
tools = openai_responses_tools


def calls(output: object) -> tuple[TextIdCall, ...]:
    """The calls of a response: its `function_call` items, with `call_id`, `name` and
    `arguments` (the raw JSON text the model wrote). `output` is the list of output items,
    or the whole response holding it. Other items (messages, reasoning, built-in tool
    calls) are not calls the host runs."""
    output = plain_data(output)
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
    return tuple(found)  # type: ignore[arg-type]  # each id read as text


def answers(verdict: TurnVerdict) -> list[FunctionCallOutput]:
    """One `function_call_output` item per call id of a refused turn, in the order of the
    turn; none for a turn that may run."""
    return [{"type": "function_call_output", "call_id": answer.call_id, "output": answer.text}  # type: ignore[typeddict-item]
            for answer in verdict.answers]


#: What the host sends as the next input: every call is answered by an item of its own.
reply = answers


def gate(output: object, toolset: Toolset) -> ResponsesGated:
    """A response's output (the SDK's `Response`, its `output`, or plain data) gated as one
    turn: `calls` to run, or `reply` to send as the next input (a `function_call_output` per
    call)."""
    return gated(calls(output), reply, toolset)
