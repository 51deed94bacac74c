"""turngate for LlamaIndex agents: a `FunctionAgent`, and an `AgentWorkflow` of them, that
check every call of the model's turn before any of it runs (`pip install 'turngate[llamaindex]'`).

    gate = TurnGate(record=steps.append)
    agent = GatedFunctionAgent(tools=[...], llm=llm, gate=gate)
    workflow = GatedAgentWorkflow(agents=[GatedFunctionAgent(name=..., gate=gate, ...), ...], root_agent=...)

No callback of LlamaIndex can hold a call back, and a tool never sees its call id; but an agent
is a Workflow, and a subclass may replace its steps. `take_step` holds the model's whole turn
and the tools it was offered before any call is sent on: the gate judges the turn there, and
keeps a refused turn's answers, by call id, in the run's context. `call_tool` (the agent's
own, or the AgentWorkflow's: the one that runs the calls) then answers each call of a refused
turn with an error `ToolCallResult` holding its "Refused: ..." or "Not run: ..." text, and
runs nothing. An error result never ends the run: not through a `return_direct` tool, not
through a handoff. A turn that fits is sent on as it came (with `casts`, its arguments cast).

A gated agent's turns are answered only where a gated step runs its calls: on its own, or in a
`GatedAgentWorkflow` (each agent of which must be gated); elsewhere its first turn raises
`GateError`, before any call runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence

from attrs import field, frozen
from turngate import JSON, Call, RunStep, Table, Telemetry, Toolset, TurnVerdict, check_turn, load_table, refused_steps
from turngate.extras import missing_extra

try:
    from llama_index.core.agent.workflow import (
        AgentInput,
        AgentOutput,
        AgentWorkflow,
        BaseWorkflowAgent,
        FunctionAgent,
        ToolCall,
        ToolCallResult,
    )
    from llama_index.core.agent.workflow.workflow_events import AgentWorkflowStartEvent
    from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
    from llama_index.core.bridge.pydantic import Field
    from llama_index.core.memory import BaseMemory
    from llama_index.core.tools import AsyncBaseTool, ToolOutput
    from llama_index.core.workflow import Context, step
except ImportError as error:  # the extra is missing, or of a release it does not allow
    raise missing_extra("llamaindex", __name__, error) from error

if TYPE_CHECKING:  # new in 0.14.14; take_step is no step, so its annotations are never read at run time
    from llama_index.core.agent.workflow.agent_context import AgentContext

#: What a gate hands each step of a refused turn to (a list's `append`, a file writer...).
RecordStep = Callable[[RunStep], None]
Privacy = Literal["full", "metadata-only"]

#: The run's context holds here the answers of the turn being run, by call id (empty when it
#: may run); a step that runs calls without reading them never sets it.
ANSWERS_KEY = "turngate_answers"

__all__ = ["GateError", "GatedAgentWorkflow", "GatedFunctionAgent", "RecordStep", "TurnGate",
           "tool_schemas", "turn_calls"]


class GateError(RuntimeError):
    """A gated agent runs where nothing answers its refused turns."""


def _loaded(table: Table | str | Path | None) -> Table | None:
    # Read once, here: a path read again each turn would be a new table, compiled anew.
    return load_table(table) if isinstance(table, (str, Path)) else table


def _for_this_gate(telemetry: Telemetry | None) -> Telemetry | None:
    return None if telemetry is None else telemetry.for_gate("llamaindex")


def _privacy(_: object, attribute: object, value: str) -> None:
    if value not in ("full", "metadata-only"):
        raise ValueError(f'privacy is "full" or "metadata-only", not {value!r}')


@frozen
class TurnGate:
    """What a gated agent judges with: `record` is given each step of a refused turn, kept at
    `privacy`; `table` is the rules table (turngate's default when None); with `casts`, a
    turn that fits is sent on with its arguments cast where the cast is exact; with
    `telemetry`, each turn decided is reported to OpenTelemetry (gate "llamaindex")."""

    record: RecordStep | None = None
    privacy: Privacy = field(default="metadata-only", validator=_privacy)
    table: Table | None = field(default=None, converter=_loaded)
    casts: bool = False
    telemetry: Telemetry | None = field(default=None, converter=_for_this_gate)

    def judge(self, output: AgentOutput, tools: Sequence[AsyncBaseTool], turn: int) -> TurnVerdict:
        """The verdict on the turn in `output`, offered `tools`; a refused turn's steps are
        recorded as the model's `turn`-th."""
        toolset = Toolset(tool_schemas(tools), self.table, casts=self.casts)
        verdict = check_turn(turn_calls(output), toolset, telemetry=self.telemetry)
        if not verdict.ok and self.record is not None:
            for run_step in refused_steps(verdict, turn, self.privacy):
                self.record(run_step)
        return verdict


def tool_schemas(tools: Sequence[AsyncBaseTool]) -> dict[str, object]:
    """Each tool's name and JSON Schema, as LlamaIndex's models are offered them."""
    return {tool.metadata.get_name(): tool.metadata.get_parameters_dict() for tool in tools}


def turn_calls(output: AgentOutput) -> list[Call]:
    """Every call of the model's turn, with the arguments the model sent: a model's raw JSON
    text where its message keeps it (a `ToolCallBlock`), since the tool call the agent runs
    holds what was made of it (cut-off JSON completed, text that is not JSON taken as {})."""
    blocks = [block for block in output.response.blocks if isinstance(block, ToolCallBlock)]
    calls = []
    for index, selection in enumerate(output.tool_calls):
        arguments: JSON = selection.tool_kwargs
        if index < len(blocks) and (blocks[index].tool_call_id or "") == selection.tool_id \
                and blocks[index].tool_name == selection.tool_name:
            arguments = blocks[index].tool_kwargs
        calls.append(Call(selection.tool_id, selection.tool_name, arguments))
    return calls


def model_turns(messages: Sequence[ChatMessage]) -> int:
    return sum(message.role == "assistant" for message in messages)


async def answered_here(ctx: AgentContext) -> None:
    """Nothing, where a gated step will answer the turn's calls; else a `GateError`, before the
    model is asked."""
    if await ctx.store.get(ANSWERS_KEY, default=None) is None:
        raise GateError("a GatedFunctionAgent's refused turns are answered only where a gated step runs its "
                        "calls: run it on its own, or in a GatedAgentWorkflow, not in an AgentWorkflow.")


async def gate_step(gate: TurnGate, ctx: AgentContext, output: AgentOutput, tools: Sequence[AsyncBaseTool],
                    turn: int) -> AgentOutput:
    """Judge the turn before any of it is sent on, and keep its answers for `call_tool`."""
    verdict = gate.judge(output, tools, turn)
    await ctx.store.set(ANSWERS_KEY, {answer.call_id: answer.text for answer in verdict.answers})
    if verdict.ok and gate.casts and verdict.casts:
        output.tool_calls = [selection.model_copy(update={"tool_kwargs": call.arguments})
                             if isinstance(call.arguments, dict) else selection
                             for selection, call in zip(output.tool_calls, verdict.calls)]
    return output


async def refused_result(ctx: Context, ev: ToolCall) -> ToolCallResult | None:
    """The answer to a call of a refused turn, as the result of a call that failed (and so
    never ends the run), or None for a call that may run."""
    answers: dict[str, str] = await ctx.store.get(ANSWERS_KEY, default={})
    text = answers.get(ev.tool_id)
    if text is None:
        return None
    # Shown in the stream as the framework shows a call and its result.
    ctx.write_event_to_stream(ToolCall(tool_name=ev.tool_name, tool_kwargs=ev.tool_kwargs, tool_id=ev.tool_id))
    output = ToolOutput(content=text, tool_name=ev.tool_name, raw_input=ev.tool_kwargs, raw_output=text,
                        is_error=True)
    result = ToolCallResult(tool_name=ev.tool_name, tool_kwargs=ev.tool_kwargs, tool_id=ev.tool_id,
                            tool_output=output, return_direct=False)
    ctx.write_event_to_stream(result)
    return result


class GatedFunctionAgent(FunctionAgent):
    """A `FunctionAgent` whose every turn is judged before any of its calls runs."""

    gate: TurnGate = Field(default_factory=TurnGate, exclude=True)

    @step
    async def init_run(self, ctx: Context, ev: AgentWorkflowStartEvent) -> AgentInput:
        await ctx.store.set(ANSWERS_KEY, {})
        started: AgentInput = await super().init_run(ctx, ev)
        return started

    async def take_step(self, ctx: AgentContext, llm_input: list[ChatMessage],
                        tools: Sequence[AsyncBaseTool], memory: BaseMemory) -> AgentOutput:
        await answered_here(ctx)
        output = await super().take_step(ctx, llm_input, tools, memory)
        scratchpad: list[ChatMessage] = await ctx.store.get(self.scratchpad_key, default=[])
        return await gate_step(self.gate, ctx, output, tools, model_turns([*llm_input, *scratchpad]))

    @step
    async def call_tool(self, ctx: Context, ev: ToolCall) -> ToolCallResult:
        answer = await refused_result(ctx, ev)
        return answer if answer is not None else await super().call_tool(ctx, ev)


class GatedAgentWorkflow(AgentWorkflow):
    """An `AgentWorkflow` of gated agents, whose refused turns it answers: each agent must be
    a `GatedFunctionAgent` (its gate judges its turns)."""

    def __init__(self, agents: list[BaseWorkflowAgent], **options: Any) -> None:
        ungated = [agent.name for agent in agents if not isinstance(agent, GatedFunctionAgent)]
        if ungated:
            raise GateError(f"every agent of a GatedAgentWorkflow must be a GatedFunctionAgent, so that its turns "
                            f"are judged; not gated: {', '.join(map(repr, ungated))}.")
        super().__init__(agents, **options)

    @step
    async def init_run(self, ctx: Context, ev: AgentWorkflowStartEvent) -> AgentInput:
        await ctx.store.set(ANSWERS_KEY, {})
        started: AgentInput = await super().init_run(ctx, ev)
        return started

    @step
    async def call_tool(self, ctx: Context, ev: ToolCall) -> ToolCallResult:
        answer = await refused_result(ctx, ev)
        return answer if answer is not None else await super().call_tool(ctx, ev)
