"""The CrewAI gate (turngate.integrations.crewai), driven through the real `Crew` and
`Agent` with a scripted `BaseLLM`: `kickoff`, `kickoff` of a streaming crew, `akickoff`, and
`Agent.kickoff`; CrewAI's stop rules (`result_as_answer` tools, `max_iter`). No network:
CrewAI's own telemetry and tracing are switched off by its documented variables, and every
test fails if anything tries to connect."""

import asyncio
import copy
import json
import os
import runpy
import re
import socket
import tomllib

import crewai
import pytest

# CrewAI reads these when it is imported and when a crew starts. Not OTEL_SDK_DISABLED: that
# would switch off the OpenTelemetry SDK other tests read spans from.
os.environ.update(CREWAI_DISABLE_TELEMETRY="true", CREWAI_DISABLE_TRACKING="true",
                  CREWAI_TRACING_ENABLED="false", CREWAI_DISABLE_VERSION_CHECK="true")

from crewai import Agent, Crew, Process, Task  # noqa: E402
from crewai.events.event_bus import crewai_event_bus  # noqa: E402
from crewai.events.types.llm_events import LLMStreamChunkEvent  # noqa: E402
from crewai.hooks import (get_before_tool_call_hooks, register_before_tool_call_hook,  # noqa: E402
                          unregister_before_tool_call_hook)
from crewai.llms.base_llm import BaseLLM, llm_call_context  # noqa: E402
from crewai.tools import tool  # noqa: E402

import scenario as s  # noqa: E402
from conftest import EXAMPLES, ROOT  # noqa: E402
from telemetry_support import CLEAN_STEPS, Emitted, assert_reported  # noqa: E402
from turngate import RunStep  # noqa: E402
from turngate.integrations.crewai import GatedLLM, TurnGate, block_refused_call  # noqa: E402

MODES = ["kickoff", "stream", "akickoff"]


class ScriptedLLM(BaseLLM):
    """Plays the scenario's turns: a turn of calls as OpenAI-style tool calls, a text as the
    final answer. Keeps each input as it was sent, and whether the call streamed."""

    script: list = []
    inputs: list = []
    streamed: list = []

    def call(self, messages, tools=None, callbacks=None, available_functions=None, from_task=None,
             from_agent=None, response_model=None):
        self.inputs.append(copy.deepcopy(messages))
        self.streamed.append(bool(self._effective_stream()))
        turn = self.script.pop(0)
        if isinstance(turn, str):
            self._chunk(turn, from_task, from_agent)
            return turn
        calls = [{"id": call_id, "type": "function", "function": {"name": name, "arguments": s.raw(arguments)}}
                 for call_id, name, arguments in turn]
        for call in calls:
            self._chunk(call["function"]["arguments"], from_task, from_agent)
        return calls

    async def acall(self, *args, **options):
        return self.call(*args, **options)

    def supports_function_calling(self) -> bool:
        return True

    def _chunk(self, text, task, agent):
        if self._effective_stream():
            with llm_call_context() as call_id:
                crewai_event_bus.emit(self, event=LLMStreamChunkEvent(chunk=text, from_task=task, from_agent=agent,
                                                                      call_id=call_id))

    def answers(self, turn: int) -> dict:
        """The tool messages of the model's input `turn` (0 first), by call id."""
        return {message["tool_call_id"]: message["content"] for message in self.inputs[turn]
                if message.get("role") == "tool"}

    def calls_shown(self, turn: int) -> list:
        """The calls of the model's earlier turns, as its input `turn` shows them."""
        return [(call["id"], call["function"]["name"], call["function"]["arguments"]) for message in self.inputs[turn]
                if message.get("role") == "assistant" for call in message.get("tool_calls") or ()]


def page_tools(recorder, final=()):
    """The scenario's two tools; those named in `final` have `result_as_answer`."""
    def get_page(uid: int, language: str) -> str:
        return recorder.get_page(uid, language)

    def update_page_metadata(uid: int, title: str, status: s.Status) -> str:
        return recorder.update_page_metadata(uid, title, status)

    get_page.__doc__, update_page_metadata.__doc__ = s.GET_PAGE_DOC, s.UPDATE_DOC
    return [tool(function.__name__, result_as_answer=function.__name__ in final)(function)
            for function in (get_page, update_page_metadata)]


