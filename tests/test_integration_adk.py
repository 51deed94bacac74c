"""The Google ADK gate (turngate.integrations.adk), driven through a real `InMemoryRunner` with a
scripted `BaseLlm`: plain runs and SSE-streamed ones, approvals through ADK's tool
confirmation, the gate's options, its place among plugins and the agent's own callbacks, an
MCP toolset, the example and the extra. The ways a run ends: test_integration_adk_stops.py."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tomllib
from importlib.metadata import version
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.agents.invocation_context import LlmCallsLimitExceededError
from google.adk.apps import App
from google.adk.features import FeatureName, is_feature_enabled, override_feature_enabled
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import InMemoryRunner
from google.genai import types
from packaging.requirements import Requirement
from pydantic import ValidationError

import scenario as s
from adk_support import MODES, answers, build, error, not_run, page_tools, run, runner_for, scripted, transcript
from conftest import EXAMPLES, ROOT
from telemetry_support import CLEAN_STEPS, Emitted, assert_reported
from turngate import RunStep, TableError
from turngate.integrations.adk import GateOrderError, TurnGate

# ADK's FunctionCall holds arguments as an object, so the scenario's broken turn comes without
# its text that is not JSON (see test_arguments_that_are_not_json_never_reach_a_turn).
BROKEN_TURN = s.BROKEN_TURN[1:]
BROKEN_STEPS = [(None, "refused", "arguments", ("unknown-tool",)), ("get_page", "not-run", "turn", ())]


@pytest.mark.parametrize("mode", MODES)
def test_a_b_c_a_refused_turn_runs_nothing_asks_nothing_and_is_answered(mode):
    runner, model, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT])
    events, approvals = run(runner, mode)

    # (a) Nothing of the refused turn ran.
    assert recorder.runs == [("get_page", s.CLEAN_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]
    # (b) No confirmation asked for the refused turn; the clean turn's, as without the gate.
    plain, _, _ = build([s.CLEAN_TURN, s.FINAL_TEXT], gate=False)
    assert approvals == run(plain, mode)[1] == [("update_page_metadata", s.CLEAN_TURN[1][2])]
    # (c) The model's next input answers every call id; the run goes on to the clean turn.
    assert answers(model.requests[1]) == {"call_1": error(s.NOT_RUN_GET_PAGE), "call_2": error(s.REFUSED_UPDATE)}
    assert events[-1].content.parts[0].text == s.FINAL_TEXT
    assert model.streamed == [mode == "streamed"] * 3
    assert runner.plugin_manager.plugins[0].requests == {}  # nothing kept of a finished run


@pytest.mark.parametrize("mode", MODES)
def test_d_an_all_clean_run_is_the_same_with_and_without_the_gate(mode):
    script = [s.CLEAN_TURN, s.FINAL_TEXT]
    (runner, model, recorder), (plain, plain_model, plain_recorder) = build(script), build(script, gate=False)
    gated_events, gated_approvals = run(runner, mode)
    plain_events, plain_approvals = run(plain, mode)

    assert transcript(gated_events) == transcript(plain_events)
    assert gated_approvals == plain_approvals != []
    assert recorder.runs == plain_recorder.runs != []
    assert [request.contents for request in model.requests] == [request.contents for request in plain_model.requests]


@pytest.mark.parametrize("mode", MODES)
def test_e_an_unknown_tool_is_answered_with_the_close_name(mode):
    runner, model, recorder = build([BROKEN_TURN, s.FINAL_TEXT])
    events, approvals = run(runner, mode)
    expected = s.turngate_answers(BROKEN_TURN)
    assert answers(model.requests[1]) == {call_id: error(text) for call_id, text in expected.items()}
    assert answers(model.requests[1])["call_6"]["error"].startswith('Refused: no tool named "get_pages"')
    assert recorder.runs == [] and approvals == []
    assert events[-1].content.parts[0].text == s.FINAL_TEXT


def test_arguments_that_are_not_json_never_reach_a_turn():
    """ADK keeps a call's arguments as an object: a model adapter decodes the text before there
    is a turn (LiteLlm answers undecodable text with an error response and no call)."""
    with pytest.raises(ValidationError):
        types.FunctionCall(id="call_5", name="get_page", args=s.BROKEN_TURN[0][2])


@pytest.mark.parametrize("mode", MODES)
def test_f_the_runs_steps_are_recorded_with_their_codes_at_metadata_only(mode):
    steps: list[RunStep] = []
    runner, _, _ = build([s.REFUSED_TURN, BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT], record=steps.append)
    run(runner, mode)
    assert steps == [RunStep(turn, index, tool, status, refusal, codes, privacy="metadata-only")
                     for turn, found in ((1, s.REFUSED_STEPS), (2, BROKEN_STEPS))
                     for index, (tool, status, refusal, codes) in enumerate(found, 1)]


@pytest.mark.parametrize("mode", MODES)
def test_with_telemetry_each_decided_turn_is_reported_once(mode):
    """Streamed, a turn comes as partial events first: it is still one decision, one span.
    The clean turn's confirmed call runs in a later run than its turn: not reported again."""
    emitted = Emitted()
    runner, _, _ = build([s.REFUSED_TURN, BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT], telemetry=emitted.telemetry)
    run(runner, mode)
    assert_reported(emitted, "adk", [s.REFUSED_STEPS, BROKEN_STEPS, CLEAN_STEPS])


