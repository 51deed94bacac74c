"""turngate for LangChain 1.x agents: a `create_agent` middleware that checks the model's whole
turn before any call of it runs (`pip install 'turngate[langchain]'`).

    agent = gated_agent(model, tools, middleware=[HumanInTheLoopMiddleware(...)], checkpointer=...)

`gated_agent` is `create_agent` with a `TurnGate` listed where it must be. A refused turn goes
straight back to the model with one error `ToolMessage` per call id (the bad call's
"Refused: ..." text, each sibling's "Not run: ..."): no tool runs, and no approval is asked
for any of its calls. A turn that fits goes on as it would without the gate.

The order matters, and is checked: `after_model` hooks run in reverse list order, so the gate
must come after `HumanInTheLoopMiddleware` (and every other middleware with an `after_model`
hook) to see the turn first. A `TurnGate` handed to `create_agent` by hand refuses to run
(`GateOrderError`, before the model is called) until `gate.check_order(agent)` has found its
`after_model` to be the only node after the model.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence, TypeVar

from turngate import Table, Telemetry, Toolset
from turngate.extras import missing_extra

try:
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware, hook_config
    from langchain.agents.structured_output import AutoStrategy, ProviderStrategy, ToolStrategy
except ImportError as error:  # the extra is missing, or of a release it does not allow
    raise missing_extra("langchain", __name__, error) from error

from .langgraph import RecordStep, judge_turn, tool_schemas


class _Drawn(Protocol):
    """What the gate reads of an agent: its graph (LangGraph's compiled graph has one)."""

    def get_graph(self) -> Any: ...


#: An agent as `create_agent` makes it, given back as it came.
Agent = TypeVar("Agent", bound=_Drawn)

__all__ = ["GateOrderError", "TurnGate", "gated_agent", "output_tool_names"]


class GateOrderError(RuntimeError):
    """The gate would not be the first `after_model` hook to see the model's turn."""


class TurnGate(AgentMiddleware):
    """Checks every call of the model's turn against its tool's schema, as LangChain converts
    the agent's tools for the model. `output_tools` names the structured-output tools offered
    (LangChain answers their calls itself). `record` is given each step of a refused turn,
    kept at `privacy`; `table` is the rules table (turngate's default when None); with
    `telemetry`, each turn decided is reported to OpenTelemetry (gate "langchain")."""

    toolset: Toolset
    record: RecordStep | None
    privacy: str
    telemetry: None | Telemetry
    order_checked: bool

    def __init__(self, tools: Sequence[Any], *, output_tools: Sequence[str] = (), table: Table | str | None = None,
                 record: RecordStep | None = None, privacy: str = "metadata-only",
                 telemetry: Telemetry | None = None):
        super().__init__()
        self.toolset = Toolset({**dict.fromkeys(output_tools), **tool_schemas(tools)}, table)
        self.record, self.privacy = record, privacy
        self.telemetry = None if telemetry is None else telemetry.for_gate("langchain")
        self.order_checked = False

    def check_order(self, agent: Agent) -> Agent:
        """The agent, once its graph shows this gate's `after_model` as the only node after the
        model; else a `GateOrderError` saying how to list the middleware."""
        node = f"{self.name}.after_model"
        after_model = sorted({edge.target for edge in agent.get_graph().edges if edge.source == "model"})
        if after_model != [node]:
            raise GateOrderError(
                f"the turn gate must be the first to see the model's turn, but {', '.join(after_model)} "
                f"runs right after the model. after_model hooks run in reverse list order: list "
                f"{self.name} LAST in middleware=[...] (after HumanInTheLoopMiddleware), or build "
                f"the agent with gated_agent(...).")
        self.order_checked = True
        return agent

    def before_agent(self, state: Any, runtime: Any) -> None:
        if not self.order_checked:
            raise GateOrderError(
                f"{self.name} runs only where its place was checked: build the agent with "
                f"gated_agent(...), or pass the agent create_agent(...) made to gate.check_order(agent).")
        return None

    @hook_config(can_jump_to=["model"])
    def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        verdict, answers = judge_turn(state["messages"], self.toolset, self.record, self.privacy, self.telemetry)
        if verdict is None or verdict.ok:
            return None
        # Back to the model: the later after_model hooks (approvals) and the tools never run.
        return {"messages": answers, "jump_to": "model"}


def gated_agent(model: Any, tools: Sequence[Any] = (), *, middleware: Sequence[AgentMiddleware[Any, Any]] = (),
                table: Table | str | None = None, record: RecordStep | None = None,
                privacy: str = "metadata-only", telemetry: Telemetry | None = None,
                **options: Any) -> Any:
    """`create_agent(model, tools, middleware=..., **options)` with a `TurnGate` listed last, so
    it sees each turn first. The gate judges the agent's tools, the middleware's, and the
    structured-output tools of `response_format`."""
    offered = [*tools, *(tool for extra in middleware for tool in getattr(extra, "tools", ()))]
    # A dict is a provider's built-in tool: the provider runs it, not the agent.
    gate = TurnGate([tool for tool in offered if not isinstance(tool, dict)],
                    output_tools=output_tool_names(options.get("response_format")), table=table,
                    record=record, privacy=privacy, telemetry=telemetry)
    return gate.check_order(create_agent(model, tools, middleware=[*middleware, gate], **options))


def output_tool_names(response_format: Any) -> list[str]:
    """The names of the tools a `response_format` may have the model call: a schema given
    alone may be answered through tools, when the model has no native structured output."""
    if response_format is None or isinstance(response_format, ProviderStrategy):
        return []
    if isinstance(response_format, AutoStrategy):
        response_format = response_format.schema
    if not isinstance(response_format, ToolStrategy):
        response_format = ToolStrategy(response_format)
    return [spec.name for spec in response_format.schema_specs]
