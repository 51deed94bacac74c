"""The pydantic-ai capability (turngate.integrations.pydantic_ai), driven through a real `Agent`
with a scripted `FunctionModel`: plain, and streamed (an `event_stream_handler` makes the agent
stream each model response)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai import (Agent, DeferredToolRequests, DeferredToolResults, FunctionToolResultEvent, NativeOutput,
                         PromptedOutput, UnexpectedModelBehavior)
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models.function import FunctionModel

import scripted_models as s
from telemetry_support import Emitted, assert_scenario_reported
from turngate import RunStep
from turngate.integrations.pydantic_ai import TurnGate

MODES = ["plain", "streamed"]


def build(script, gate=True, output_type=(str, DeferredToolRequests), end_strategy="graceful", **gate_options):
    recorder = s.Recorder()
    model = s.ScriptedFunctionModel(script)
    agent = Agent(model, output_type=list(output_type), capabilities=[TurnGate(**gate_options)] if gate else [],
                  end_strategy=end_strategy)
    agent.tool_plain(description=s.GET_PAGE_DOC)(recorder.get_page)
    agent.tool_plain(description=s.UPDATE_DOC, requires_approval=True)(recorder.update_page_metadata)
    return agent, model, recorder


def run(agent, mode):
    """Runs to the end, approving every deferred call: the result, the approvals asked, and the
    tool results the event stream showed."""
    approvals, tool_results = [], []

    async def watch(ctx, events):
        async for event in events:
            if isinstance(event, FunctionToolResultEvent):
                tool_results.append((event.part.tool_call_id, event.part.content))

    async def until_done():
        options = {"event_stream_handler": watch} if mode == "streamed" else {}
        result = await agent.run(s.USER_TEXT, **options)
        while isinstance(result.output, DeferredToolRequests):
            approvals.append([(call.tool_name, call.args_as_dict()) for call in result.output.approvals])
            decisions = DeferredToolResults(approvals={call.tool_call_id: True for call in result.output.approvals})
            result = await agent.run(message_history=result.all_messages(), deferred_tool_results=decisions, **options)
        return result

    return asyncio.run(until_done()), approvals, tool_results


def answers(model_input) -> dict:
    """The tool returns of the model's latest input, by call id: (text, outcome)."""
    return {part.tool_call_id: (part.content, part.outcome) for part in model_input[-1].parts
            if type(part).__name__ in ("ToolReturnPart", "RetryPromptPart")}


def transcript(result) -> list:
    return [(type(part).__name__, getattr(part, "content", None), getattr(part, "args", None),
             getattr(part, "tool_call_id", None), getattr(part, "outcome", None))
            for message in result.all_messages() for part in message.parts]


@pytest.mark.parametrize("mode", MODES)
def test_a_b_c_a_refused_turn_runs_nothing_asks_nothing_and_is_answered(mode):
    agent, model, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT])
    result, approvals, tool_results = run(agent, mode)

    # (a) Nothing of the refused turn ran.
    assert recorder.runs == [("get_page", s.CLEAN_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]
    # (b) No approval deferred for the refused turn; the clean turn's, as without the gate.
    plain, _, _ = build([s.CLEAN_TURN, s.FINAL_TEXT], gate=False)
    assert approvals == run(plain, mode)[1] == [[("update_page_metadata", s.CLEAN_TURN[1][2])]]
    # (c) The model's next input answers every call id ("failed": no retry spent); the run goes on.
    assert answers(model.inputs[1]) == {"call_1": (s.NOT_RUN_GET_PAGE, "failed"), "call_2": (s.REFUSED_UPDATE, "failed")}
    assert result.output == s.FINAL_TEXT
    assert model.streamed == [mode == "streamed"] * 3
    if mode == "streamed":  # the framework's own tool events carry the answers
        assert tool_results[:2] == [("call_1", s.NOT_RUN_GET_PAGE), ("call_2", s.REFUSED_UPDATE)]


def test_without_the_gate_the_good_sibling_runs_and_the_bad_call_spends_a_retry():
    agent, model, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], gate=False)
    run(agent, "plain")
    assert answers(model.inputs[1])["call_2"][1] == "retried"
    assert recorder.runs[0] == ("get_page", s.REFUSED_TURN[0][2])


@pytest.mark.parametrize("mode", MODES)
def test_d_an_all_clean_run_is_the_same_with_and_without_the_gate(mode):
    script = [s.CLEAN_TURN, s.FINAL_TEXT]
    (agent, model, recorder), (plain, plain_model, plain_recorder) = build(script), build(script, gate=False)
    gated_result, gated_approvals, gated_events = run(agent, mode)
    plain_result, plain_approvals, plain_events = run(plain, mode)
    assert transcript(gated_result) == transcript(plain_result)
    assert gated_approvals == plain_approvals != []
    assert gated_events == plain_events
    assert recorder.runs == plain_recorder.runs != []
    assert len(model.inputs) == len(plain_model.inputs)


