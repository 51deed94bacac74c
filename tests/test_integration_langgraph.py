"""The LangGraph gate node (turngate.integrations.langgraph) in a real graph built by hand with a
scripted model: model -> gate -> review (a person approves update_page_metadata, by interrupt)
-> ToolNode -> model. Invoked, streamed and streamed asynchronously."""

from __future__ import annotations

import io
from itertools import takewhile

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import interrupt
from pydantic import BaseModel

import scripted_models as s
from telemetry_support import Emitted, assert_scenario_reported
from turngate import RunStep, Toolset, dump_steps, load_steps
from turngate.integrations.langgraph import judge_turn, tool_schemas, turn_gate_node

MODES = s.GRAPH_MODES
NEEDS_APPROVAL = {"update_page_metadata"}


def review(state: MessagesState):
    """Asks a person about the turn's calls that need approval, once for the whole turn."""
    calls = [(c["name"], c["args"]) for c in state["messages"][-1].tool_calls if c["name"] in NEEDS_APPROVAL]
    if calls:
        interrupt({"action_requests": [{"name": name, "args": args} for name, args in calls]})
    return {}


def build(script, gate=True, **gate_options):
    recorder = s.Recorder()
    tools = [tool(recorder.get_page, description=s.GET_PAGE_DOC),
             tool(recorder.update_page_metadata, description=s.UPDATE_DOC)]
    model = s.ScriptedChatModel(script=script)

    graph = StateGraph(MessagesState)
    graph.add_node("model", lambda state: {"messages": [model.invoke(state["messages"])]})
    graph.add_node("review", review)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "model")
    graph.add_edge("review", "tools")
    graph.add_edge("tools", "model")
    if gate:
        graph.add_node("gate", turn_gate_node(tools, tools_node="review", **gate_options),
                       destinations=("review", "model", END))
        graph.add_edge("model", "gate")
    else:
        graph.add_conditional_edges("model", tools_condition, {"tools": "review", END: END})
    return graph.compile(checkpointer=InMemorySaver()), model, recorder


def asked(outcome):
    return [[(r["name"], r["args"]) for r in value["action_requests"]] for value in outcome.approvals]


def approve(_):
    return True


@pytest.mark.parametrize("mode", MODES)
def test_a_b_c_a_refused_turn_runs_nothing_asks_nothing_and_is_answered(mode):
    graph, model, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT])
    outcome = s.run_graph(graph, mode, approve)

    # (a) Nothing of the refused turn ran.
    assert recorder.runs == [("get_page", s.CLEAN_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]
    # (b) No interrupt for the refused turn; the clean turn's, as without the gate.
    plain, _, _ = build([s.CLEAN_TURN, s.FINAL_TEXT], gate=False)
    assert outcome.approvals == s.run_graph(plain, mode, approve).approvals
    assert asked(outcome) == [[("update_page_metadata", s.CLEAN_TURN[1][2])]]
    # (c) The model's next input answers every call id; the run goes on to the clean turn.
    assert [(m.tool_call_id, m.content, m.status) for m in model.inputs[1][-2:]] == [
        ("call_1", s.NOT_RUN_GET_PAGE, "error"), ("call_2", s.REFUSED_UPDATE, "error")]
    assert outcome.messages[-1].content == s.FINAL_TEXT
    assert model.streamed == ([] if mode == "invoke" else [True] * 3)


def test_without_the_gate_the_bad_call_reaches_the_person():
    """What the gate prevents: a person asked about a call whose arguments do not fit."""
    graph, _, recorder = build([s.REFUSED_TURN, s.FINAL_TEXT], gate=False)
    outcome = s.run_graph(graph, "invoke", approve)
    assert asked(outcome) == [[("update_page_metadata", s.REFUSED_TURN[1][2])]]
    assert recorder.runs == [("get_page", s.REFUSED_TURN[0][2])]


@pytest.mark.parametrize("mode", MODES)
def test_d_an_all_clean_run_is_the_same_with_and_without_the_gate(mode):
    script = [s.CLEAN_TURN, s.FINAL_TEXT]
    (gated, gated_model, gated_recorder), (plain, plain_model, plain_recorder) = build(script), build(script, gate=False)
    with_gate, without_gate = s.run_graph(gated, mode, approve), s.run_graph(plain, mode, approve)
    s.assert_clean_runs_alike(with_gate, without_gate, (gated_model, gated_recorder), (plain_model, plain_recorder))


@pytest.mark.parametrize("mode", MODES)
def test_e_text_that_is_not_json_and_an_unknown_tool_are_answered_as_the_turn_gate_answers(mode):
    graph, _, recorder = build([s.BROKEN_TURN, s.FINAL_TEXT])
    outcome = s.run_graph(graph, mode, approve)
    assert outcome.answers() == {call_id: (text, "error") for call_id, text in s.turngate_answers(s.BROKEN_TURN).items()}
    assert recorder.runs == [] and outcome.approvals == []
    assert outcome.messages[-1].content == s.FINAL_TEXT


@pytest.mark.parametrize("mode", MODES)
def test_f_the_runs_steps_are_recorded_with_their_codes_at_metadata_only(mode):
    steps: list[RunStep] = []
    graph, _, _ = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], record=steps.append)
    s.run_graph(graph, mode, approve)
    assert steps == [RunStep(1, index, tool, status, refusal, codes, privacy="metadata-only")
                     for index, (tool, status, refusal, codes) in enumerate(s.REFUSED_STEPS, 1)]
    written = io.StringIO()
    dump_steps(steps, written)
    assert load_steps(written.getvalue().splitlines()) == (steps, [])


