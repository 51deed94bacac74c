"""turngate for pydantic-ai 2.x: a capability that checks every call of the model's turn before
any of it runs (`pip install 'turngate[pydantic-ai]'`).

    agent = Agent(model, tools=[...], capabilities=[TurnGate()])

`after_model_request` judges the response's tool calls against the schemas of the request's
tools; `before_tool_validate` then fails each call of a refused turn with `ToolFailed` and its
"Refused: ..." or "Not run: ..." text. `ToolFailed` spends no retry, and a call failed before
validation is never deferred for approval. Each run gets a gate of its own (`for_run`), and
the gate is outermost however it is listed, so it judges the response as the other
capabilities' `after_model_request` hooks leave it.

Some calls never reach `before_tool_validate`: pydantic-ai answers a call of an unknown tool
itself (with a retry prompt that spends the run's retries), and an output tool's call could
end the run. A refused turn holding such a call is answered whole instead: `before_node_run`
replaces the turn's `CallToolsNode` with the next model request, carrying one failed
`ToolReturnPart` per call id, as `ToolFailed` makes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from turngate import Call, CallAnswer, RunStep, Table, Telemetry, Toolset, check_turn, refused_steps
from turngate.extras import missing_extra

try:
    from pydantic_ai import CallToolsNode, ModelRequestNode, RunContext, ToolFailed
    from pydantic_ai.capabilities import AbstractCapability, CapabilityOrdering
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
    from pydantic_ai.models import ModelRequestContext
    from pydantic_ai.tools import ToolDefinition
except ImportError as error:  # the extra is missing, or of a release it does not allow
    raise missing_extra("pydantic-ai", __name__, error) from error

#: What a gate hands each step of a refused turn to (a list's `append`, a file writer...).
RecordStep = Callable[[RunStep], None]

__all__ = ["RecordStep", "TurnGate"]


@dataclass
class TurnGate(AbstractCapability[Any]):
    """`record` is given each step of a refused turn, kept at `privacy`; `table` is the rules
    table (turngate's default when None); with `telemetry`, each turn decided is reported to
    OpenTelemetry (gate "pydantic-ai")."""

    record: RecordStep | None = None
    privacy: str = "metadata-only"
    table: Table | str | None = None
    telemetry: Telemetry | None = None
    refused: dict[str, CallAnswer] = field(default_factory=dict)  # this run's last turn's, if refused
    answer_whole_turn: bool = False  # the refused turn has a call the tool hooks never see

    def __post_init__(self) -> None:
        if self.telemetry is not None:
            self.telemetry = self.telemetry.for_gate("pydantic-ai")

    def get_ordering(self) -> CapabilityOrdering:
        # Outermost, however it is listed: its after_model_request runs after every other
        # capability's, so it judges the response as they leave it, the one whose calls run.
        return CapabilityOrdering(position="outermost")

    async def for_run(self, ctx: RunContext[Any]) -> TurnGate:
        return TurnGate(self.record, self.privacy, self.table, self.telemetry)

    async def after_model_request(self, ctx: RunContext[Any], *, request_context: ModelRequestContext,
                                  response: ModelResponse) -> ModelResponse:
        parameters = request_context.model_request_parameters
        # Output tools are offered too: a call of one is not a call of an unknown tool.
        offered = {tool.name: tool.parameters_json_schema
                   for tool in [*parameters.function_tools, *parameters.output_tools]}
        calls = [Call(part.tool_call_id, part.tool_name, {} if part.args is None else part.args)
                 for part in response.tool_calls]
        verdict = check_turn(calls, Toolset(offered, self.table), telemetry=self.telemetry)
        self.refused = {answer.call_id: answer for answer in verdict.answers}  # type: ignore[misc]  # the SDK's text ids
        function_tools = {tool.name for tool in parameters.function_tools}
        self.answer_whole_turn = not verdict.ok and any(call.tool not in function_tools for call in calls)
        if not verdict.ok and self.record is not None:
            for step in refused_steps(verdict, ctx.run_step, self.privacy):
                self.record(step)
        return response

    async def before_tool_validate(self, ctx: RunContext[Any], *, call: ToolCallPart,
                                   tool_def: ToolDefinition, args: Any) -> Any:
        answer = self.refused.get(call.tool_call_id)
        if answer is not None:
            raise ToolFailed(answer.text)
        return args

    async def before_node_run(self, ctx: RunContext[Any], *, node: Any) -> Any:
        if not (self.answer_whole_turn and isinstance(node, CallToolsNode)):
            return node
        self.answer_whole_turn = False
        return ModelRequestNode(ModelRequest(parts=[
            ToolReturnPart(answer.tool, answer.text, tool_call_id=answer.call_id, outcome="failed")  # type: ignore[arg-type]
            for answer in self.refused.values()]))
