"""The reference loop with recording fakes: every sentence of ADR 246's Decision about turns.

- "The loop checks every call of a turn ... before any call of the turn runs."
- "A turn with a mismatch runs nothing ... No tool runs, no approval card or question is
  raised, no external call budget is charged, and the invocation history ... is not
  appended to."
- "The pauses for approval and input already hold a whole turn."
- "The refusal is recorded as a code. The tool step carries toolRefusal."
"""

from __future__ import annotations

import pytest

from turngate import Call
from turngate.turn.loop import Loop, Tool

OBJECT = {"type": "object", "properties": {"uid": {"type": "integer"}}, "required": ["uid"]}
TOOLS = [
    Tool("read", OBJECT),
    Tool("publish", OBJECT, approval=True),
    Tool("translate", OBJECT, question=True),
    Tool("remote_search", OBJECT, external=True),
    Tool("remote_publish", OBJECT, approval=True, external=True),
]


class Recorder:
    """Hooks that record every call made to them, in order."""

    def __init__(self, approve=True, fail=()):
        self.events: list[tuple] = []
        self.budget_spent = 0
        self.history: list = []
        self._approve, self._fail = approve, fail

    def approve(self, calls):
        self.events.append(("approve", tuple(c.id for c in calls)))
        return self._approve

    def ask(self, calls):
        self.events.append(("ask", tuple(c.id for c in calls)))
        return {c.id: f"answer for {c.id}" for c in calls}

    def charge(self, call):
        self.events.append(("charge", call.id))
        self.budget_spent += 1

    def execute(self, call, given):
        self.events.append(("execute", call.id, given))
        if call.tool in self._fail:
            raise RuntimeError("boom")
        return {"done": call.id}

    def remember(self, call, result):
        self.events.append(("remember", call.id))
        self.history.append(call.id)


def every_tool(bad: str | None = None):
    return [Call(tool.name, tool.name, {"uid": [] if tool.name == bad else 1}) for tool in TOOLS]


@pytest.mark.parametrize("bad", [tool.name for tool in TOOLS])
def test_a_refused_turn_calls_no_hook_at_all(bad):
    hooks = Recorder()
    outcome = Loop(TOOLS, hooks).run_turn(every_tool(bad))
    assert not outcome.ran
    assert hooks.events == [] and hooks.budget_spent == 0 and hooks.history == []
    assert [answer_id for answer_id, _ in outcome.answers] == [tool.name for tool in TOOLS]


def test_a_refused_external_call_spends_no_budget():
    hooks = Recorder()
    loop = Loop(TOOLS, hooks)
    loop.run_turn([Call("x", "remote_search", {"uid": {"id": 1}})])
    assert hooks.budget_spent == 0
    loop.run_turn([Call("y", "remote_search", {"uid": 1})])
    assert hooks.budget_spent == 1


def test_a_person_is_never_asked_about_a_call_whose_arguments_do_not_fit():
    hooks = Recorder()
    Loop(TOOLS, hooks).run_turn([Call("p", "publish", {"uid": 1}), Call("t", "translate", {})])
    assert not any(event[0] in ("approve", "ask") for event in hooks.events)


def test_an_accepted_turn_approves_and_asks_once_for_the_whole_turn_then_charges_runs_and_remembers():
    hooks = Recorder()
    outcome = Loop(TOOLS, hooks).run_turn(every_tool())
    assert outcome.ran
    assert hooks.events == [
        ("approve", ("publish", "remote_publish")),
        ("ask", ("translate",)),
        ("execute", "read", None), ("remember", "read"),
        ("execute", "publish", None), ("remember", "publish"),
        ("execute", "translate", "answer for translate"), ("remember", "translate"),
        ("charge", "remote_search"), ("execute", "remote_search", None), ("remember", "remote_search"),
        ("charge", "remote_publish"), ("execute", "remote_publish", None), ("remember", "remote_publish"),
    ]
    assert outcome.answers[0] == ("read", {"done": "read"})
    assert [s.status for s in outcome.steps] == ["ok"] * 5


def test_a_turn_the_person_does_not_approve_runs_nothing_and_charges_nothing():
    hooks = Recorder(approve=False)
    outcome = Loop(TOOLS, hooks).run_turn(every_tool())
    assert hooks.events == [("approve", ("publish", "remote_publish"))]
    assert not outcome.ran and {s.status for s in outcome.steps} == {"declined"}
    assert outcome.answers[0][1] == 'Not run: the turn with this call of tool "read" was not approved, so nothing was run.'


def test_a_tool_that_fails_is_answered_with_the_generic_text_and_recorded_as_failed():
    hooks = Recorder(fail=("read",))
    outcome = Loop(TOOLS, hooks).run_turn([Call("r", "read", {"uid": 1}), Call("s", "remote_search", {"uid": 2})])
    assert outcome.answers == (("r", 'Error: tool "read" failed.'), ("s", {"done": "s"}))
    assert [(s.status, s.tool_refusal) for s in outcome.steps] == [("failed", None), ("ok", None)]
    assert hooks.history == ["r", "s"]


def test_the_steps_of_a_run_carry_the_refusal_codes_in_order():
    hooks = Recorder()
    loop = Loop(TOOLS, hooks, privacy="metadata-only")
    loop.run_turn([Call("a", "read", {"uid": 1}), Call("b", "publish", {}), Call("c", "reed", {})])
    loop.run_turn([Call("d", "read", {"uid": 1})])
    assert [(s.turn, s.index, s.tool, s.status, s.tool_refusal, s.codes) for s in loop.steps] == [
        (1, 1, "read", "not-run", "turn", ()),
        (1, 2, "publish", "refused", "arguments", ("missing",)),
        # The name of a tool that was not offered is the model's text: only that it was unknown is kept.
        (1, 3, None, "refused", "arguments", ("unknown-tool",)),
        (2, 1, "read", "ok", None, ()),
    ]
    assert all(s.text is None and s.call_id is None for s in loop.steps)


def test_full_privacy_keeps_the_answer_texts_and_ids():
    loop = Loop(TOOLS, Recorder())
    loop.run_turn([Call("a", "read", {"uid": []})])
    (step,) = loop.steps
    assert step.call_id == "a" and step.text.startswith("Refused: ") and step.codes == ("kind",)
