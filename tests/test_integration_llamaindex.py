"""The LlamaIndex gate (turngate.integrations.llamaindex), driven through real `FunctionAgent`
and `AgentWorkflow` runs, with llama-index-core's own `MockFunctionCallingLLM` playing the
model's scripted turns: plain and streamed (the agent's `streaming`), a person approving
through the workflow's `InputRequiredEvent` / `HumanResponseEvent`. No network, no key."""

import asyncio
import subprocess
import sys
from typing import Any

import pytest
from llama_index.core.agent.workflow import (AgentOutput, AgentStream, AgentWorkflow, FunctionAgent, ToolCall,
                                             ToolCallResult)
from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool, ToolSelection
from llama_index.core.workflow import Context, HumanResponseEvent, InputRequiredEvent, WorkflowRuntimeError

import scenario as s
from conftest import EXAMPLES, ROOT
from telemetry_support import Emitted, assert_scenario_reported
from test_integrations import RAN, REFUSED, STEP
from turngate import Call, RunStep, Table
from turngate.integrations.llamaindex import (GatedAgentWorkflow, GatedFunctionAgent, GateError, TurnGate,
                                              turn_calls)

# The framework looks for a workflow's steps with inspect.getmembers, which reads the agents'
# deprecated pydantic attributes: its warnings, not the gate's.
pytestmark = [pytest.mark.filterwarnings("ignore::pydantic.PydanticDeprecatedSince20"),
              pytest.mark.filterwarnings("ignore::pydantic.PydanticDeprecatedSince211")]
MODES = ["plain", "streamed"]
RUNNERS = ["agent", "workflow"]  # the agent run on its own, or as the one agent of an AgentWorkflow


class Script:
    """The model: plays its turns in order (a text, or calls with raw JSON arguments as OpenAI
    sends them), keeping every input it is given."""

    def __init__(self, turns: list) -> None:
        self.turns, self.inputs = iter(turns), []

    def __call__(self, messages, **options) -> ChatMessage:
        self.inputs.append(list(messages))
        turn = next(self.turns)
        if isinstance(turn, str):
            return ChatMessage(role="assistant", content=turn)
        return ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_call_id=call_id, tool_name=name,
                                                                   tool_kwargs=s.raw(arguments))
                                                     for call_id, name, arguments in turn])

    def answers(self, number: int) -> dict:
        """The tool answers of the model's `number`-th input, by call id."""
        return {m.additional_kwargs["tool_call_id"]: m.content for m in self.inputs[number] if m.role == "tool"}


def page_tools(recorder: s.Recorder, return_direct: tuple = ()) -> list[FunctionTool]:
    """get_page, and update_page_metadata, which asks a person first."""
    async def update_page_metadata(ctx: Context, uid: int, title: str, status: s.Status) -> str:
        arguments = {"uid": uid, "title": title, "status": status}
        asked = InputRequiredEvent(prefix="Approve?", tool="update_page_metadata", arguments=arguments)
        await ctx.wait_for_event(HumanResponseEvent, waiter_event=asked, waiter_id=repr(arguments))
        return recorder.update_page_metadata(uid, title, status)

    return [FunctionTool.from_defaults(recorder.get_page, description=s.GET_PAGE_DOC,
                                       return_direct="get_page" in return_direct),
            FunctionTool.from_defaults(async_fn=update_page_metadata, description=s.UPDATE_DOC,
                                       return_direct="update_page_metadata" in return_direct)]


def build(script: list, gated: bool = True, mode: str = "plain", runner: str = "agent", return_direct: tuple = (),
          **gate: Any):
    """The agent, run on its own or as the one agent of an AgentWorkflow; its model; its tools' runs."""
    recorder, model = s.Recorder(), Script(script)
    options = dict(tools=page_tools(recorder, return_direct), llm=MockFunctionCallingLLM(response_generator=model),
                   streaming=mode == "streamed")
    agent = GatedFunctionAgent(gate=TurnGate(**gate), **options) if gated else FunctionAgent(**options)
    if runner == "workflow":
        agent = GatedAgentWorkflow(agents=[agent]) if gated else AgentWorkflow(agents=[agent])
    return agent, model, recorder


