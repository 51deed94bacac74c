"""What the CrewAI gate (`turngate.integrations.crewai`) hands the executor of a turn, and
what it puts back: a refused turn's calls as CrewAI runs them through its tool hooks, each
answer's text for the hooks, and the model's calls and answers as the model is shown them
again; a fitting turn's calls with their casts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from turngate import CallAnswer, TurnVerdict
from turngate.extras import missing_extra

try:
    from crewai.utilities.string_utils import sanitize_tool_name
except ImportError as error:  # the extra is missing, or of a release it does not allow
    raise missing_extra("crewai", __name__, error) from error

__all__ = ["RefusedTurn", "cast_calls", "final_answer_tools", "hand_over"]

#: A call read as CrewAI reads it: the object, and its (call id, tool name, arguments).
ReadCall = tuple[Any, tuple[str, str, Any]]
REFUSED_NAME = "turngate_refused_call_{}"


@dataclass
class RefusedTurn:
    """A refused turn on its way through CrewAI: the answers by call id, what the model sent
    where CrewAI was handed something else (name and arguments, by call id), and each answer's
    text by the name and arguments the tool hooks see."""

    answers: dict[str, CallAnswer]
    sent: dict[str, tuple[str, str]] = field(default_factory=dict)
    texts: dict[tuple[str, str], str] = field(default_factory=dict)

    def text_for(self, tool_name: str, tool_input: object) -> str | None:
        return self.texts.get((tool_name, canonical(tool_input)))

    def settle(self, messages: list[Any]) -> bool:
        """Put the model's calls back as it sent them, and each call id's answer in its tool
        message (in place: CrewAI's own record of the turn changes with it). Whether the
        turn was found."""
        found = False
        for message in messages:
            if message.get("role") == "assistant":
                for call in message.get("tool_calls") or ():
                    sent = self.sent.get(call.get("id"))
                    if sent is not None:
                        call["function"]["name"], call["function"]["arguments"] = sent
                        found = True
            elif message.get("role") == "tool" and message.get("tool_call_id") in self.answers:
                call_id = message["tool_call_id"]
                message["content"] = self.answers[call_id].text
                message["name"] = self.sent.get(call_id, (message.get("name"),))[0]
                found = True
        return found



def hand_over(verdict: TurnVerdict, read: Sequence[ReadCall],
              final_answer_names: set[str]) -> tuple[RefusedTurn, list[Any]]:
    """The refused turn, and the calls to hand the executor: each as the model sent it, but a
    call of a `result_as_answer` tool under a name no tool has, and arguments that are not
    JSON as `{}`, so that every call reaches the hooks and none can end the run."""
    turn = RefusedTurn({str(answer.call_id): answer for answer in verdict.answers})
    handed: list[Any] = []
    for index, ((call, (call_id, name, arguments)), answer) in enumerate(zip(read, verdict.answers), 1):
        as_sent = arguments if isinstance(arguments, str) else json.dumps(arguments)
        given_name = REFUSED_NAME.format(index) if name in final_answer_names else name
        given_arguments = as_sent if decodes(as_sent) else "{}"
        if (given_name, given_arguments) != (name, as_sent):
            turn.sent[call_id] = (name, as_sent)
            call = as_openai_call(call_id, given_name, given_arguments)
        turn.texts[(given_name, canonical(json.loads(given_arguments)))] = answer.text
        handed.append(call)
    return turn, handed


def cast_calls(answer: list[Any], read: Sequence[ReadCall],
               verdict: TurnVerdict) -> list[Any]:
    """A fitting turn's calls, each one a cast changed handed on with its cast arguments."""
    cast_by_call = {id(call): cast_call for (call, _), cast, cast_call in zip(read, verdict.casts, verdict.calls)
                    if cast.changed}
    return [call if id(call) not in cast_by_call else as_openai_call(
        cast_by_call[id(call)].id, cast_by_call[id(call)].tool, json.dumps(cast_by_call[id(call)].arguments))
        for call in answer]


def as_openai_call(call_id: object, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def final_answer_tools(agent: Any, task: Any) -> set[str]:
    """The names the model calls the `result_as_answer` tools of the agent and the task by."""
    tools = [*(getattr(agent, "tools", None) or ()), *(getattr(task, "tools", None) or ())]
    return {sanitize_tool_name(tool.name) for tool in tools if getattr(tool, "result_as_answer", False)}


def decodes(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=repr)
