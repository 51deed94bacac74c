"""The LangChain middleware (turngate.integrations.langchain), driven through the real
`create_agent` and `HumanInTheLoopMiddleware` with a scripted model: invoked, streamed
(the model's tokens, `stream_mode="messages"`) and streamed asynchronously."""

from __future__ import annotations

import io

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain.agents.structured_output import AutoStrategy, ProviderStrategy, ToolStrategy
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import BaseModel

import scripted_models as s
from telemetry_support import Emitted, assert_scenario_reported
from turngate import RunStep, dump_steps, load_steps
from turngate.integrations.langchain import GateOrderError, TurnGate, gated_agent, output_tool_names

MODES = s.GRAPH_MODES


def page_tools(recorder, return_direct=()):
    return [tool(recorder.get_page, description=s.GET_PAGE_DOC, return_direct="get_page" in return_direct),
            tool(recorder.update_page_metadata, description=s.UPDATE_DOC,
                 return_direct="update_page_metadata" in return_direct)]


def build(script, gate=True, interrupt_mode="batched", return_direct=(), **gate_options):
    """A scripted model, tools that record their runs (those named in `return_direct` end the
    run with their result), and an agent that asks approval for `update_page_metadata`: made
    by `gated_agent`, or by `create_agent` without the gate."""
    recorder = s.Recorder()
    model = s.ScriptedChatModel(script=script)
    approvals = HumanInTheLoopMiddleware(interrupt_on={"update_page_metadata": True}, interrupt_mode=interrupt_mode)
    make = gated_agent if gate else create_agent
    agent = make(model, page_tools(recorder, return_direct), middleware=[approvals], checkpointer=InMemorySaver(),
                 **gate_options)
    return agent, model, recorder


def asked(outcome):
    return [[(request["name"], request["args"]) for request in value["action_requests"]]
            for value in outcome.approvals]


@pytest.mark.parametrize("mode", MODES)
def test_a_b_c_a_refused_turn_runs_nothing_asks_nothing_and_is_answered(mode):
    agent, model, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT])
    outcome = s.run_graph(agent, mode)

    # (a) Nothing of the refused turn ran: only the clean turn's calls, after its approval.
    assert recorder.runs == [("get_page", s.CLEAN_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]
    # (b) No approval for the refused turn's call_2; the clean turn's asked as without the gate.
    plain, _, _ = build([s.CLEAN_TURN, s.FINAL_TEXT], gate=False)
    assert outcome.approvals == s.run_graph(plain, mode).approvals
    assert asked(outcome) == [[("update_page_metadata", s.CLEAN_TURN[1][2])]]
    # (c) The model's next input answers every call id; the run goes on to the clean turn.
    assert [(m.tool_call_id, m.content, m.status) for m in model.inputs[1][-2:]] == [
        ("call_1", s.NOT_RUN_GET_PAGE, "error"), ("call_2", s.REFUSED_UPDATE, "error")]
    assert outcome.messages[-1].content == s.FINAL_TEXT and len(model.inputs) == 3
    assert model.streamed == ([] if mode == "invoke" else [True] * 3)


@pytest.mark.parametrize("mode", MODES)
def test_b_per_call_approvals_are_held_back_too(mode):
    """`interrupt_mode="per_call"` asks as each call starts: a refused turn never starts one."""
    agent, _, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], interrupt_mode="per_call")
    outcome = s.run_graph(agent, mode, resume_with=lambda interrupt: {interrupt.id: {"type": "approve"}})
    assert [(value["name"], value["args"]) for value in outcome.approvals] == [
        ("update_page_metadata", s.CLEAN_TURN[1][2])]
    assert recorder.runs == [("get_page", s.CLEAN_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]


def test_without_the_gate_the_bad_call_reaches_the_approval_and_its_sibling_runs():
    """What the gate prevents."""
    agent, _, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], gate=False)
    outcome = s.run_graph(agent, "invoke", resume_with=lambda _: {"decisions": [{"type": "reject", "message": "No."}]})
    assert asked(outcome)[0] == [("update_page_metadata", s.REFUSED_TURN[1][2])]
    assert recorder.runs[0] == ("get_page", s.REFUSED_TURN[0][2])


@pytest.mark.parametrize("mode", MODES)
def test_d_an_all_clean_run_is_the_same_with_and_without_the_gate(mode):
    script = [s.CLEAN_TURN, s.FINAL_TEXT]
    (gated, gated_model, gated_recorder), (plain, plain_model, plain_recorder) = build(script), build(script, gate=False)
    with_gate, without_gate = s.run_graph(gated, mode), s.run_graph(plain, mode)

    s.assert_clean_runs_alike(with_gate, without_gate, (gated_model, gated_recorder), (plain_model, plain_recorder))


