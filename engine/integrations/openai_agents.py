"""turngate for the OpenAI Agents SDK: checks every call of the model's turn before any of it
runs (`pip install 'turngate[openai-agents]'`).

    gate = TurnGate(agent)
    result = await Runner.run(gate.agent, "...", run_config=gate.run_config())

No single hook of the SDK sees a whole turn and answers it, so the gate joins three public
pieces, and `TurnGate` is the one object that holds them:
- the agent's model is wrapped (`get_response` and `stream_response`, and each model a
  `ModelProvider` names): it judges the turn against each `FunctionTool.params_json_schema`
  as the response arrives, before the SDK runs any tool;
- a tool input guardrail, put first on each function tool offered in the turn (an MCP
  server's tools too), rejects the refused turn's calls with their "Refused: ..." or
  "Not run: ..." texts;
- `run_config()` runs those guardrails before approvals
  (`ToolExecutionConfig(pre_approval_tool_input_guardrails=True)`; without it the SDK asks a
  person about the bad call first), and sets `tool_not_found_behavior="return_error_to_model"`
  with a `tool_error_formatter`, so a call of a tool that was not offered gets the gate's
  answer (the SDK's default, "raise_error", ends the run with a `ModelBehaviorError`).

A refused turn's answers never end the run: where the agent's `tool_use_behavior` may stop it
on a tool's result (`"stop_on_first_tool"`, `StopAtTools`, a host's function), the cloned agent
has a `ToolsToFinalOutputFunction` that goes on to the model for the results of a refused
turn, and decides every other turn as the agent's own behaviour does.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Iterable

from turngate import Call, CallAnswer, RunStep, Table, Telemetry, Toolset, check_turn, refused_steps
from turngate.extras import missing_extra

try:
    from agents import (
        Agent,
        FunctionTool,
        FunctionToolResult,
        Model,
        ModelProvider,
        ModelResponse,
        RunConfig,
        RunContextWrapper,
        ToolErrorFormatterArgs,
        ToolExecutionConfig,
        ToolGuardrailFunctionOutput,
        ToolInputGuardrail,
        ToolInputGuardrailData,
        ToolsToFinalOutputResult,
    )
except ImportError as error:  # the extra is missing, or of a release it does not allow
    raise missing_extra("openai-agents", __name__, error) from error

if TYPE_CHECKING:  # the SDK's own types, for annotations only (some are newer than its floor)
    from agents import (
        AgentOutputSchemaBase,
        Handoff,
        ModelRetryAdvice,
        ModelRetryAdviceRequest,
        ModelSettings,
        ModelTracing,
        TResponseInputItem,
        Tool,
    )
    from agents.run_config import ToolErrorFormatter

#: What a gate hands each step of a refused turn to (a list's `append`, a file writer...).
RecordStep = Callable[[RunStep], None]

__all__ = ["GatedModel", "GatedProvider", "TurnGate", "turn_number"]


class TurnGate:
    """Gates `agent`'s turns: run `gate.agent` with `run_config=gate.run_config()`. `record` is
    given each step of a refused turn, kept at `privacy`; `table` is the rules table; with
    `telemetry`, each turn decided is reported to OpenTelemetry (gate "openai-agents")."""

    table: Table | str | None
    record: RecordStep | None
    privacy: str
    telemetry: None | Telemetry
    agent: Agent[Any]

    def __init__(self, agent: Agent, *, table: Table | str | None = None, record: RecordStep | None = None,
                 privacy: str = "metadata-only", telemetry: Telemetry | None = None):
        self.table, self.record, self.privacy = table, record, privacy
        self.telemetry = None if telemetry is None else telemetry.for_gate("openai-agents")
        # The answers of refused turns not given yet, by call id (a model's call ids are unique).
        self.pending: dict[str, CallAnswer] = {}
        # The call ids answered so, until the SDK asks whether their results end the run.
        self.answered: set[str] = set()
        self.guardrail: ToolInputGuardrail[Any] = ToolInputGuardrail(self._answer_refused_call, name="turngate")
        model = GatedModel(agent.model, self) if isinstance(agent.model, Model) else agent.model
        behaviour = agent.tool_use_behavior
        stop_rule = {} if behaviour == "run_llm_again" else {"tool_use_behavior": self._going_on_after_refusals(behaviour)}
        self.agent = agent.clone(model=model, **stop_rule)

    def run_config(self, base: RunConfig | None = None) -> RunConfig:
        """`base` (or a default `RunConfig`) with what the gate needs, the host's other settings
        kept; a model named by text is gated through the model provider."""
        base = base or RunConfig()
        execution = dataclasses.replace(base.tool_execution or ToolExecutionConfig(),
                                        pre_approval_tool_input_guardrails=True)
        model = GatedModel(base.model, self) if isinstance(base.model, Model) else base.model
        return dataclasses.replace(
            base, model=model, model_provider=GatedProvider(base.model_provider, self),
            tool_execution=execution, tool_not_found_behavior="return_error_to_model",
            tool_error_formatter=self._error_formatter(base.tool_error_formatter))

    def _error_formatter(self, host_formatter: ToolErrorFormatter | None) -> ToolErrorFormatter:
        async def format_tool_error(args: ToolErrorFormatterArgs) -> str | None:
            answer = self.pending.pop(args.call_id, None) if args.kind == "tool_not_found" else None
            if answer is not None:
                return answer.text
            if host_formatter is None:
                return None
            message = host_formatter(args)
            text: str | None = await message if inspect.isawaitable(message) else message
            return text

        return format_tool_error

    def _answer_refused_call(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        answer = self.pending.pop(data.context.tool_call_id, None)
        if answer is None:
            return ToolGuardrailFunctionOutput.allow()
        self.answered.add(data.context.tool_call_id)
        return ToolGuardrailFunctionOutput.reject_content(answer.text, output_info=answer.codes)

    def _going_on_after_refusals(self, behaviour: Any) -> Callable[..., Any]:
        """The agent's stop rule, but for a refused turn's results: the model gets them."""
        async def tools_to_final_output(context: RunContextWrapper[Any],
                                        results: list[FunctionToolResult]) -> ToolsToFinalOutputResult:
            ids = set(call_ids(results))
            if ids & self.answered:
                self.answered -= ids
                return ToolsToFinalOutputResult(is_final_output=False, final_output=None)
            return await final_output_by(behaviour, context, results)

        return tools_to_final_output

    def judge(self, output: list[Any], tools: list[Any], handoffs: list[Any], model_input: Any) -> None:
        """Judge a response's function calls against the tools the model was offered, and keep a
        refused turn's answers for the guardrail and the tool error formatter."""
        function_tools = [tool for tool in tools if isinstance(tool, FunctionTool)]
        for tool in function_tools:
            # The SDK runs the turn's calls with these same tool objects, MCP tools included.
            if self.guardrail not in (tool.tool_input_guardrails or []):
                tool.tool_input_guardrails = [self.guardrail, *(tool.tool_input_guardrails or [])]
        offered = {tool.name: tool.params_json_schema for tool in function_tools}
        handoff_tools = {handoff.tool_name: handoff.input_json_schema for handoff in handoffs}
        calls = [Call(item.call_id, item.name, item.arguments) for item in output
                 if getattr(item, "type", None) == "function_call"]
        verdict = check_turn(calls, Toolset({**offered, **handoff_tools}, self.table), telemetry=self.telemetry)
        if verdict.ok:
            return
        # No guardrail holds a handoff back: its answer would never be given.
        self.pending.update((answer.call_id, answer) for answer in verdict.answers  # type: ignore[misc]  # text ids
                            if answer.tool not in handoff_tools)
        if self.record is not None:
            for step in refused_steps(verdict, turn_number(model_input), self.privacy):
                self.record(step)


