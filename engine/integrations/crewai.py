"""turngate for CrewAI: checks every call of the model's turn before any of it runs
(`pip install 'turngate[crewai]'`).

    gate = TurnGate(record=steps.append)
    crew = gate.crew(Crew(agents=[...], tasks=[...]))
    result = crew.kickoff()

No single hook of CrewAI sees a whole turn and answers it (its `after_llm_call` hooks are
skipped when the model calls tools), so the gate joins two public pieces:
- each agent's LLM is wrapped (`GatedLLM`, a `BaseLLM` around it): it judges the model's turn
  against the tools the model was offered as the response arrives, before the executor runs
  any of it, and puts the answers of a refused turn in the model's next input, per call id;
- a `before_tool_call` hook blocks every call of a refused turn, before any other hook (so a
  person is never asked to approve one), and an `after_tool_call` hook answers it with its
  "Refused: ..." or "Not run: ..." text.

The turn's calls are read with CrewAI's own reader (`crewai.utilities.agent_utils`), so the
gate judges exactly the calls, ids and arguments the executor runs.

A blocked call of a `result_as_answer` tool would end the task with the gate's text as its
answer, so such a call of a refused turn is handed to CrewAI under a name no tool has
(`turngate_refused_call_<n>`), and arguments that are not JSON as `{}` (else CrewAI answers
them itself, before any hook, and ends the run under `tool_failure_policy="raise"`); the
model's next input shows both as the model sent them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from turngate import Call, RunStep, Table, Telemetry, Toolset, check_turn, refused_steps
from turngate.extras import missing_extra

try:
    from crewai import LLM, Crew
    from crewai.agents.agent_builder.base_agent import BaseAgent
    from crewai.hooks import (ToolCallHookContext, get_after_tool_call_hooks, get_before_tool_call_hooks,
                              register_after_tool_call_hook, register_before_tool_call_hook,
                              unregister_after_tool_call_hook, unregister_before_tool_call_hook)
    from crewai.llms.base_llm import BaseLLM, call_stop_override, call_stream_override
    # CrewAI's own reading of a model's tool calls: the gate judges exactly the calls the executor runs.
    from crewai.utilities.agent_utils import extract_tool_call_info, is_tool_call_list
    from pydantic import PrivateAttr
except ImportError as error:  # the extra is missing, or of a release it does not allow
    raise missing_extra("crewai", __name__, error) from error

from .crewai_turns import RefusedTurn, cast_calls, final_answer_tools, hand_over

#: What a gate hands each step of a refused turn to (a list's `append`, a file writer...).
RecordStep = Callable[[RunStep], None]

__all__ = ["GateOptions", "GatedLLM", "RecordStep", "TurnGate"]


@dataclass(frozen=True)
class GateOptions:
    """What a gate is asked to do, in one place: the rules `table` (turngate's default when
    None), `record` given each step of a refused turn kept at `privacy`, `casts` (a turn that
    fits is handed on with the exact casts applied), and `telemetry`, which each decided turn
    is reported to (gate "crewai")."""

    table: Table | str | None = None
    record: RecordStep | None = None
    privacy: str = "metadata-only"
    casts: bool = False
    telemetry: Telemetry | None = None

    def __post_init__(self) -> None:
        if self.telemetry is not None:
            object.__setattr__(self, "telemetry", self.telemetry.for_gate("crewai"))


class TurnGate:
    """Gates the agents of a crew (`gate.crew(crew)`), or one agent (`gate.agent(agent)`), by
    wrapping each agent's LLM in a `GatedLLM`; the hooks that block a refused turn's calls are
    put before every other tool hook."""

    options: GateOptions

    def __init__(self, *, table: Table | str | None = None, record: RecordStep | None = None,
                 privacy: str = "metadata-only", casts: bool = False, telemetry: Telemetry | None = None):
        self.options = GateOptions(table, record, privacy, casts, telemetry)
        keep_hooks_first()

    def crew(self, crew: Crew) -> Crew:
        """`crew`, each agent's LLM gated (the manager's too, in a hierarchical crew)."""
        agents = [*crew.agents, *(task.agent for task in crew.tasks if task.agent is not None)]
        for agent in [*agents, *([crew.manager_agent] if crew.manager_agent else [])]:
            self.agent(agent)
        if crew.manager_llm is not None:
            manager = crew.manager_llm
            crew.manager_llm = self.llm(LLM(model=manager) if isinstance(manager, str) else manager)
        return crew

    def agent(self, agent: BaseAgent) -> BaseAgent:
        """`agent`, its LLM gated."""
        agent.llm = self.llm(agent.llm)
        return agent

    def llm(self, llm: Any) -> GatedLLM:
        """`llm` gated: a `GatedLLM` around it (an LLM gated already is kept as it is)."""
        if isinstance(llm, GatedLLM):
            return llm
        if not isinstance(llm, BaseLLM):
            raise TypeError(f"the gate wraps a CrewAI BaseLLM; this agent's llm is a {type(llm).__name__} "
                            "(give the agent an LLM(...) or another BaseLLM).")
        return GatedLLM.around(llm, self.options)


class GatedLLM(BaseLLM):
    """The host's LLM, its every turn judged before CrewAI runs any of it. Fields and calls
    not about the turn are the wrapped LLM's: setting one (as `Crew(stream=True)` sets
    `stream`) sets it there too."""

    inner: BaseLLM
    options: Any  # a GateOptions, kept as it is
    _refused: dict[int | None, RefusedTurn] = PrivateAttr(default_factory=dict)

    @classmethod
    def around(cls, inner: BaseLLM, options: GateOptions) -> GatedLLM:
        own = {name: getattr(inner, name) for name in BaseLLM.model_fields}
        return cls(**own, inner=inner, options=options)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name in BaseLLM.model_fields:
            setattr(self.inner, name, value)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)  # type: ignore[misc]
        except AttributeError:
            if name.startswith("_") or "inner" not in self.__dict__:
                raise
            return getattr(self.__dict__["inner"], name)

    def refused_turn(self, task: object) -> RefusedTurn | None:
        """The refused turn whose calls the executor is running for `task`, if any."""
        return self._refused.get(task_key(task))

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
             from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> Any:
        self._settle(messages, from_task)
        with self._as_called():
            answer = self.inner.call(messages, tools=tools, callbacks=callbacks,
                                     available_functions=available_functions, from_task=from_task,
                                     from_agent=from_agent, response_model=response_model)
        return self._judge(answer, tools, messages, from_task, from_agent)

    async def acall(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
                    from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> Any:
        self._settle(messages, from_task)
        with self._as_called():
            answer = await self.inner.acall(messages, tools=tools, callbacks=callbacks,
                                            available_functions=available_functions, from_task=from_task,
                                            from_agent=from_agent, response_model=response_model)
        return self._judge(answer, tools, messages, from_task, from_agent)

    @contextmanager
    def _as_called(self) -> Iterator[None]:
        # CrewAI scopes streaming and stop words to the LLM it calls: this one, not the wrapped.
        with call_stream_override(self.inner, bool(self._effective_stream())), \
                call_stop_override(self.inner, self.stop_sequences):
            yield

    def _settle(self, messages: Any, task: object) -> None:
        """A refused turn's calls have all been run through the hooks by the time the model is
        called again: settle what CrewAI recorded of it, and stop blocking."""
        if not isinstance(messages, list):
            return
        for key, turn in list(self._refused.items()):
            # A call made for no task (max iterations' last call) settles whatever it shows.
            if turn.settle(messages) or key == task_key(task):
                del self._refused[key]

    def _judge(self, answer: Any, tools: Any, messages: Any, task: Any, agent: Any) -> Any:
        if not tools or not isinstance(answer, list) or not answer or not is_tool_call_list(answer):
            return answer
        read = [(call, info) for call in answer if (info := extract_tool_call_info(call)) is not None]
        verdict = check_turn([Call(*info) for _, info in read],
                             Toolset(tools, self.options.table, casts=self.options.casts),
                             telemetry=self.options.telemetry)
        if verdict.ok:
            return cast_calls(answer, read, verdict) if verdict.casts else answer
        if self.options.record is not None:
            turn_number = 1 + sum(isinstance(m, dict) and m.get("role") == "assistant" for m in messages or ())
            for step in refused_steps(verdict, turn_number, self.options.privacy):
                self.options.record(step)
        turn, handed = hand_over(verdict, read, final_answer_tools(agent, task))
        self._refused[task_key(task)] = turn
        keep_hooks_first()
        return handed

    # Asked of the LLM, not of the turn: the wrapped LLM answers.
    def supports_function_calling(self) -> bool:
        return bool(getattr(self.inner, "supports_function_calling", lambda: False)())

    def supports_stop_words(self) -> bool:
        return self.inner.supports_stop_words()

    def supports_multimodal(self) -> bool:
        return self.inner.supports_multimodal()

    def get_context_window_size(self) -> int:
        return self.inner.get_context_window_size()

    def get_input_tokens_count(self, messages: Any, tools: Any = None, response_model: Any = None) -> int:
        return self.inner.get_input_tokens_count(messages, tools, response_model)

    def get_token_usage_summary(self) -> Any:
        return self.inner.get_token_usage_summary()

    def format_text_content(self, text: str) -> dict[str, Any]:
        return self.inner.format_text_content(text)

    def get_file_uploader(self) -> Any:
        return self.inner.get_file_uploader()

    def to_config_dict(self) -> dict[str, Any]:
        return self.inner.to_config_dict()


def task_key(task: object) -> int | None:
    return None if task is None else id(task)


# The hooks: one pair for every gate, first in CrewAI's global lists ------------------------------

def refused_turn_of(context: ToolCallHookContext) -> RefusedTurn | None:
    llm = getattr(context.agent, "llm", None)
    return llm.refused_turn(context.task) if isinstance(llm, GatedLLM) else None


def block_refused_call(context: ToolCallHookContext) -> bool | None:
    """Every call run between a refused turn and the model's next call is one of its calls."""
    return False if refused_turn_of(context) is not None else None


def answer_refused_call(context: ToolCallHookContext) -> str | None:
    turn = refused_turn_of(context)
    return None if turn is None else turn.text_for(context.tool_name, context.tool_input)


def keep_hooks_first() -> None:
    """The gate's hooks first in CrewAI's global tool hooks (which run in the order they were
    registered): a hook that asks a person must not see a refused turn's call."""
    keep_first(block_refused_call, get_before_tool_call_hooks(), register_before_tool_call_hook,
               unregister_before_tool_call_hook)
    keep_first(answer_refused_call, get_after_tool_call_hooks(), register_after_tool_call_hook,
               unregister_after_tool_call_hook)


def keep_first(ours: Any, hooks: list[Any], register: Callable[[Any], None],
               unregister: Callable[[Any], bool]) -> None:
    # Only through CrewAI's public functions, which append: take the others out and put them back.
    if hooks[:1] == [ours]:
        return
    for hook in hooks:
        unregister(hook)
    register(ours)
    for hook in hooks:
        if hook is not ours:
            register(hook)