class PageState(BaseModel):
    """A graph state that is a pydantic model, its messages under another key."""

    history: list = []


def test_a_state_that_is_not_a_dict_and_other_node_names():
    recorder = s.Recorder()
    get_page = tool(recorder.get_page, description=s.GET_PAGE_DOC)
    node = turn_gate_node([get_page], tools_node="run", model_node="llm", end="done", messages_key="history")
    refused = PageState(history=[HumanMessage("hi"), AIMessage("", tool_calls=[
        {"id": "call_1", "name": "get_page", "args": {"uid": "42"}}])])
    command = node(refused)
    assert command.goto == "llm" and [m.tool_call_id for m in command.update["history"]] == ["call_1"]
    assert node(PageState(history=[AIMessage("", tool_calls=[
        {"id": "call_1", "name": "get_page", "args": {"uid": 42, "language": "de"}}])])).goto == "run"
    assert node(PageState(history=[AIMessage("Done.")])).goto == "done"
    assert node(PageState(history=[HumanMessage("hi")])).goto == "done"


def test_only_calls_not_answered_yet_get_an_answer():
    toolset = Toolset(tool_schemas([tool(s.Recorder().get_page, description=s.GET_PAGE_DOC)]))
    turn = AIMessage("", tool_calls=[{"id": "call_1", "name": "get_page", "args": {"uid": 42, "language": "de"}},
                                     {"id": "call_2", "name": "get_page", "args": {}}])
    answered = ToolMessage("Read.", tool_call_id="call_1")
    verdict, answers = judge_turn([turn, answered], toolset)
    assert not verdict.ok and [m.tool_call_id for m in answers] == ["call_2"]
    everything = ToolMessage("Read.", tool_call_id="call_2")
    assert judge_turn([turn, answered, everything], toolset) == (None, [])


@pytest.mark.parametrize("mode", MODES)
def test_with_telemetry_each_decided_turn_is_reported(mode):
    emitted = Emitted()
    graph, _, _ = build([s.REFUSED_TURN, s.BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT], telemetry=emitted.telemetry)
    s.run_graph(graph, mode, approve)
    assert_scenario_reported(emitted, "langgraph", broken=[s.BROKEN_STEPS[1], s.BROKEN_STEPS[2], s.BROKEN_STEPS[0]])


# Every way a run can end: the graph's own routing ----------------------------------------------

def ends_after_a_page_read(state: MessagesState):
    """A host's routing after the tools: a turn that read a page ends the run with its result."""
    turns_results = takewhile(lambda message: isinstance(message, ToolMessage), reversed(state["messages"]))
    return END if any(message.name == "get_page" for message in turns_results) else "model"


def build_routed(script, gate=True, **gate_options):
    """The graph of `build`, whose tools route to END after a page read, and to the model else."""
    recorder = s.Recorder()
    tools = [tool(recorder.get_page, description=s.GET_PAGE_DOC),
             tool(recorder.update_page_metadata, description=s.UPDATE_DOC)]
    model = s.ScriptedChatModel(script=script)
    graph = StateGraph(MessagesState)
    graph.add_node("model", lambda state: {"messages": [model.invoke(state["messages"])]})
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("tools", ends_after_a_page_read, ["model", END])
    if gate:
        graph.add_node("gate", turn_gate_node(tools, **gate_options), destinations=("tools", "model", END))
        graph.add_edge("model", "gate")
    else:
        graph.add_conditional_edges("model", tools_condition, {"tools": "tools", END: END})
    return graph.compile(checkpointer=InMemorySaver()), model, recorder


@pytest.mark.parametrize("mode", MODES)
def test_a_refused_turn_never_reaches_the_routing_that_would_end_the_run(mode):
    graph, model, recorder = build_routed([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT])
    outcome = s.run_graph(graph, mode)
    assert outcome.answers(1) == {"call_1": (s.NOT_RUN_GET_PAGE, "error"), "call_2": (s.REFUSED_UPDATE, "error")}
    assert len(model.inputs) == 2
    # The turn that fits ends the run through the host's routing, exactly as without the gate.
    plain, _, plain_recorder = build_routed([s.CLEAN_TURN, s.FINAL_TEXT], gate=False)
    without_gate = s.run_graph(plain, mode)
    assert outcome.transcript()[-3:] == without_gate.transcript()[-3:] and outcome.messages[-1].type == "tool"
    assert recorder.runs == plain_recorder.runs != []


def test_without_the_gate_the_turn_with_a_bad_call_ends_the_run_through_the_routing():
    graph, model, recorder = build_routed([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], gate=False)
    s.run_graph(graph, "invoke")
    assert len(model.inputs) == 1 and recorder.runs == [("get_page", s.REFUSED_TURN[0][2])]


def test_a_turn_with_no_call_ends_the_run_at_the_gate():
    graph, model, _ = build_routed([s.FINAL_TEXT])
    outcome = s.run_graph(graph, "invoke")
    assert len(model.inputs) == 1 and outcome.messages[-1].content == s.FINAL_TEXT