class GatedModel(Model):
    """The host's model, its every response judged before the SDK acts on it."""

    model: Model
    gate: TurnGate

    def __init__(self, model: Model, gate: TurnGate):
        self.model, self.gate = model, gate

    async def get_response(self, system_instructions: str | None, input: str | list[TResponseInputItem],
                           model_settings: ModelSettings, tools: list[Tool], output_schema: AgentOutputSchemaBase | None,
                           handoffs: list[Handoff[Any, Any]], tracing: ModelTracing, **options: Any) -> ModelResponse:
        response = await self.model.get_response(system_instructions, input, model_settings, tools,
                                                 output_schema, handoffs, tracing, **options)
        self.gate.judge(response.output, tools, handoffs, input)
        return response

    async def stream_response(self, system_instructions: str | None, input: str | list[TResponseInputItem],
                              model_settings: ModelSettings, tools: list[Tool],
                              output_schema: AgentOutputSchemaBase | None, handoffs: list[Handoff[Any, Any]],
                              tracing: ModelTracing, **options: Any) -> AsyncIterator[Any]:
        async for event in self.model.stream_response(system_instructions, input, model_settings, tools,
                                                      output_schema, handoffs, tracing, **options):
            # The whole turn arrives with the completed event; the SDK runs tools only after it.
            if event.type == "response.completed":
                self.gate.judge(event.response.output, tools, handoffs, input)
            yield event

    def get_retry_advice(self, request: ModelRetryAdviceRequest) -> ModelRetryAdvice | None:
        return self.model.get_retry_advice(request)

    async def close(self) -> None:
        await self.model.close()