TRACED_RUN = """
import sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)  # the host's set-up: ADK traces through the global providers

import scenario as s
from adk_support import build, run
from turngate import Telemetry

runner, _, _ = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], telemetry=Telemetry())
run(runner)
spans = exporter.get_finished_spans()
names = {span.context.span_id: span.name for span in spans}
# The run's root span: "invocation" (ADK 2.7) or "invoke_workflow" (2.13).
roots = {span.context.trace_id for span in spans if span.parent is None and span.name != "turngate turn"}
for span in spans:
    if span.name == "turngate turn":
        print(span.attributes["turngate.turn.outcome"], names.get(span.parent.span_id), span.context.trace_id in roots)
"""


def test_with_the_global_providers_each_turn_is_a_span_under_adks_own_in_the_runs_trace():
    """A host that traces ADK (which traces through OpenTelemetry's global providers) gets
    each turn's span in the trace of its run, under the tool span of the turn's first call."""
    done = subprocess.run([sys.executable, "-c", TRACED_RUN], capture_output=True, text=True, timeout=120,
                          cwd=ROOT / "tests")
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["refused execute_tool get_page True", "accepted execute_tool get_page True"]


def test_a_gate_made_with_telemetry_names_itself_and_one_without_reports_nothing():
    telemetry = Emitted().telemetry
    assert TurnGate(telemetry=telemetry).options.telemetry.gate == "adk" and telemetry.gate is None
    assert TurnGate().options.telemetry is None


def test_a_call_confirmed_where_the_gate_forgot_its_turn_runs_as_adk_runs_it():
    """A confirmed call runs in a later run than its turn, without a model request. Where the
    gate no longer has its turn's decision (a restarted process), the call runs as ADK runs
    it: its turn fitted, as a refused turn asks for no confirmation."""
    runner, model, recorder = build([s.CLEAN_TURN, s.FINAL_TEXT])
    _, approvals = run(runner, between=runner.plugin_manager.plugins[0].decisions.clear)
    assert approvals == [("update_page_metadata", s.CLEAN_TURN[1][2])]
    assert recorder.runs == [("get_page", s.CLEAN_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]


def test_a_refused_turn_spends_one_of_the_runs_model_requests():
    """Written down in docs/integrations.md: `max_llm_calls` counts the refused turn's request."""
    runner, model, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT])
    with pytest.raises(LlmCallsLimitExceededError):
        run(runner, max_llm_calls=1)
    assert len(model.requests) == 1 and recorder.log == []


def test_a_table_or_privacy_level_that_does_not_exist_is_said_when_the_gate_is_made():
    with pytest.raises(ValueError, match='^privacy is one of "full", "metadata-only", not "none"$'):
        TurnGate(privacy="none")
    with pytest.raises(TableError, match="^nope: there is no table file here"):
        TurnGate(table="nope")


def test_another_table_judges_by_its_rules():
    """The strict table refuses a fraction for an integer, which the default lets through."""
    turn = [("call_3", "get_page", {"uid": 42.5, "language": "de"})]
    for table, refused in ((None, False), ("strict", True)):
        runner, model, recorder = build([turn, s.FINAL_TEXT], table=table)
        run(runner)
        assert ("error" in answers(model.requests[1])["call_3"]) is refused
        assert recorder.log == ([] if refused else [("get_page", turn[0][2])])