@pytest.mark.parametrize("mode", MODES)
def test_e_text_that_is_not_json_and_an_unknown_tool_are_answered_as_the_turn_gate_answers(mode):
    # Twice: pydantic-ai's own answer to an unknown tool spends a retry, and would end the run.
    agent, model, recorder = build([s.BROKEN_TURN, s.BROKEN_TURN, s.FINAL_TEXT])
    result, approvals, _ = run(agent, mode)
    expected = {call_id: (text, "failed") for call_id, text in s.turngate_answers(s.BROKEN_TURN).items()}
    assert answers(model.inputs[1]) == answers(model.inputs[2]) == expected
    assert recorder.runs == [] and approvals == []
    assert result.output == s.FINAL_TEXT


def test_an_unknown_tool_spends_the_retries_without_the_gate():
    agent, _, _ = build([s.BROKEN_TURN, s.BROKEN_TURN, s.FINAL_TEXT], gate=False)
    with pytest.raises(UnexpectedModelBehavior, match="exceeded max retries"):
        run(agent, "plain")


class Summary(BaseModel):
    summary: str


@pytest.mark.parametrize("mode", MODES)
def test_an_output_tool_call_in_a_refused_turn_does_not_end_the_run(mode):
    script = [[s.REFUSED_TURN[1], ("call_8", "final_result", {"summary": "Retitled."})],
              [("call_9", "final_result", {"summary": "Nothing changed yet."})]]
    agent, model, recorder = build(script, output_type=(Summary,))
    result, _, _ = run(agent, mode)
    assert result.output == Summary(summary="Nothing changed yet.")
    assert answers(model.inputs[1]) == {"call_2": (s.REFUSED_UPDATE, "failed"), "call_8": (
        'Not run: this call of tool "final_result" matched its schema, but another call of the same turn did '
        "not, so nothing was run; send this call again, unchanged, together with the corrected one.", "failed")}
    assert recorder.runs == []
    # Without the gate the run ends on the refused turn's output.
    plain, _, _ = build(script, gate=False, output_type=(Summary,))
    assert run(plain, mode)[0].output == Summary(summary="Retitled.")


@pytest.mark.parametrize("mode", MODES)
def test_f_the_runs_steps_are_recorded_with_their_codes_at_metadata_only(mode):
    steps: list[RunStep] = []
    agent, _, _ = build([s.REFUSED_TURN, s.BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT], record=steps.append)
    run(agent, mode)
    s.assert_steps_of_the_refused_and_the_broken_turn(steps)


def test_each_run_gets_a_gate_of_its_own():
    gate = TurnGate()
    agent, _, _ = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], gate=False)
    result = asyncio.run(agent.run(s.USER_TEXT, capabilities=[gate]))
    assert isinstance(result.output, DeferredToolRequests) and gate.refused == {}


@dataclass
class FixTitles(AbstractCapability[Any]):
    """A host's capability that completes update_page_metadata calls that lack a title."""

    async def after_model_request(self, ctx, *, request_context, response):
        for part in response.tool_calls:
            arguments = json.loads(part.args)
            if part.tool_name == "update_page_metadata" and "title" not in arguments:
                part.args = json.dumps({**arguments, "title": "Opening hours", "status": "review"})
        return response


