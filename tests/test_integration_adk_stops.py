"""The Google ADK gate under every way an ADK run ends after tool calls: a tool's or an agent
callback's `skip_summarization`, escalation out of a `LoopAgent`, `transfer_to_agent`, an
output schema's `set_model_response`, a long-running tool. A refused turn ends none of them;
a turn that fits ends the run exactly as it would without the gate."""

from __future__ import annotations

from typing import Any

import pytest
from google.adk.agents import LlmAgent, LoopAgent
from google.adk.tools import LongRunningFunctionTool, ToolContext, exit_loop
from pydantic import BaseModel

import scenario as s
from adk_support import MODES, ScriptedLlm, answers, error, not_run, page_tools, run, runner_for, scripted, transcript

pytestmark = pytest.mark.filterwarnings("ignore:LoopAgent is deprecated:DeprecationWarning")


class Summary(BaseModel):
    summary: str


def publishing(model: ScriptedLlm, recorder: s.Recorder) -> LlmAgent:
    """A tool whose result is the run's answer: it sets `skip_summarization`."""
    def publish_page(uid: int, tool_context: ToolContext) -> str:
        """Publish a page."""
        recorder.log.append(("publish_page", {"uid": uid}))
        tool_context.actions.skip_summarization = True
        return f"Page {uid} published."

    return LlmAgent(name="pages", model=model, tools=[*page_tools(recorder, confirm=False), publish_page])


def summarizing_nothing(model: ScriptedLlm, recorder: s.Recorder) -> LlmAgent:
    """The agent's own after_tool_callback sets `skip_summarization` on every call."""
    def skip_summarization(tool: Any, args: Any, tool_context: ToolContext, tool_response: Any) -> None:
        tool_context.actions.skip_summarization = True

    return LlmAgent(name="pages", model=model, tools=page_tools(recorder, confirm=False),
                    after_tool_callback=skip_summarization)


def looping(model: ScriptedLlm, recorder: s.Recorder) -> LoopAgent:
    """`exit_loop` escalates out of the loop."""
    pages = LlmAgent(name="pages", model=model, tools=[*page_tools(recorder, confirm=False), exit_loop])
    return LoopAgent(name="loop", max_iterations=3, sub_agents=[pages])


def transferring(model: ScriptedLlm, recorder: s.Recorder) -> LlmAgent:
    """`transfer_to_agent` hands the run to another agent."""
    publisher = LlmAgent(name="publisher", description="Publishes pages.", model=scripted(["Published."]))
    return LlmAgent(name="pages", model=model, tools=page_tools(recorder, confirm=False), sub_agents=[publisher])


def structured(model: ScriptedLlm, recorder: s.Recorder) -> LlmAgent:
    """An output schema with tools: ADK offers `set_model_response`, whose result ends the run."""
    return LlmAgent(name="pages", model=model, tools=page_tools(recorder, confirm=False), output_schema=Summary)


def waiting(model: ScriptedLlm, recorder: s.Recorder) -> LlmAgent:
    """A long-running tool that returns nothing yet: the run pauses for the host's answer."""
    def request_review(uid: int) -> None:
        """Ask a person to review a page."""
        recorder.log.append(("request_review", {"uid": uid}))

    return LlmAgent(name="pages", model=model,
                    tools=[*page_tools(recorder, confirm=False), LongRunningFunctionTool(request_review)])


STOP_RULES = {  # the agent, the call that ends its run, and whether it ends a turn with a bad call too
    "skip_summarization": (publishing, ("publish_page", {"uid": 42}), True),
    "skip_summarization_by_callback": (summarizing_nothing, ("get_page", {"uid": 42, "language": "de"}), True),
    "escalate": (looping, ("exit_loop", {}), True),
    "transfer_to_agent": (transferring, ("transfer_to_agent", {"agent_name": "publisher"}), True),
    "set_model_response": (structured, ("set_model_response", {"summary": "Retitled."}), True),
    # ADK pauses only where no call of the turn was answered: the bad call's error goes back.
    "long_running": (waiting, ("request_review", {"uid": 42}), False),
}


def play(make_agent: Any, script: list[Any], gate: bool, mode: str) -> tuple[list[Any], ScriptedLlm, s.Recorder]:
    recorder, model = s.Recorder(), scripted(script)
    events, _ = run(runner_for(make_agent(model, recorder), gate), mode)
    return events, model, recorder


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rule", STOP_RULES)
def test_a_refused_turn_never_ends_the_run_and_a_fitting_one_ends_it_as_without_the_gate(rule, mode):
    make_agent, (tool, arguments), ends_a_bad_turn = STOP_RULES[rule]
    refused = [[s.REFUSED_TURN[1], ("call_8", tool, arguments)], [("call_9", tool, arguments)]]
    fitting = [[("call_9", tool, arguments)]]

    # Without the gate the stopping call runs, and (but for a long-running one) ends the run.
    _, plain_model, plain_recorder = play(make_agent, refused, False, mode)
    assert len(plain_model.requests) == 1 if ends_a_bad_turn else plain_recorder.log[0] == (tool, arguments)
    # With it, nothing of the turn runs, the model gets the answers, and the run goes on...
    events, model, recorder = play(make_agent, refused, True, mode)
    assert answers(model.requests[1]) == {"call_2": error(s.REFUSED_UPDATE), "call_8": error(not_run(tool))}
    # (ADK marks a turn holding a long-running call final, though the gate answered the call.)
    turn = next(event for event in events if event.get_function_calls() and not event.partial)
    assert turn.is_final_response() is (rule == "long_running")
    assert [call for call in recorder.log if call[0] != tool] == []
    # ...to end as a run of the corrected turn alone ends without the gate,
    plain_events, plain_model, plain_recorder = play(make_agent, fitting, False, mode)
    answered = next(at for at, event in enumerate(events) if event.get_function_responses()) + 1
    assert transcript(events[answered:]) == transcript(plain_events)
    # and a fitting turn ends the run exactly as it would without the gate.
    gated_events, gated_model, gated_recorder = play(make_agent, fitting, True, mode)
    assert transcript(gated_events) == transcript(plain_events)
    assert gated_recorder.log == plain_recorder.log == recorder.log
    assert [r.contents for r in gated_model.requests] == [r.contents for r in plain_model.requests]