@pytest.mark.parametrize("mode", MODES)
def test_e_text_that_is_not_json_and_an_unknown_tool_are_answered_as_the_turn_gate_answers(mode):
    agent, _, recorder = build([s.BROKEN_TURN, s.FINAL_TEXT])
    outcome = s.run_graph(agent, mode)

    # LangChain could not decode call_5's arguments: it is an invalid_tool_call with the raw text.
    assert [call["id"] for call in outcome.messages[1].invalid_tool_calls] == ["call_5"]
    assert outcome.answers() == {call_id: (text, "error") for call_id, text in s.turngate_answers(s.BROKEN_TURN).items()}
    assert recorder.runs == [] and outcome.approvals == []
    assert outcome.messages[-1].content == s.FINAL_TEXT


def test_langchain_completes_cut_off_json_before_the_gate_sees_it():
    """A limitation: LangChain's parser closes '{"uid": 42' as {"uid": 42}, so the call is
    judged on what LangChain made of it, never answered as cut off."""
    agent, _, _ = build([[("call_1", "get_page", '{"uid": 42')], s.FINAL_TEXT])
    outcome = s.run_graph(agent, "stream")
    assert outcome.messages[1].tool_calls[0]["args"] == {"uid": 42}
    assert outcome.answers()["call_1"][0].startswith('Refused: the arguments do not match the schema of tool "get_page"')


@pytest.mark.parametrize("mode", MODES)
def test_f_the_runs_steps_are_recorded_with_their_codes_at_metadata_only(mode):
    steps: list[RunStep] = []
    agent, _, _ = build([s.REFUSED_TURN, s.BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT], record=steps.append)
    s.run_graph(agent, mode)
    assert [(step.turn, step.index) for step in steps] == [(1, 1), (1, 2), (2, 1), (2, 2), (2, 3)]
    # LangChain keeps the call it could not decode apart from the others: it is judged last.
    broken = [s.BROKEN_STEPS[1], s.BROKEN_STEPS[2], s.BROKEN_STEPS[0]]
    assert [(step.tool, step.status, step.tool_refusal, step.codes) for step in steps] == s.REFUSED_STEPS + broken
    assert all(step.privacy == "metadata-only" and step.call_id is None and step.text is None for step in steps)
    written = io.StringIO()
    dump_steps(steps, written)
    assert load_steps(written.getvalue().splitlines()) == (steps, [])


def test_the_gate_listed_before_the_approvals_is_refused_with_a_clear_error():
    tools = page_tools(s.Recorder())
    gate = TurnGate(tools)
    approvals = HumanInTheLoopMiddleware(interrupt_on={"update_page_metadata": True})
    wrong = create_agent(s.ScriptedChatModel(script=[]), tools, middleware=[gate, approvals])
    with pytest.raises(GateOrderError, match="list TurnGate LAST"):
        gate.check_order(wrong)


def test_a_gate_whose_place_was_not_checked_refuses_to_run_before_the_model_is_called():
    recorder = s.Recorder()
    tools = page_tools(recorder)
    model = s.ScriptedChatModel(script=[s.REFUSED_TURN])
    approvals = HumanInTheLoopMiddleware(interrupt_on={"update_page_metadata": True})
    agent = create_agent(model, tools, middleware=[approvals, TurnGate(tools)], checkpointer=InMemorySaver())
    with pytest.raises(GateOrderError, match=r"gate.check_order\(agent\)"):
        s.run_graph(agent, "invoke")
    assert model.inputs == [] and recorder.runs == []


def test_the_gate_listed_after_the_approvals_by_hand_and_checked_holds_approvals_back():
    recorder = s.Recorder()
    tools = page_tools(recorder)
    model = s.ScriptedChatModel(script=[s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT])
    gate = TurnGate(tools)
    approvals = HumanInTheLoopMiddleware(interrupt_on={"update_page_metadata": True})
    agent = gate.check_order(create_agent(model, tools, middleware=[approvals, gate], checkpointer=InMemorySaver()))
    outcome = s.run_graph(agent, "invoke")
    assert asked(outcome) == [[("update_page_metadata", s.CLEAN_TURN[1][2])]]
    assert recorder.runs[0] == ("get_page", s.CLEAN_TURN[0][2])


class Summary(BaseModel):
    summary: str