def build(script, gate=True, final=(), stream=False, max_iter=25, **gate_options):
    """A crew of one agent whose scripted model plays `script`, with tools that record their runs."""
    recorder, llm = s.Recorder(), ScriptedLLM(model="scripted", script=list(script), inputs=[], streamed=[])
    agent = Agent(role="editor", goal="Keep pages current.", backstory="An editor.", llm=llm,
                  tools=page_tools(recorder, final), max_iter=max_iter)
    crew = Crew(agents=[agent], tasks=[Task(description=s.USER_TEXT, expected_output="A summary.", agent=agent)],
                stream=stream)
    return (TurnGate(**gate_options).crew(crew) if gate else crew), llm, recorder


def run(crew, mode):
    """The crew's final answer, run in `mode`; a streaming crew's chunks are read to the end."""
    if mode == "akickoff":
        return asyncio.run(crew.akickoff()).raw
    output = crew.kickoff()
    if mode == "stream":
        chunks = list(output)
        assert chunks, "a streaming crew streams the model's chunks"
        output = output.result
    return output.raw


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any connection tried is a failure of the test (CrewAI's telemetry would be one)."""
    tried = []

    def refuse(sock, address):
        tried.append(address)
        raise OSError("no network in these tests")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    yield
    assert tried == []


@pytest.fixture
def approvals():
    """A host's approval of `update_page_metadata`, as CrewAI documents one: a `before_tool_call`
    hook that asks a person (here: notes the question and approves), listed before the gate's
    own hook (as when it is registered before any gate is made)."""
    asked: list = []

    def ask_a_person(context):
        if context.tool_name == "update_page_metadata":
            asked.append((context.tool_name, dict(context.tool_input)))
        return None

    register_before_tool_call_hook(ask_a_person)
    unregister_before_tool_call_hook(block_refused_call)
    register_before_tool_call_hook(block_refused_call)
    assert get_before_tool_call_hooks()[-2:] == [ask_a_person, block_refused_call]
    yield asked
    unregister_before_tool_call_hook(ask_a_person)


def clean_runs():
    return [("get_page", s.CLEAN_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]


@pytest.mark.parametrize("mode", MODES)
def test_a_b_c_a_refused_turn_runs_nothing_asks_nothing_and_is_answered(mode, approvals):
    crew, llm, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], stream=mode == "stream")
    assert run(crew, mode) == s.FINAL_TEXT

    # (a) Nothing of the refused turn ran; the clean turn's calls ran once each.
    assert recorder.runs == clean_runs()
    # (b) No approval asked for the refused turn; the clean turn's, as without the gate.
    assert approvals == [("update_page_metadata", s.CLEAN_TURN[1][2])]
    # (c) The model's next input answers every call id, and shows the calls as it sent them.
    assert llm.answers(1) == {"call_1": s.NOT_RUN_GET_PAGE, "call_2": s.REFUSED_UPDATE}
    assert llm.calls_shown(1) == [(call_id, name, s.raw(arguments)) for call_id, name, arguments in s.REFUSED_TURN]
    assert len(llm.inputs) == 3 and llm.streamed == [mode == "stream"] * 3


def test_without_the_gate_the_bad_call_is_put_to_the_approval_and_its_sibling_runs(approvals):
    """What the gate prevents."""
    crew, _, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], gate=False)
    run(crew, "kickoff")
    assert ("update_page_metadata", s.REFUSED_TURN[1][2]) in approvals
    assert ("get_page", s.REFUSED_TURN[0][2]) in recorder.log


@pytest.mark.parametrize("mode", MODES)
def test_d_an_all_clean_run_is_the_same_with_and_without_the_gate(mode, approvals):
    script = [s.CLEAN_TURN, s.FINAL_TEXT]
    (gated, gated_llm, gated_recorder), (plain, plain_llm, plain_recorder) = (
        build(script, stream=mode == "stream"), build(script, gate=False, stream=mode == "stream"))
    assert run(gated, mode) == run(plain, mode) == s.FINAL_TEXT
    assert gated_llm.inputs == plain_llm.inputs and gated_llm.streamed == plain_llm.streamed
    assert gated_recorder.runs == plain_recorder.runs == clean_runs()
    assert approvals == [("update_page_metadata", s.CLEAN_TURN[1][2])] * 2


