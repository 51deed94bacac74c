"""turngate for LangGraph graphs built by hand: a gate node between the model node and the
tools (`pip install 'turngate[langgraph]'`).

    graph.add_node("gate", turn_gate_node(tools), destinations=("tools", "model", END))
    graph.add_edge("model", "gate")      # in place of tools_condition
    graph.add_edge("tools", "model")

The node sees the model's whole turn before anything of it runs (ADR 246: one turn, one
decision). A turn that fits goes on to the tools (or to a node that asks a person first); a
turn with a mismatch goes back to the model with one error `ToolMessage` per call id, the
bad call's "Refused: ..." text or a sibling's "Not run: ...", and nothing of it runs; a turn
with no call ends the run.

The LangChain middleware (`turngate.integrations.langchain`) judges turns with the same
functions.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence

from turngate import Call, RunStep, Table, Telemetry, Toolset, TurnVerdict, check_turn, refused_steps
from turngate.extras import missing_extra

try:
    from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langgraph.graph import END
    from langgraph.types import Command
except ImportError as error:  # the extra is missing, or of a release it does not allow
    raise missing_extra("langgraph", __name__, error) from error

#: What a gate hands each step of a refused turn to (a list's `append`, a file writer...).
RecordStep = Callable[[RunStep], None]

__all__ = ["GateNode", "RecordStep", "judge_turn", "tool_schemas", "turn_calls", "turn_gate_node"]


def tool_schemas(tools: Sequence[Any]) -> dict[str, object]:
    """Each tool's name and JSON Schema, as LangChain converts the tool for the model: LangChain
    tools, functions, pydantic models, or OpenAI-style tool dicts."""
    functions = [convert_to_openai_tool(tool)["function"] for tool in tools]
    return {function["name"]: function.get("parameters") for function in functions}


def turn_calls(message: AIMessage) -> list[Call]:
    """Every call of the model's turn. LangChain decodes each call's JSON itself; what it could
    not decode is an `invalid_tool_call` holding the raw text, which turngate answers as it
    answers raw text that is not JSON."""
    decoded = [Call(call["id"], call["name"], call["args"]) for call in message.tool_calls]
    undecoded = [Call(call["id"], call["name"] or "", call["args"] or "")
                 for call in message.invalid_tool_calls]
    return decoded + undecoded


def judge_turn(messages: Sequence[AnyMessage], toolset: Toolset, record: RecordStep | None = None,
               privacy: str = "metadata-only", telemetry: Telemetry | None = None,
               ) -> tuple[TurnVerdict | None, list[ToolMessage]]:
    """The verdict on the model's last turn (None when it has no call left to answer) and, for
    a refused turn, one error `ToolMessage` per call id not answered yet. `record` is given
    each step of a refused turn, kept at `privacy`; its turn is the model's message count.
    With `telemetry`, the verdict is reported to OpenTelemetry."""
    turn = next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], AIMessage)), None)
    if turn is None:
        return None, []
    answered = {message.tool_call_id for message in messages[turn + 1:] if isinstance(message, ToolMessage)}
    calls = turn_calls(messages[turn])  # type: ignore[arg-type]  # an AIMessage: found so above
    if all(call.id in answered for call in calls):
        return None, []
    verdict = check_turn(calls, toolset, telemetry=telemetry)
    if verdict.ok:
        return verdict, []
    if record is not None:
        number = sum(isinstance(message, AIMessage) for message in messages)
        for step in refused_steps(verdict, number, privacy):
            record(step)
    return verdict, [ToolMessage(content=answer.text, tool_call_id=answer.call_id, name=answer.tool,
                                 status="error")
                     for answer in verdict.answers if answer.call_id not in answered]


class GateNode(Protocol):
    """The node `turn_gate_node` makes: called with the graph's state (a dict or an object),
    it routes the turn with a `Command`."""

    def __call__(self, state: object) -> Command[Any]: ...


def turn_gate_node(tools: Sequence[Any], *, tools_node: str = "tools", model_node: str = "model",
                   end: str = END, messages_key: str = "messages", table: Table | str | None = None,
                   record: RecordStep | None = None, privacy: str = "metadata-only",
                   telemetry: Telemetry | None = None) -> GateNode:
    """A node that routes the model's turn: to `tools_node` when every call fits, back to
    `model_node` with the answers when one does not, to `end` when the model called nothing
    (or every call of its turn has an answer already).
    Add it with `destinations=(tools_node, model_node, end)` so the graph draws its edges.
    `table` is the rules table (turngate's default when None); with `telemetry`, each turn
    decided is reported to OpenTelemetry (gate "langgraph")."""
    toolset = Toolset(tool_schemas(tools), table)
    telemetry = None if telemetry is None else telemetry.for_gate("langgraph")

    def turn_gate(state: object) -> Command[Any]:
        messages = state[messages_key] if isinstance(state, dict) else getattr(state, messages_key)
        verdict, answers = judge_turn(messages, toolset, record, privacy, telemetry)
        if verdict is None:
            return Command(goto=end)
        if verdict.ok:
            return Command(goto=tools_node)
        return Command(goto=model_node, update={messages_key: answers})

    return turn_gate