def test_the_structured_output_tools_a_response_format_offers():
    assert output_tool_names(None) == output_tool_names(ProviderStrategy(Summary)) == []
    assert output_tool_names(Summary) == output_tool_names(AutoStrategy(Summary)) == ["Summary"]
    assert output_tool_names(ToolStrategy(Summary)) == ["Summary"]


@pytest.mark.parametrize("response_format", [Summary, ToolStrategy(Summary)])
def test_a_structured_output_call_is_offered_not_unknown(response_format):
    script = [[("call_1", "Summary", {"summary": "Retitled."})]]
    agent = gated_agent(s.ScriptedChatModel(script=script), [], response_format=response_format,
                        checkpointer=InMemorySaver())
    outcome = s.run_graph(agent, "invoke")
    assert agent.get_state({"configurable": {"thread_id": "thread"}}).values["structured_response"] == \
        Summary(summary="Retitled.")
    assert outcome.answers() == {"call_1": ("Returning structured response: summary='Retitled.'", "success")}


def test_a_turn_with_a_structured_output_call_is_still_gated():
    """A limitation: LangChain answers the structured-output call inside the model node, before
    any hook. The turn's other calls are still judged with it, and none of them runs."""
    recorder, steps = s.Recorder(), []
    script = [[s.REFUSED_TURN[1], ("call_9", "Summary", {"summary": "Retitled."})], s.FINAL_TEXT]
    agent = gated_agent(s.ScriptedChatModel(script=script), page_tools(recorder), response_format=ToolStrategy(Summary),
                        middleware=[HumanInTheLoopMiddleware(interrupt_on={"update_page_metadata": True})],
                        checkpointer=InMemorySaver(), record=steps.append)
    outcome = s.run_graph(agent, "invoke")
    assert recorder.runs == [] and outcome.approvals == []
    assert outcome.answers() == {"call_2": (s.REFUSED_UPDATE, "error"),
                                 "call_9": ("Returning structured response: summary='Retitled.'", "success")}
    assert [(step.tool, step.status) for step in steps] == [("update_page_metadata", "refused"), ("Summary", "not-run")]


@pytest.mark.parametrize("mode", MODES)
def test_with_telemetry_each_decided_turn_is_reported(mode):
    emitted = Emitted()
    agent, _, _ = build([s.REFUSED_TURN, s.BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT], telemetry=emitted.telemetry)
    s.run_graph(agent, mode)
    # LangChain keeps the call it could not decode apart from the others: it is judged last.
    assert_scenario_reported(emitted, "langchain", broken=[s.BROKEN_STEPS[1], s.BROKEN_STEPS[2], s.BROKEN_STEPS[0]])


# Every way a run can end: return_direct -----------------------------------------------------------

#: LangChain ends the run after the tools when every tool the turn ran is return_direct.
BOTH = ("get_page", "update_page_metadata")


@pytest.mark.parametrize("mode", MODES)
def test_a_refused_turn_never_ends_the_run_through_return_direct_tools(mode):
    agent, model, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], return_direct=BOTH)
    outcome = s.run_graph(agent, mode)
    # The model got the refused turn's answers and wrote the next turn.
    assert outcome.answers(1) == {"call_1": (s.NOT_RUN_GET_PAGE, "error"), "call_2": (s.REFUSED_UPDATE, "error")}
    assert len(model.inputs) == 2 and recorder.runs == [("get_page", s.CLEAN_TURN[0][2]),
                                                        ("update_page_metadata", s.CLEAN_TURN[1][2])]
    # The turn that fits ends the run with its tool's result, exactly as without the gate.
    plain, _, _ = build([s.CLEAN_TURN, s.FINAL_TEXT], gate=False, return_direct=BOTH)
    without_gate = s.run_graph(plain, mode)
    assert outcome.transcript()[-3:] == without_gate.transcript()[-3:]
    assert outcome.messages[-1].type == "tool" and outcome.approvals == without_gate.approvals


def test_without_the_gate_the_turn_with_a_bad_call_ends_the_run_through_return_direct_tools():
    """What the gate prevents: the good sibling runs, the bad call is put to a person, and the
    turn's results end the run."""
    agent, model, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], gate=False, return_direct=BOTH)
    outcome = s.run_graph(agent, "invoke", resume_with=lambda _: {"decisions": [{"type": "reject", "message": "No."}]})
    assert recorder.runs == [("get_page", s.REFUSED_TURN[0][2])] and len(model.inputs) == 1
    assert outcome.messages[-1].type == "tool"