class Run:
    """A run to its end, approving every approval asked: its result (or error), the approvals
    and the events of its stream."""

    def __init__(self, workflow, **options: Any) -> None:
        self.approvals: list = []
        self.events: list = []
        self.result, self.error = asyncio.run(self.play(workflow, options))

    async def play(self, workflow, options: dict):
        handler = workflow.run(user_msg=s.USER_TEXT, **options)
        try:
            async for event in handler.stream_events():
                self.events.append(event)
                if isinstance(event, InputRequiredEvent):
                    self.approvals.append((event.tool, event.arguments))
                    handler.ctx.send_event(HumanResponseEvent(response="yes"))
            return await handler, None
        except WorkflowRuntimeError as error:
            return None, error

    def of(self, kind: type) -> list:
        return [event for event in self.events if isinstance(event, kind)]

    def tool_results(self) -> list:
        return [(event.tool_id, event.tool_output.content, event.tool_output.is_error)
                for event in self.of(ToolCallResult)]

    def failed(self) -> list:
        return sorted(call_id for call_id, _, is_error in self.tool_results() if is_error)

    def outcome(self) -> dict:
        """The result, its calls in the order of their ids: a turn's calls run at once, and
        LlamaIndex lists them as they finish."""
        outcome = self.result.model_dump()
        outcome["tool_calls"].sort(key=lambda call: call["tool_id"])
        return outcome