@pytest.mark.parametrize("mode", MODES)
def test_e_text_that_is_not_json_and_an_unknown_tool_are_answered_as_the_turn_gate_answers(mode, approvals):
    crew, llm, recorder = build([s.BROKEN_TURN, s.FINAL_TEXT], stream=mode == "stream")
    assert run(crew, mode) == s.FINAL_TEXT
    assert llm.answers(1) == s.turngate_answers(s.BROKEN_TURN)
    # CrewAI was handed `{}` for the text it cannot decode; the model is shown what it sent.
    assert llm.calls_shown(1) == [(call_id, name, s.raw(arguments)) for call_id, name, arguments in s.BROKEN_TURN]
    assert recorder.runs == [] and approvals == []


def test_undecodable_arguments_do_not_end_the_run_under_the_raise_failure_policy():
    """CrewAI answers arguments it cannot decode itself, before any hook, as a tool failure
    (which `tool_failure_policy="raise"` turns into the end of the run): the gate hands it
    arguments it can decode, and blocks the call."""
    crew, llm, _ = build([s.BROKEN_TURN, s.FINAL_TEXT])
    crew.agents[0].tool_failure_policy = "raise"
    assert run(crew, "kickoff") == s.FINAL_TEXT
    assert llm.answers(1) == s.turngate_answers(s.BROKEN_TURN)


@pytest.mark.parametrize("mode", MODES)
def test_f_the_runs_steps_are_recorded_with_their_codes_at_metadata_only(mode):
    steps: list[RunStep] = []
    crew, _, _ = build([s.REFUSED_TURN, s.BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT], stream=mode == "stream",
                       record=steps.append)
    run(crew, mode)
    s.assert_steps_of_the_refused_and_the_broken_turn(steps)


@pytest.mark.parametrize("mode", MODES)
def test_with_telemetry_each_decided_turn_is_reported_and_nothing_leaves_the_machine(mode):
    """Read with the SDK's in-memory exporters; the no_network fixture holds that neither the
    gate's reporting nor CrewAI's own telemetry tried to connect."""
    emitted = Emitted()
    crew, _, _ = build([s.REFUSED_TURN, s.BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT], stream=mode == "stream",
                       telemetry=emitted.telemetry)
    run(crew, mode)
    assert_reported(emitted, "crewai", [s.REFUSED_STEPS, s.BROKEN_STEPS, CLEAN_STEPS])


def test_a_gate_made_with_telemetry_names_itself_and_one_without_reports_nothing():
    telemetry = Emitted().telemetry
    assert TurnGate(telemetry=telemetry).options.telemetry.gate == "crewai" and telemetry.gate is None
    assert TurnGate().options.telemetry is None


# Every way a run can end -----------------------------------------------------------------------

@pytest.mark.parametrize("final", ["get_page", "update_page_metadata"])
def test_a_refused_turn_never_ends_the_run_through_a_result_as_answer_tool(final):
    """A blocked call's result would be the task's answer: the refused turn's call of the
    `result_as_answer` tool ("Not run" for get_page, "Refused" for update_page_metadata) is
    answered, the model goes on, and the clean turn ends the run as it would without the gate."""
    script = [s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT]
    crew, llm, recorder = build(script, final=[final])
    plain, plain_llm, plain_recorder = build(script[1:], gate=False, final=[final])
    assert run(crew, "kickoff") == run(plain, "kickoff") != s.FINAL_TEXT
    assert llm.answers(1) == {"call_1": s.NOT_RUN_GET_PAGE, "call_2": s.REFUSED_UPDATE}
    assert llm.calls_shown(1) == [(call_id, name, s.raw(arguments)) for call_id, name, arguments in s.REFUSED_TURN]
    assert recorder.runs == plain_recorder.runs and len(llm.inputs) == 2
    # CrewAI's own record of the task shows the calls as the model sent them, and the answers.
    record = crew.tasks[0].output.messages
    assert [call["function"]["name"] for message in record if message["role"] == "assistant"
            for call in message.get("tool_calls") or ()][:2] == ["get_page", "update_page_metadata"]
    assert [message["content"] for message in record if message["role"] == "tool"][:2] == [
        s.NOT_RUN_GET_PAGE, s.REFUSED_UPDATE]


