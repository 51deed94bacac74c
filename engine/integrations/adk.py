"""turngate for Google's Agent Development Kit: a runner plugin that checks every call of the
model's turn before any of it runs (`pip install 'turngate[adk]'`).

    app = App(name="pages", root_agent=agent, plugins=[TurnGate()])  # the first plugin

ADK hands a turn's calls to the plugins one `before_tool_callback` at a time, but by then the
model's event holding the whole turn is in the session, as the agent's own
`after_model_callback` left it. The first call of a turn to arrive has the gate judge all of
the event's calls, against the function declarations of the request the model was sent (kept
from `before_model_callback`: the agent's own callbacks change that same request in place).
Each call of a refused turn is then answered instead of run, with
`{"error": <its "Refused: ..." or "Not run: ..." text>}`: no tool body, no agent
`before_tool_callback` and no confirmation runs, and the gate's `after_tool_callback` answers
again so that no agent `after_tool_callback` can replace the answer or end the run on it. A
turn that fits runs untouched (with `casts=True`, its arguments cast where they need it).

Plugins are asked in the order they are listed, and the first to answer ends the chain, so
the gate must be the first plugin: a run where it is not stops with `GateOrderError` before
the model is called.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

from turngate import Call, CallAnswer, RunStep, Table, Telemetry, Toolset, check_turn, refused_steps
from turngate.extras import missing_extra

try:
    from google.adk.agents.callback_context import CallbackContext
    from google.adk.agents.invocation_context import InvocationContext
    from google.adk.events.event import Event
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.adk.plugins.base_plugin import BasePlugin
    from google.adk.tools.base_tool import BaseTool
    from google.adk.tools.tool_context import ToolContext
    from google.genai import types
except ImportError as error:  # the extra is missing, or of a release it does not allow
    raise missing_extra("adk", __name__, error) from error

#: What a gate hands each step of a refused turn to (a list's `append`, a file writer...).
RecordStep = Callable[[RunStep], None]
#: Where a model request was made: the invocation, the branch of the agent tree, the agent.
Place = tuple[str, str | None, str]

__all__ = ["GateOptions", "GateOrderError", "RecordStep", "TurnGate", "offered_schemas"]

# Requests are dropped when their run ends; decisions are kept longer, since a confirmed call
# runs in a later run than its turn. Both are bounded, for runs abandoned half way.
KEPT_REQUESTS = 64
KEPT_TURNS = 256


class GateOrderError(RuntimeError):
    """The gate is not the first plugin of the run, so another plugin could answer first."""


@dataclass(frozen=True, slots=True)
class GateOptions:
    """How a gate judges and what it keeps: the rules `table` (turngate's default when None),
    `record` given each step of a refused turn kept at `privacy`, `casts` (a turn that fits
    hands its calls on cast where the schema needs it), and `telemetry`, which each decided
    turn is reported to (gate "adk")."""

    table: Table | str | None = None
    record: RecordStep | None = None
    privacy: str = "metadata-only"
    casts: bool = False
    telemetry: Telemetry | None = None

    def __post_init__(self) -> None:
        # A table or privacy level that does not exist is said when the gate is made, in
        # turngate's words, rather than at the first refused turn, inside a run.
        object.__setattr__(self, "table", Toolset({}, self.table).table)
        RunStep(1, 1, None, "refused", privacy=self.privacy)
        if self.telemetry is not None:
            object.__setattr__(self, "telemetry", self.telemetry.for_gate("adk"))


@dataclass(frozen=True, slots=True)
class Decision:
    """One turn's decision: the answer per call id of a refused turn, or the arguments per
    call id that a cast changed in a turn that fits."""

    answers: dict[str, CallAnswer]
    cast: dict[str, Any]


class TurnGate(BasePlugin):
    """Checks every call of a model's turn against the declaration it was offered before
    any call of the turn runs. List it first in the runner's (or the `App`'s) `plugins`."""

    options: GateOptions

    def __init__(self, *, table: Table | str | None = None, record: RecordStep | None = None,
                 privacy: str = "metadata-only", casts: bool = False, telemetry: Telemetry | None = None,
                 name: str = "turngate") -> None:
        super().__init__(name=name)
        self.options = GateOptions(table, record, privacy, casts, telemetry)
        self.requests: OrderedDict[Place, LlmRequest] = OrderedDict()
        self.decisions: OrderedDict[str, Decision] = OrderedDict()  # by the turn's event id

    async def before_run_callback(self, *, invocation_context: InvocationContext) -> types.Content | None:
        plugins = invocation_context.plugin_manager.plugins
        if plugins[0] is not self:
            raise GateOrderError(
                f"the turn gate must be the first plugin, but {plugins[0].name!r} comes before it, and a "
                f"plugin that answers a tool call or a model request first keeps the gate from deciding the "
                f"turn: list TurnGate() first in plugins=[...]")
        return None

    async def before_model_callback(self, *, callback_context: CallbackContext,
                                    llm_request: LlmRequest) -> LlmResponse | None:
        keep(self.requests, place(callback_context), llm_request, KEPT_REQUESTS)
        return None

    async def before_tool_callback(self, *, tool: BaseTool, tool_args: dict[str, Any],
                                   tool_context: ToolContext) -> dict[str, Any] | None:
        decision = self.decision(tool_context)
        call_id = tool_context.function_call_id or ""
        if decision is None:
            return None
        answer = decision.answers.get(call_id)
        if answer is not None:
            return {"error": answer.text}
        if call_id in decision.cast:
            tool_args.clear()  # ADK hands the tool this same dict
            tool_args.update(decision.cast[call_id])
        return None

    async def on_tool_error_callback(self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext,
                                     error: Exception) -> dict[str, Any] | None:
        # ADK before 2.11 looks a tool up before any before_tool_callback runs, and reports an
        # unknown one here, first: its turn is decided here then.
        answer = self.answer(tool_context)
        return None if answer is None else {"error": answer.text}

    async def after_tool_callback(self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext,
                                  result: dict[str, Any]) -> dict[str, Any] | None:
        # Answered here, the agent's after_tool_callbacks never see the call: no tool ran for
        # them to describe, and none of them can end the run on a refused turn's answer.
        answer = self.answer(tool_context)
        return None if answer is None else {"error": answer.text}

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        for kept in [key for key in self.requests if key[0] == invocation_context.invocation_id]:
            del self.requests[kept]

    def decision(self, tool_context: ToolContext) -> Decision | None:
        """The decision on the turn holding this call, made when its first call arrives; None
        where the turn or the request the model was sent cannot be found."""
        found = find_turn(tool_context)
        if found is None:
            return None
        events, at = found
        decided = self.decisions.get(events[at].id)
        request = self.requests.get(place(tool_context))
        if decided is not None or request is None:
            return decided
        decided = self.judge(events, at, request)
        keep(self.decisions, events[at].id, decided, KEPT_TURNS)
        return decided

    def answer(self, tool_context: ToolContext) -> CallAnswer | None:
        """The answer to this call, if its turn was refused."""
        decision = self.decision(tool_context)
        return None if decision is None else decision.answers.get(tool_context.function_call_id or "")

    def judge(self, events: list[Event], at: int, request: LlmRequest) -> Decision:
        """The decision on the turn `events[at]`, its steps recorded if it is refused."""
        options = self.options
        calls = [Call(call.id, call.name or "", {} if call.args is None else call.args)
                 for call in events[at].get_function_calls()]
        verdict = check_turn(calls, Toolset(offered_schemas(request), options.table, casts=options.casts),
                             telemetry=options.telemetry)
        if verdict.ok:
            return Decision({}, {str(call.id): cast.arguments for call, cast in zip(verdict.calls, verdict.casts)
                                 if cast.changed})
        if options.record is not None:
            for step in refused_steps(verdict, turn_number(events, at), options.privacy):
                options.record(step)
        return Decision({str(answer.call_id): answer for answer in verdict.answers}, {})


def offered_schemas(request: LlmRequest) -> dict[str, object]:
    """The JSON Schema of each function declared in a model request, by name (None for a
    function declared with no parameters: it judges nothing)."""
    schemas: dict[str, object] = {}
    for tool in request.config.tools or []:
        for declaration in getattr(tool, "function_declarations", None) or []:
            schemas[declaration.name or ""] = declared_schema(declaration)
    return schemas


def declared_schema(declaration: types.FunctionDeclaration) -> object:
    """A declaration's parameters in JSON Schema's words (None where it declares none)."""
    if declaration.parameters_json_schema is not None:
        return declaration.parameters_json_schema
    if declaration.parameters is not None:
        # A Gemini `Schema`, as the model reads it, in JSON Schema's words.
        return declaration.parameters.json_schema.model_dump(mode="json", exclude_none=True)
    return None


def place(context: CallbackContext | ToolContext) -> Place:
    # ADK 1.x contexts name no branch: there an agent's name alone tells parallel agents apart.
    return (context.invocation_id, getattr(context, "branch", None), context.agent_name)


def find_turn(tool_context: ToolContext) -> tuple[list[Event], int] | None:
    """The session's events and the place among them of the event holding this call: the
    model's turn (the latest, should a model use a call id again)."""
    call_id, events = tool_context.function_call_id, tool_context.session.events
    for at in range(len(events) - 1, -1, -1):
        if any(call.id == call_id for call in events[at].get_function_calls()):
            return events, at
    return None


def turn_number(events: list[Event], at: int) -> int:
    """The number of the model's turn at `at` among the model's turns in the session."""
    return sum(1 for event in events[:at + 1]
               if event.content is not None and event.content.role == "model" and not event.partial)


def keep(kept: OrderedDict[Any, Any], key: Any, value: Any, most: int) -> None:
    kept[key] = value
    kept.move_to_end(key)
    while len(kept) > most:
        kept.popitem(last=False)