def transcript(model: Script) -> list:
    """Every input the model was given; the answers to a turn in the order of their call ids
    (they come as the calls finish)."""
    def in_order(messages: list) -> list:
        at, keyed = 0, []
        for index, message in enumerate(messages):
            at = at if message.role == "tool" else index
            call_id = message.additional_kwargs.get("tool_call_id", "") if message.role == "tool" else ""
            keyed.append(((at, call_id), message.model_dump()))
        return [dumped for _, dumped in sorted(keyed, key=lambda pair: pair[0])]
    return [in_order(given) for given in model.inputs]


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize("mode", MODES)
def test_a_b_c_a_refused_turn_runs_nothing_asks_nothing_and_is_answered(mode, runner):
    agent, model, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], mode=mode, runner=runner)
    run = Run(agent)

    # (a) Nothing of the refused turn ran.
    assert recorder.runs == [("get_page", s.CLEAN_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]
    # (b) No approval for the refused turn; the clean turn's, as without the gate.
    plain = Run(build([s.CLEAN_TURN, s.FINAL_TEXT], gated=False, mode=mode, runner=runner)[0])
    assert run.approvals == plain.approvals == [("update_page_metadata", s.CLEAN_TURN[1][2])]
    # (c) The model's next input answers every call id; the run goes on to the clean turn.
    assert model.answers(1) == {"call_1": s.NOT_RUN_GET_PAGE, "call_2": s.REFUSED_UPDATE}
    assert str(run.result) == s.FINAL_TEXT
    # The stream shows the answers as the results of failed calls, as the framework shows them.
    assert run.tool_results()[:2] == [("call_1", s.NOT_RUN_GET_PAGE, True), ("call_2", s.REFUSED_UPDATE, True)]
    assert [event.tool_id for event in run.of(ToolCall)][:2] == ["call_1", "call_2"]
    assert bool(run.of(AgentStream)) == (mode == "streamed")


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize("mode", MODES)
def test_d_an_all_clean_run_is_the_same_with_and_without_the_gate(mode, runner):
    script = [s.CLEAN_TURN, s.FINAL_TEXT]
    (agent, model, recorder), (plain, plain_model, plain_recorder) = build(script, mode=mode, runner=runner), \
        build(script, gated=False, mode=mode, runner=runner)
    gated_run, plain_run = Run(agent), Run(plain)
    assert transcript(model) == transcript(plain_model)
    assert gated_run.outcome() == plain_run.outcome()
    assert sorted(type(e).__name__ for e in gated_run.events) == sorted(type(e).__name__ for e in plain_run.events)
    assert sorted(gated_run.tool_results()) == sorted(plain_run.tool_results()) != []
    assert gated_run.approvals == plain_run.approvals != []
    assert recorder.runs == plain_recorder.runs != []


@pytest.mark.parametrize("mode", MODES)
def test_e_text_that_is_not_json_and_an_unknown_tool_are_answered_as_the_turn_gate_answers(mode):
    agent, model, recorder = build([s.BROKEN_TURN, s.FINAL_TEXT], mode=mode)
    run = Run(agent)
    assert model.answers(1) == s.turngate_answers(s.BROKEN_TURN)
    assert model.answers(1)["call_6"].startswith('Refused: no tool named "get_pages"')
    assert recorder.runs == [] and run.approvals == [] and str(run.result) == s.FINAL_TEXT


def test_the_gate_judges_the_text_the_model_sent_not_what_llamaindex_made_of_it():
    """LlamaIndex completes cut-off JSON and takes text that is not JSON as {}: the tool would
    run with arguments the model never sent."""
    cut_off = '{"uid": 42, "language": "de'
    turn = [("call_1", "get_page", cut_off)]
    agent, model, recorder = build([turn, s.FINAL_TEXT])
    Run(agent)
    assert recorder.runs == [] and model.answers(1)["call_1"].startswith("Refused: ")
    assert model.answers(1) == s.turngate_answers(turn)
    plain, _, plain_recorder = build([turn, s.FINAL_TEXT], gated=False)
    Run(plain)
    assert plain_recorder.runs == [("get_page", {"uid": 42, "language": None})]


@pytest.mark.parametrize("mode", MODES)
def test_f_the_runs_steps_are_recorded_with_their_codes_at_metadata_only(mode):
    steps: list[RunStep] = []
    agent, _, _ = build([s.REFUSED_TURN, s.BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT], mode=mode, record=steps.append)
    Run(agent)
    s.assert_steps_of_the_refused_and_the_broken_turn(steps)


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize("mode", MODES)
def test_with_telemetry_each_decided_turn_is_reported(mode, runner):
    emitted = Emitted()
    agent, _, _ = build([s.REFUSED_TURN, s.BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT], mode=mode, runner=runner,
                        telemetry=emitted.telemetry)
    Run(agent)
    assert_scenario_reported(emitted, "llamaindex")


def test_a_gate_made_with_telemetry_names_itself_once():
    gate = TurnGate(telemetry=Emitted().telemetry)
    assert gate.telemetry.gate == "llamaindex" and TurnGate().telemetry is None


# Every way a run can end ------------------------------------------------------------------------

@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize("mode", MODES)
def test_a_refused_turn_never_ends_the_run_through_a_return_direct_tool(mode, runner):
    fitting = [("call_3", "get_page", {"uid": 42, "language": "de"})]
    options = dict(mode=mode, runner=runner, return_direct=("get_page",))
    agent, model, recorder = build([s.REFUSED_TURN, fitting], **options)
    run = Run(agent)
    assert model.answers(1) == {"call_1": s.NOT_RUN_GET_PAGE, "call_2": s.REFUSED_UPDATE}
    # The turn that fits ends the run with the tool's output, exactly as without the gate.
    plain, _, plain_recorder = build([fitting], gated=False, **options)
    assert str(run.result) == str(Run(plain).result) == "Page 42 (de): Opening hours"
    assert recorder.runs == plain_recorder.runs == [("get_page", fitting[0][2])]
    # Without the gate, the refused turn's return_direct call ends the run, its sibling failed.
    ended = Run(build([s.REFUSED_TURN, fitting], gated=False, **options)[0])
    assert str(ended.result) == "Page 42 (de): Opening hours" and ended.failed() == ["call_2"]


def test_a_refused_call_of_a_return_direct_tool_does_not_end_the_run():
    agent, model, _ = build([s.REFUSED_TURN, s.CLEAN_TURN], return_direct=("update_page_metadata",))
    run = Run(agent)
    assert model.answers(1)["call_2"] == s.REFUSED_UPDATE
    assert str(run.result) == "Page 42 updated: Opening hours, review" and len(model.inputs) == 2


HANDOFF = ("handoff", {"to_agent": "reviewer", "reason": "Ready for review."})
NOT_RUN_HANDOFF = s.NOT_RUN_GET_PAGE.replace('"get_page"', '"handoff"')


def two_agents(script: list, gated: bool = True, mode: str = "plain"):
    """pages (the page tools) may hand off to reviewer (none); one scripted model plays both."""
    recorder, model = s.Recorder(), Script(script)
    llm = MockFunctionCallingLLM(response_generator=model)
    kind, workflow = (GatedFunctionAgent, GatedAgentWorkflow) if gated else (FunctionAgent, AgentWorkflow)
    pages = kind(name="pages", description="Edits pages.", tools=page_tools(recorder), llm=llm,
                 can_handoff_to=["reviewer"], streaming=mode == "streamed")
    reviewer = kind(name="reviewer", description="Reviews pages.", tools=[], llm=llm, streaming=mode == "streamed")
    return workflow(agents=[pages, reviewer], root_agent="pages"), model, recorder


def turns_by(run: Run) -> list:
    return [event.current_agent_name for event in run.of(AgentOutput)]


@pytest.mark.parametrize("mode", MODES)
def test_a_refused_turn_never_hands_off(mode):
    refused = [("call_1", *HANDOFF), s.REFUSED_TURN[1]]
    workflow, model, recorder = two_agents([refused, [("call_3", *HANDOFF)], s.FINAL_TEXT], mode=mode)
    run = Run(workflow)
    assert model.answers(1) == {"call_1": NOT_RUN_HANDOFF, "call_2": s.REFUSED_UPDATE}
    assert turns_by(run) == ["pages", "pages", "reviewer"] and recorder.runs == []
    # The handoff that fits hands off exactly as without the gate.
    plain = Run(two_agents([[("call_3", *HANDOFF)], s.FINAL_TEXT], gated=False, mode=mode)[0])
    assert turns_by(plain) == ["pages", "reviewer"]
    assert run.result.current_agent_name == plain.result.current_agent_name == "reviewer"
    assert str(run.result) == str(plain.result) == s.FINAL_TEXT
    # Without the gate, the refused turn hands off.
    assert turns_by(Run(two_agents([refused, s.FINAL_TEXT], gated=False, mode=mode)[0])) == ["pages", "reviewer"]


def test_a_handoff_that_does_not_fit_is_refused():
    workflow, model, _ = two_agents([[("call_1", "handoff", {"to_agent": "reviewer"})], s.FINAL_TEXT])
    run = Run(workflow)
    assert model.answers(1)["call_1"].startswith('Refused: the arguments do not match the schema of tool "handoff"')
    assert turns_by(run) == ["pages", "pages"]


ITERATION_LIMITS = {  # the script, and the limit its last model turn reaches
    "a refused turn before the limit": ([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT, "Out of turns."], 3),
    "a refused turn at the limit": ([s.CLEAN_TURN, s.REFUSED_TURN, "Out of turns."], 2),
}


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize("stopping", ["force", "generate"])
@pytest.mark.parametrize("case", ITERATION_LIMITS)
def test_the_iteration_limit_ends_a_run_as_it_ends_it_without_the_gate(case, stopping, runner):
    """A refused turn is one of the model's turns, as any is: the limit ends the run at the
    same turn with and without the gate, as the framework ends it (an error, or a last answer
    the model writes without tools)."""
    script, limit = ITERATION_LIMITS[case]
    options = dict(max_iterations=limit, early_stopping_method=stopping)
    (agent, model, recorder), (plain, plain_model, _) = build(script, runner=runner), \
        build(script, gated=False, runner=runner)
    run, plain_run = Run(agent, **options), Run(plain, **options)
    assert str(run.error) == str(plain_run.error) and len(model.inputs) == len(plain_model.inputs)
    if stopping == "generate":
        assert str(run.result) == str(plain_run.result) == "Out of turns."
    else:
        assert f"Max iterations of {limit} reached" in str(run.error)
    assert recorder.runs == [("get_page", s.CLEAN_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]
    if case == "a refused turn before the limit":  # the run went on past it
        assert model.answers(1) == {"call_1": s.NOT_RUN_GET_PAGE, "call_2": s.REFUSED_UPDATE}


def test_with_casts_a_turn_that_fits_runs_with_its_arguments_cast():
    turn = [("call_1", "get_page", {"uid": "42", "language": "de"})]
    for casts, sent in ((True, 42), (False, "42")):
        agent, model, recorder = build([turn, s.FINAL_TEXT], casts=casts)
        Run(agent)
        assert recorder.runs == [("get_page", {"uid": sent, "language": "de"})]
        assert model.inputs[1][-2].blocks[0].tool_kwargs == '{"uid": "42", "language": "de"}'  # as the model sent it


def test_a_gated_agent_in_a_workflow_that_does_not_answer_its_turns_runs_nothing():
    agent, model, recorder = build([s.REFUSED_TURN, s.FINAL_TEXT])
    with pytest.raises(GateError, match="run it on its own, or in a GatedAgentWorkflow"):
        Run(AgentWorkflow(agents=[agent]))
    assert recorder.runs == [] and model.inputs == []  # raised before the model was asked


def test_a_gated_workflow_takes_gated_agents_only():
    plain = FunctionAgent(name="pages", tools=[], llm=MockFunctionCallingLLM())
    with pytest.raises(GateError, match="not gated: 'pages'."):
        GatedAgentWorkflow(agents=[plain])


def test_the_gates_options_are_checked_when_it_is_made():
    with pytest.raises(ValueError, match='privacy is "full" or "metadata-only"'):
        TurnGate(privacy="none")
    assert isinstance(TurnGate(table="strict").table, Table)


def test_calls_the_model_sent_without_their_text_are_judged_as_llamaindex_reads_them():
    selection = ToolSelection(tool_id="call_1", tool_name="get_page", tool_kwargs={"uid": 42})
    output = AgentOutput(response=ChatMessage(role="assistant", content=""), tool_calls=[selection],
                         current_agent_name="pages")
    assert turn_calls(output) == [Call("call_1", "get_page", {"uid": 42})]


@pytest.mark.slow
def test_the_example_runs_offline_and_shows_the_refused_turn_answered():
    done = subprocess.run([sys.executable, str(EXAMPLES / "integrations" / "llamaindex_agent.py")],
                          capture_output=True, text=True, cwd=ROOT, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith(STEP), done.stdout
    assert lines[1] == "Approval asked for: {'uid': 42, 'title': 'Opening hours', 'status': 'review'}"
    assert REFUSED in done.stdout and done.stdout.count(RAN) == 1 and lines[-1] == "Result: Done."