def test_without_the_gate_a_blocked_call_of_a_result_as_answer_tool_ends_the_task_with_its_text():
    """Why the gate hands such a call on under another name: a hook that blocks it makes
    CrewAI's "blocked" text the task's final answer."""
    crew, llm, recorder = build([s.REFUSED_TURN, s.FINAL_TEXT], gate=False, final=["update_page_metadata"])

    def block(context):
        return False

    register_before_tool_call_hook(block)
    try:
        answer = run(crew, "kickoff")
    finally:
        unregister_before_tool_call_hook(block)
    assert "blocked" in answer and len(llm.inputs) == 1 and recorder.runs == []


@pytest.mark.parametrize("final", ["get_page", "update_page_metadata"])
def test_a_fitting_turn_of_a_result_as_answer_tool_ends_the_run_as_without_the_gate(final):
    script = [s.CLEAN_TURN, s.FINAL_TEXT]
    (crew, llm, recorder), (plain, plain_llm, plain_recorder) = (
        build(script, final=[final]), build(script, gate=False, final=[final]))
    assert run(crew, "kickoff") == run(plain, "kickoff") != s.FINAL_TEXT
    assert llm.inputs == plain_llm.inputs and len(llm.inputs) == 1
    assert recorder.runs == plain_recorder.runs


def test_a_refused_turn_at_max_iter_is_answered_in_the_models_last_call():
    """At `max_iter` CrewAI asks the model for its final answer: the refused turn was a turn
    of the model's, and its answers are in that last input; nothing ran, and the answer is the
    model's, never the gate's text."""
    crew, llm, recorder = build([s.REFUSED_TURN, s.FINAL_TEXT], max_iter=1)
    assert run(crew, "kickoff") == s.FINAL_TEXT
    assert llm.answers(1) == {"call_1": s.NOT_RUN_GET_PAGE, "call_2": s.REFUSED_UPDATE}
    assert recorder.runs == [] and len(llm.inputs) == 2


def test_a_fitting_turn_at_max_iter_ends_the_run_as_without_the_gate():
    script = [s.CLEAN_TURN, s.FINAL_TEXT]
    (crew, llm, recorder), (plain, plain_llm, plain_recorder) = (
        build(script, max_iter=1), build(script, gate=False, max_iter=1))
    assert run(crew, "kickoff") == run(plain, "kickoff") == s.FINAL_TEXT
    assert llm.inputs == plain_llm.inputs and len(llm.inputs) == 2
    assert recorder.runs == plain_recorder.runs == clean_runs()


# The rest of the gate's surface ----------------------------------------------------------------

def test_an_agent_kicked_off_alone_is_gated_too(approvals):
    recorder = s.Recorder()
    llm = ScriptedLLM(model="scripted", script=[s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], inputs=[], streamed=[])
    agent = TurnGate().agent(Agent(role="editor", goal="Keep pages current.", backstory="An editor.", llm=llm,
                                   tools=page_tools(recorder)))
    assert agent.kickoff(s.USER_TEXT).raw == s.FINAL_TEXT
    assert llm.answers(1) == {"call_1": s.NOT_RUN_GET_PAGE, "call_2": s.REFUSED_UPDATE}
    assert recorder.runs == clean_runs() and approvals == [("update_page_metadata", s.CLEAN_TURN[1][2])]


def test_casts_hand_a_fitting_turn_on_with_the_exact_casts():
    turn = [("call_1", "get_page", {"uid": "42", "language": "de"})]
    crew, llm, recorder = build([turn, s.FINAL_TEXT], casts=True)
    run(crew, "kickoff")
    assert recorder.runs == [("get_page", {"uid": 42, "language": "de"})]
    assert llm.calls_shown(1) == [("call_1", "get_page", '{"uid": 42, "language": "de"}')]
    plain, plain_llm, _ = build([turn, s.FINAL_TEXT])
    run(plain, "kickoff")
    assert plain_llm.calls_shown(1) == [("call_1", "get_page", '{"uid": "42", "language": "de"}')]