class GatedProvider(ModelProvider):
    """The host's model provider, each model it names gated."""

    provider: ModelProvider
    gate: TurnGate

    def __init__(self, provider: ModelProvider, gate: TurnGate):
        self.provider, self.gate = provider, gate

    def get_model(self, model_name: str | None) -> Model:
        return GatedModel(self.provider.get_model(model_name), self.gate)

    async def aclose(self) -> None:
        await self.provider.aclose()


async def final_output_by(behaviour: Any, context: RunContextWrapper[Any],
                          results: list[FunctionToolResult]) -> ToolsToFinalOutputResult:
    """What the agent's own `tool_use_behavior` makes of a turn's results, as the SDK reads it."""
    if behaviour == "stop_on_first_tool":
        return ToolsToFinalOutputResult(is_final_output=True, final_output=results[0].output)
    if isinstance(behaviour, dict):
        names = behaviour.get("stop_at_tool_names", [])
        stop = next((result for result in results if result.tool.name in names or result.tool.qualified_name in names),
                    None)
        if stop is None:
            return ToolsToFinalOutputResult(is_final_output=False, final_output=None)
        return ToolsToFinalOutputResult(is_final_output=True, final_output=stop.output)
    decided = behaviour(context, results)
    result: ToolsToFinalOutputResult = await decided if inspect.isawaitable(decided) else decided
    return result


def call_ids(results: Iterable[FunctionToolResult]) -> Iterable[object]:
    """The call id each result answers."""
    for result in results:
        raw = getattr(result.run_item, "raw_item", None)
        yield raw.get("call_id") if isinstance(raw, dict) else getattr(raw, "call_id", None)


MODEL_ITEMS = {"function_call", "reasoning", "custom_tool_call"}


def turn_number(model_input: Any) -> int:
    """The turn's number in the conversation the model was sent: one more than the model's
    earlier turns there, each a run of consecutive items the model wrote. (A conversation kept
    by the server, `previous_response_id` or `conversation_id`, shows only its new items.)"""
    if isinstance(model_input, str):
        return 1
    turns, in_turn = 0, False
    for item in model_input:
        item = item if isinstance(item, dict) else item.model_dump()
        by_model = item.get("type") in MODEL_ITEMS or item.get("role") == "assistant"
        turns += by_model and not in_turn
        in_turn = by_model
    return turns + 1