def test_the_full_privacy_level_keeps_call_ids_and_texts():
    steps: list[RunStep] = []
    runner, _, _ = build([s.REFUSED_TURN, s.FINAL_TEXT], record=steps.append, privacy="full")
    run(runner)
    assert [(step.call_id, step.text) for step in steps] == [("call_1", s.NOT_RUN_GET_PAGE),
                                                            ("call_2", s.REFUSED_UPDATE)]


# Where the gate stands among plugins and callbacks --------------------------------------------

class Watching(BasePlugin):
    """A host's plugin that only looks."""

    def __init__(self) -> None:
        super().__init__(name="watching")


def test_a_run_where_the_gate_is_not_the_first_plugin_stops_before_the_model_is_called():
    recorder, model = s.Recorder(), scripted([s.REFUSED_TURN, s.FINAL_TEXT])
    agent = LlmAgent(name="pages", model=model, tools=page_tools(recorder))
    runner = InMemoryRunner(app=App(name="pages", root_agent=agent, plugins=[Watching(), TurnGate()]))
    with pytest.raises(RuntimeError) as raised:
        run(runner)
    assert isinstance(raised.value.__cause__, GateOrderError)
    assert str(raised.value.__cause__) == (
        "the turn gate must be the first plugin, but 'watching' comes before it, and a plugin that answers a tool "
        "call or a model request first keeps the gate from deciding the turn: list TurnGate() first in plugins=[...]")
    assert model.requests == [] and recorder.log == []
    # Listed first, it gates the same run.
    runner = InMemoryRunner(app=App(name="pages", root_agent=agent, plugins=[TurnGate(), Watching()]))
    run(runner)
    assert answers(model.requests[1])["call_2"] == error(s.REFUSED_UPDATE)