@pytest.mark.parametrize("gate_first", [True, False])
def test_the_gate_judges_the_response_as_other_capabilities_leave_it_however_it_is_listed(gate_first):
    recorder = s.Recorder()
    agent = Agent(s.ScriptedFunctionModel([s.REFUSED_TURN, s.FINAL_TEXT]),
                  capabilities=[TurnGate(), FixTitles()] if gate_first else [FixTitles(), TurnGate()])
    agent.tool_plain(description=s.GET_PAGE_DOC)(recorder.get_page)
    agent.tool_plain(description=s.UPDATE_DOC)(recorder.update_page_metadata)
    assert asyncio.run(agent.run(s.USER_TEXT)).output == s.FINAL_TEXT
    assert recorder.runs == [("get_page", s.REFUSED_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]


@pytest.mark.parametrize("mode", MODES)
def test_with_telemetry_each_decided_turn_is_reported(mode):
    emitted = Emitted()
    agent, _, _ = build([s.REFUSED_TURN, s.BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT], telemetry=emitted.telemetry)
    run(agent, mode)
    assert_scenario_reported(emitted, "pydantic-ai")


# Every way a run can end: output tools and end_strategy ---------------------------------------------

STRATEGIES = ["early", "graceful", "exhaustive"]
FINAL = ("call_8", "final_result", {"summary": "Retitled."})
NOT_RUN_FINAL = ('Not run: this call of tool "final_result" matched its schema, but another call of the same turn '
                 "did not, so nothing was run; send this call again, unchanged, together with the corrected one.")
#: A turn that fits: a page read beside the output.
READ_AND_FINISH = [s.CLEAN_TURN[0], ("call_9", "final_result", {"summary": "Read, and done."})]
REFUSED_WITH_OUTPUT = {
    "a bad call beside an output call": ([s.REFUSED_TURN[1], FINAL],
                                         {"call_2": (s.REFUSED_UPDATE, "failed"), "call_8": (NOT_RUN_FINAL, "failed")}),
    "a bad output call beside a good call": (
        [s.REFUSED_TURN[0], ("call_8", "final_result", {"headline": "Retitled."})],
        {"call_1": (s.NOT_RUN_GET_PAGE, "failed"), "call_8": (
            'Refused: the arguments do not match the schema of tool "final_result", so nothing was run.\n'
            '- "summary" is missing; it is required and must be text.', "failed")}),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", REFUSED_WITH_OUTPUT)
def test_a_refused_turn_with_an_output_call_never_ends_the_run_whatever_the_end_strategy(case, strategy, mode):
    refused, answered = REFUSED_WITH_OUTPUT[case]
    agent, model, recorder = build([refused, READ_AND_FINISH], output_type=(Summary,), end_strategy=strategy)
    result, _, _ = run(agent, mode)
    # The model got an answer per call id ("failed": no retry spent), and wrote its next turn.
    assert answers(model.inputs[1]) == answered and len(model.inputs) == 2
    # That turn fits, and ends the run exactly as it does without the gate.
    plain, plain_model, plain_recorder = build([READ_AND_FINISH], gate=False, output_type=(Summary,),
                                               end_strategy=strategy)
    plain_result, _, _ = run(plain, mode)
    assert result.output == plain_result.output == Summary(summary="Read, and done.")
    assert transcript(result)[-4:] == transcript(plain_result)[-4:]
    assert recorder.runs == plain_recorder.runs == ([] if strategy == "early" else [("get_page", s.CLEAN_TURN[0][2])])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_without_the_gate_an_output_call_beside_a_bad_call_ends_the_run_on_the_refused_turn(strategy):
    plain, model, _ = build([[s.REFUSED_TURN[1], FINAL], READ_AND_FINISH], gate=False, output_type=(Summary,),
                            end_strategy=strategy)
    assert run(plain, "plain")[0].output == Summary(summary="Retitled.") and len(model.inputs) == 1


def text_output_run(output, strategy: str, gated: bool) -> tuple:
    """A run whose first response writes a structured output as text beside REFUSED_TURN's
    calls, and whose second writes another: its output, its model requests, its tools' runs."""
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    calls = [ToolCallPart(name, s.raw(arguments), tool_call_id=call_id) for call_id, name, arguments in s.REFUSED_TURN]
    turns = iter([[TextPart('{"summary": "Retitled."}'), *calls], [TextPart('{"summary": "Read, and done."}')]])
    recorder, requests = s.Recorder(), []

    def respond(messages, info) -> ModelResponse:
        requests.append(messages)
        return ModelResponse(parts=next(turns))

    agent = Agent(FunctionModel(respond), output_type=output, end_strategy=strategy,
                  capabilities=[TurnGate()] if gated else [])
    agent.tool_plain(recorder.get_page)
    agent.tool_plain(recorder.update_page_metadata)
    return agent.run_sync(s.USER_TEXT).output, len(requests), recorder.runs


@pytest.mark.parametrize("output", [NativeOutput(Summary), PromptedOutput(Summary)], ids=["native", "prompted"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_output_written_as_text_beside_a_refused_turn_ends_the_run_only_where_the_strategy_skips_the_calls(
        strategy, output):
    """Text is no call: under "early" a structured output written beside the calls ends the run
    and pydantic-ai skips the calls, with or without the gate (none runs, none is answered);
    under the others the calls' answers go back to the model."""
    gated_output, gated_requests, gated_runs = text_output_run(output, strategy, True)
    plain_output, plain_requests, plain_runs = text_output_run(output, strategy, False)
    assert gated_runs == []
    if strategy == "early":
        assert gated_output == plain_output == Summary(summary="Retitled.") and gated_requests == plain_requests == 1
    else:
        assert gated_output == plain_output == Summary(summary="Read, and done.") and gated_requests == 2
        assert plain_runs == [("get_page", s.REFUSED_TURN[0][2])]
