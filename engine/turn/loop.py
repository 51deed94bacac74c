"""A reference loop that hosts can adopt: the gate first, then one decision for the turn.

A refused turn returns its answers and calls no hook at all: no tool runs, no approval card
or question is raised, no external call budget is charged, nothing is appended to the
invocation history. An accepted turn raises its approvals and its questions for the whole
turn at once (a pause holds every call of the turn), charges the budget for its external
calls, runs them, appends them to the history and records the steps.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Protocol

from attrs import evolve, field, frozen

from ..values.converters import as_tuple
from ..compile.casting import Cast
from ..table.entries import Table
from ..values.quoting import path_text
from .calls import Call
from .gate import Toolset, check_turn
from .steps import RunStep, refused_steps, step_id


@frozen
class Tool:
    """A tool as the loop offers it: its schema and what must happen before it runs."""

    name: str
    schema: object = None
    approval: bool = False  # a person approves the call first
    question: bool = False  # the call needs a person's input first
    external: bool = False  # each call is charged to the run's external call budget


class Hooks(Protocol):
    """What the host does; the loop decides when, and whether at all."""

    def approve(self, calls: tuple[Call, ...]) -> bool: ...
    def ask(self, calls: tuple[Call, ...]) -> Mapping[object, object]: ...
    def charge(self, call: Call) -> None: ...
    def execute(self, call: Call, given: object) -> object: ...
    def remember(self, call: Call, result: object) -> None: ...


@frozen
class TurnOutcome:
    """What became of a turn: whether it ran, each call id's answer (a tool's result, or a
    text), and the steps recorded for it."""

    ran: bool
    answers: tuple[tuple[object, object], ...] = field(converter=as_tuple)
    steps: tuple[RunStep, ...] = field(converter=as_tuple)


class Loop:
    """Turns of one run, gated against the tools offered, with the host's hooks."""

    tools: dict[str, Tool]
    toolset: Toolset
    hooks: Hooks
    privacy: str
    casts: bool
    turns: int

    def __init__(self, tools: Iterable[Tool], hooks: Hooks, table: Table | str | None = None,
                 privacy: str = "full", casts: bool = False):
        self.tools = {tool.name: tool for tool in tools}
        self.toolset = Toolset({name: tool.schema for name, tool in self.tools.items()}, table, casts=casts)
        self.hooks, self.privacy, self.casts = hooks, privacy, casts
        self.turns = 0
        self.steps: list[RunStep] = []

    def run_turn(self, calls: Iterable[Call | Mapping[str, Any]]) -> TurnOutcome:
        self.turns += 1
        verdict = check_turn(calls, self.toolset, casts=self.casts)
        if not verdict.ok:
            outcome = TurnOutcome(False, [(a.call_id, a.text) for a in verdict.answers],
                                  refused_steps(verdict, self.turns, self.privacy))
        else:
            outcome = self._run(verdict.calls, verdict.casts)
        self.steps.extend(outcome.steps)
        return outcome

    def _needing(self, calls: tuple[Call, ...], flag: str) -> tuple[Call, ...]:
        return tuple(call for call in calls if getattr(self.tools[call.tool], flag))

    def _run(self, calls: tuple[Call, ...], casts: tuple[Cast, ...]) -> TurnOutcome:
        to_approve = self._needing(calls, "approval")
        if to_approve and not self.hooks.approve(to_approve):
            return self._declined(calls)
        to_ask = self._needing(calls, "question")
        given = self.hooks.ask(to_ask) if to_ask else {}
        answers, steps = [], []
        for index, call in enumerate(calls, 1):
            if self.tools[call.tool].external:
                self.hooks.charge(call)
            try:
                result, status = self.hooks.execute(call, given.get(call.id)), "ok"
            except Exception:  # the model is told only that the tool failed, as before
                result, status = self.toolset.words.answer("failed", tool=call.tool), "failed"
            self.hooks.remember(call, result)
            answers.append((call.id, result))
            step = self._step(index, call, status, text=None if status == "ok" else result)
            if casts and casts[index - 1].changed:
                changed = casts[index - 1].changed
                step = evolve(step, casts=[path_text(p) for p in changed], cast_count=len(changed))
            steps.append(step.at_privacy(self.privacy))
        return TurnOutcome(True, answers, steps)

    def _declined(self, calls: tuple[Call, ...]) -> TurnOutcome:
        texts = [self.toolset.words.answer("declined", tool=call.tool) for call in calls]
        steps = [self._step(i, call, "declined", text=text).at_privacy(self.privacy)
                 for i, (call, text) in enumerate(zip(calls, texts), 1)]
        return TurnOutcome(False, [(call.id, text) for call, text in zip(calls, texts)], steps)

    def _step(self, index: int, call: Call, status: str, text: object) -> RunStep:
        return RunStep(self.turns, index, call.tool, status, call_id=step_id(call.id),
                       text=text if isinstance(text, str) else None)