def test_the_gate_judges_the_turn_as_the_agents_own_after_model_callback_leaves_it():
    """An agent's after_model_callback runs after every plugin's and may change the turn: the
    gate judges the turn that runs, the one in the session."""
    def complete_titles(callback_context: Any, llm_response: LlmResponse) -> LlmResponse:
        for part in llm_response.content.parts if llm_response.content else []:
            if part.function_call and part.function_call.name == "update_page_metadata":
                part.function_call.args = {**(part.function_call.args or {}), "title": "Opening hours",
                                           "status": "review"}
        return llm_response

    recorder, model = s.Recorder(), scripted([s.REFUSED_TURN, s.FINAL_TEXT])
    agent = LlmAgent(name="pages", model=model, tools=page_tools(recorder, confirm=False),
                     after_model_callback=complete_titles)
    events, _ = run(runner_for(agent))
    assert recorder.runs == [("get_page", s.REFUSED_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]
    assert events[-1].content.parts[0].text == s.FINAL_TEXT


UNOFFERED = 'Refused: no tool named "update_page_metadata" was offered, so nothing was run.'


def test_the_gate_judges_by_the_declarations_the_model_was_sent():
    """An agent's before_model_callback runs after the plugins' and may take a tool out of the
    request: a call of it is a call of a tool that was not offered, though ADK would run it."""
    def offer_reading_only(callback_context: Any, llm_request: LlmRequest) -> None:
        for tool in llm_request.config.tools or []:
            tool.function_declarations = [declaration for declaration in tool.function_declarations or []
                                          if declaration.name == "get_page"]

    recorder, model = s.Recorder(), scripted([s.CLEAN_TURN, s.FINAL_TEXT])
    agent = LlmAgent(name="pages", model=model, tools=page_tools(recorder, confirm=False),
                     before_model_callback=offer_reading_only)
    run(runner_for(agent))
    assert answers(model.requests[1]) == {"call_3": error(not_run("get_page")), "call_4": error(UNOFFERED)}
    assert recorder.log == []


def test_declarations_in_geminis_own_schema_are_read_as_json_schema():
    """With ADK's JSON_SCHEMA_FOR_FUNC_DECL feature off, a declaration carries a Gemini `Schema`
    (`parameters`) instead of JSON Schema: the gate reads it in JSON Schema's words."""
    was = is_feature_enabled(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL)
    override_feature_enabled(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL, False)
    try:
        runner, model, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT])
        run(runner)
    finally:
        override_feature_enabled(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL, was)
    declared = [declaration for tool in model.requests[0].config.tools or []
                for declaration in tool.function_declarations or []]
    assert [(d.name, d.parameters is not None, d.parameters_json_schema) for d in declared] == [
        ("get_page", True, None), ("update_page_metadata", True, None)]
    assert answers(model.requests[1]) == {"call_1": error(s.NOT_RUN_GET_PAGE), "call_2": error(s.REFUSED_UPDATE)}
    assert recorder.runs == [("get_page", s.CLEAN_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]


@pytest.mark.parametrize("casts", [False, True])
def test_with_casts_a_fitting_turn_hands_the_tool_its_arguments_cast(casts):
    """turngate's lenient default lets "Review" through for a Literal["draft", "review", ...],
    and ADK's FunctionTool hands it on as sent; with casts the tool gets "review". The
    session keeps what the model sent."""
    sent = {"uid": 42, "title": "Opening hours", "status": "Review"}
    recorder, model = s.Recorder(), scripted([[("call_4", "update_page_metadata", sent)], s.FINAL_TEXT])
    agent = LlmAgent(name="pages", model=model, tools=page_tools(recorder, confirm=False))
    events, _ = run(runner_for(agent, casts=casts))
    assert recorder.runs == [("update_page_metadata", s.CLEAN_TURN[1][2] if casts else sent)]
    assert events[0].get_function_calls()[0].args == sent


def test_an_mcp_servers_tools_are_gated_too():
    """An `McpToolset`'s tools (turngate's demo server, over stdio) are declared from the
    server's input schemas: nothing of a refused turn reaches the server."""
    pytest.importorskip("google.adk.tools.mcp_tool.mcp_toolset", exc_type=ImportError, reason=(
        "this ADK's McpToolset needs mcp 1.x (2.11 allows mcp 2); turngate's MCP server needs mcp 2"))
    from google.adk.tools.mcp_tool.mcp_session_manager import StdioConnectionParams
    from google.adk.tools.mcp_tool.mcp_toolset import McpToolset
    from mcp import StdioServerParameters

    good_update = {"uid": 42, "title": "Hours", "status": "draft", "keywords": ["hours"]}
    model = scripted([[("call_1", "update_page_metadata", good_update), ("call_2", "get_page", {"uid": [42]})],
                      [("call_3", "get_page", {"uid": 42})], s.FINAL_TEXT])
    server = StdioServerParameters(command=sys.executable, args=["-m", "turngate.mcp.demo_server"])
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=server))
    try:
        run(runner_for(LlmAgent(name="pages", model=model, tools=[toolset])))
    finally:
        asyncio.run(toolset.close())
    answered = answers(model.requests[1])
    assert answered["call_1"] == error(not_run("update_page_metadata"))
    assert answered["call_2"]["error"].startswith('Refused: the arguments do not match the schema of tool "get_page"')
    page = json.loads(answers(model.requests[2])["call_3"]["content"][0]["text"])
    assert page["status"] == "published"  # the sibling's update never reached the server


# The example, the extra ------------------------------------------------------------------------

@pytest.mark.slow
def test_the_example_runs_offline_and_shows_the_refused_turn_answered():
    done = subprocess.run([sys.executable, str(EXAMPLES / "integrations" / "adk_agent.py")],
                          capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith(
        '{"turn": 1, "index": 1, "tool": "update_page", "status": "refused", "tool_refusal": "arguments", '
        '"codes": ["missing", "enum"], "call_id": null, "text": null, "privacy": "metadata-only"')
    assert lines[1] == "Approval asked for: [{'uid': 42, 'title': 'Opening hours', 'status': 'review'}]"
    refused = 'Refused: the arguments do not match the schema of tool "update_page", so nothing was run.'
    assert f"   pages: {refused}" in lines
    assert lines.count("   pages: Page 42 is now 'Opening hours', review.") == 1 and lines[-1] == "   pages: Done."


def test_the_installed_release_is_in_the_range_the_adk_extra_declares():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    [requirement] = extras["adk"]
    assert Requirement(requirement).specifier.contains(version("google-adk"))