def test_the_gate_wraps_every_agent_and_the_manager_once_and_passes_on_what_is_not_the_turn():
    crew, llm, _ = build([])
    manager = ScriptedLLM(model="manager", script=[], inputs=[], streamed=[])
    crew = Crew(agents=crew.agents, tasks=crew.tasks, process=Process.hierarchical, manager_llm=manager)
    gate = TurnGate()
    gate.crew(gate.crew(crew))
    gated = crew.agents[0].llm
    assert isinstance(gated, GatedLLM) and gated.inner is llm and isinstance(crew.manager_llm, GatedLLM)
    assert crew.manager_llm.inner is manager
    gated.stream = True  # as Crew(stream=True) sets it: on the wrapped LLM too
    assert llm.stream is True and gated.supports_function_calling() and gated.model == "scripted"
    assert gated.get_context_window_size() == llm.get_context_window_size()
    assert gated.get_token_usage_summary() == llm.get_token_usage_summary()
    assert gated.script is llm.script  # what only the wrapped LLM has
    with pytest.raises(AttributeError):
        gated._nothing_of_the_kind
    asked = {"supports_stop_words": (), "supports_multimodal": (), "get_input_tokens_count": ("How long?",),
             "format_text_content": ("A",), "get_file_uploader": (), "to_config_dict": ()}
    asked = {name: given for name, given in asked.items() if hasattr(BaseLLM, name)}  # as this CrewAI has them
    assert {name: getattr(gated, name)(*given) for name, given in asked.items()} == {
        name: getattr(llm, name)(*given) for name, given in asked.items()}
    with pytest.raises(TypeError, match="the gate wraps a CrewAI BaseLLM"):
        gate.llm("gpt-4o")
    named = gate.crew(Crew(agents=crew.agents, tasks=crew.tasks, process=Process.hierarchical, manager_llm="gpt-4o"))
    assert isinstance(named.manager_llm, GatedLLM) and named.manager_llm.inner.model == "gpt-4o"


def test_the_example_runs_offline_and_shows_the_refused_turn_answered(capsys):
    registered = get_before_tool_call_hooks()
    try:
        runpy.run_path(str(EXAMPLES / "integrations" / "crewai_crew.py"), run_name="__main__")
    finally:  # the example's approval hook is CrewAI's global, like every tool hook
        for hook in get_before_tool_call_hooks():
            if hook not in registered:
                unregister_before_tool_call_hook(hook)
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert json.loads(lines[0])["codes"] == ["missing", "enum"]
    assert 'Refused: the arguments do not match the schema of tool "update_page"' in out
    assert "Approval asked for: {'uid': 42, 'title': 'Opening hours', 'status': 'review'}" in out
    assert out.count("Page 42 is now 'Opening hours', review.") == 1 and lines[-1] == "Done."


def test_the_docs_snippet_is_the_examples_code_and_the_range_is_the_extras():
    page = (ROOT / "docs" / "integrations.md").read_text()
    section = page.split("## CrewAI")[1]
    snippet = section.split("```python\n")[1].split("```")[0]
    assert snippet in (EXAMPLES / "integrations" / "crewai_crew.py").read_text()
    compile(snippet, "snippet", "exec")  # pasted as it is, it is Python
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["crewai"]
    assert f"| `crewai` | `{extra[0]}` " in page
    installed = tuple(int(part) for part in crewai.__version__.split(".")[:3])
    for operator, version in re.findall(r"(>=|<)([\d.]+)", extra[0].removeprefix("crewai")):
        bound = tuple(int(part) for part in version.split("."))
        assert installed >= bound if operator == ">=" else installed[:len(bound)] < bound, (installed, extra)


def test_the_wrapped_llm_judges_an_async_call_and_passes_a_prompt_of_text_through():
    """CrewAI's executors call `call`, or `acall` on their async paths: both judge the turn."""
    tools = [{"type": "function", "function": {"name": name, "parameters": schema}} for name, schema in s.SCHEMAS.items()]
    llm = ScriptedLLM(model="scripted", script=[s.REFUSED_TURN, s.CLEAN_TURN, "Fine."], inputs=[], streamed=[])
    gated = TurnGate().llm(llm)
    messages = [{"role": "user", "content": s.USER_TEXT}]
    handed = asyncio.run(gated.acall(messages, tools=tools))
    assert [call["id"] for call in handed] == ["call_1", "call_2"] and gated.refused_turn(None) is not None
    messages += [{"role": "assistant", "content": None, "tool_calls": handed},
                 *({"role": "tool", "tool_call_id": call["id"], "content": "blocked"} for call in handed)]
    clean = asyncio.run(gated.acall(messages, tools=tools))
    assert [call["id"] for call in clean] == ["call_3", "call_4"]  # a turn that fits, as it came
    assert llm.answers(1) == {"call_1": s.NOT_RUN_GET_PAGE, "call_2": s.REFUSED_UPDATE}
    assert gated.refused_turn(None) is None
    assert gated.call("Say fine.") == "Fine." and llm.inputs[-1] == "Say fine."
