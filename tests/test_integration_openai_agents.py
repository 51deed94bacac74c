"""The OpenAI Agents SDK gate (turngate.integrations.openai_agents), driven through the real
`Runner` with the SDK's own `agents.testing.ScriptedModel`: `Runner.run` and
`Runner.run_streamed`. No network: tracing is off."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from agents import (Agent, ModelBehaviorError, RunConfig, Runner, StopAtTools, ToolExecutionConfig,
                    ToolsToFinalOutputResult, function_tool, set_tracing_disabled)
from agents.testing import ScriptedModel, assistant_message, function_call

import scripted_models as s
from telemetry_support import Emitted, assert_scenario_reported
from turngate import RunStep
from turngate.integrations.openai_agents import GatedModel, TurnGate, turn_number

set_tracing_disabled(True)
MODES = ["plain", "streamed"]


def build(script, **agent_options):
    """A scripted model, a tool that records its runs and one that also needs approval."""
    recorder = s.Recorder()

    @function_tool(description_override=s.GET_PAGE_DOC)
    def get_page(uid: int, language: str) -> str:
        return recorder.get_page(uid, language)

    @function_tool(description_override=s.UPDATE_DOC, needs_approval=True)
    def update_page_metadata(uid: int, title: str, status: s.Status) -> str:
        return recorder.update_page_metadata(uid, title, status)

    model = ScriptedModel([[assistant_message(turn)] if isinstance(turn, str) else
                           [function_call(name, arguments, call_id=call_id) for call_id, name, arguments in turn]
                           for turn in script])
    agent = Agent(name="pages", model=model, tools=[get_page, update_page_metadata], **agent_options)
    return agent, model, recorder


def run(agent, mode, run_config=None):
    """Runs to the end, approving every approval asked; the result and the approvals."""
    async def until_done():
        given, approvals = s.USER_TEXT, []
        while True:
            if mode == "plain":
                result = await Runner.run(agent, given, run_config=run_config)
            else:
                result = Runner.run_streamed(agent, given, run_config=run_config)
                async for _ in result.stream_events():
                    pass
            if not result.interruptions:
                return result, approvals
            given = result.to_state()
            for item in result.interruptions:
                approvals.append((item.tool_name, json.loads(item.arguments)))
                given.approve(item)

    return asyncio.run(until_done())


def outputs(model_input) -> dict:
    return {item["call_id"]: item["output"] for item in model_input if item.get("type") == "function_call_output"}


@pytest.mark.parametrize("mode", MODES)
def test_a_b_c_a_refused_turn_runs_nothing_asks_nothing_and_is_answered(mode):
    agent, model, recorder = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT])
    gate = TurnGate(agent)
    result, approvals = run(gate.agent, mode, gate.run_config())

    # (a) Nothing of the refused turn ran.
    assert recorder.runs == [("get_page", s.CLEAN_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]
    # (b) No approval for the refused turn; the clean turn's, as without the gate.
    plain, _, _ = build([s.CLEAN_TURN, s.FINAL_TEXT])
    assert approvals == run(plain, mode)[1] == [("update_page_metadata", s.CLEAN_TURN[1][2])]
    # (c) The model's next input answers every call id; the run goes on to the clean turn.
    assert outputs(model.calls[1].input) == {"call_1": s.NOT_RUN_GET_PAGE, "call_2": s.REFUSED_UPDATE}
    assert result.final_output == s.FINAL_TEXT
    assert [call.streamed for call in model.calls] == [mode == "streamed"] * 3
    assert gate.pending == {}


def test_without_pre_approval_guardrails_the_bad_call_is_put_to_a_person_first():
    """Why `run_config()` turns `pre_approval_tool_input_guardrails` on."""
    agent, _, _ = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT])
    gate = TurnGate(agent)
    config = gate.run_config()
    config.tool_execution = ToolExecutionConfig(pre_approval_tool_input_guardrails=False)
    _, approvals = run(gate.agent, "plain", config)
    assert approvals[0] == ("update_page_metadata", s.REFUSED_TURN[1][2])


@pytest.mark.parametrize("mode", MODES)
def test_d_an_all_clean_run_is_the_same_with_and_without_the_gate(mode):
    script = [s.CLEAN_TURN, s.FINAL_TEXT]
    (agent, model, recorder), (plain, plain_model, plain_recorder) = build(script), build(script)
    gate = TurnGate(agent)
    gated_result, gated_approvals = run(gate.agent, mode, gate.run_config())
    plain_result, plain_approvals = run(plain, mode)

    assert gated_result.to_input_list() == plain_result.to_input_list()
    assert gated_approvals == plain_approvals != []
    assert recorder.runs == plain_recorder.runs != []
    assert [call.input for call in model.calls] == [call.input for call in plain_model.calls]


@pytest.mark.parametrize("mode", MODES)
def test_e_text_that_is_not_json_and_an_unknown_tool_are_answered_as_the_turn_gate_answers(mode):
    agent, model, recorder = build([s.BROKEN_TURN, s.FINAL_TEXT])
    gate = TurnGate(agent)
    result, approvals = run(gate.agent, mode, gate.run_config())
    assert outputs(model.calls[1].input) == s.turngate_answers(s.BROKEN_TURN)
    assert recorder.runs == [] and approvals == []
    assert result.final_output == s.FINAL_TEXT


def test_an_unknown_tool_ends_the_run_under_the_sdks_default_behaviour():
    """Why `run_config()` sets `tool_not_found_behavior="return_error_to_model"`."""
    agent, _, _ = build([s.BROKEN_TURN, s.FINAL_TEXT])
    gate = TurnGate(agent)
    config = gate.run_config()
    config.tool_not_found_behavior = "raise_error"
    with pytest.raises(ModelBehaviorError, match="get_pages not found"):
        run(gate.agent, "plain", config)


@pytest.mark.parametrize("mode", MODES)
def test_f_the_runs_steps_are_recorded_with_their_codes_at_metadata_only(mode):
    steps: list[RunStep] = []
    agent, _, _ = build([s.REFUSED_TURN, s.BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT])
    gate = TurnGate(agent, record=steps.append)
    run(gate.agent, mode, gate.run_config())
    s.assert_steps_of_the_refused_and_the_broken_turn(steps)


def test_a_host_run_config_and_a_model_named_by_text_are_gated_too():
    """The host's own settings stay, and a model the provider resolves is wrapped too."""
    agent, model, recorder = build([s.REFUSED_TURN, s.BROKEN_TURN, s.FINAL_TEXT])
    closed = []

    class Provider:  # a ModelProvider that knows one model by name
        def get_model(self, name):
            assert name == "scripted"
            return model

        async def aclose(self):
            closed.append(True)

    def host_formatter(args):
        return f"host: {args.kind}"

    gate = TurnGate(agent.clone(model="scripted"))
    host = RunConfig(model_provider=Provider(), workflow_name="pages", tool_error_formatter=host_formatter,
                     tool_execution=ToolExecutionConfig(max_function_tool_concurrency=1))
    config = gate.run_config(host)
    assert config.workflow_name == "pages" and config.tool_execution.max_function_tool_concurrency == 1
    result, _ = run(gate.agent, "plain", config)
    assert recorder.runs == [] and result.final_output == s.FINAL_TEXT
    assert outputs(model.calls[1].input)["call_2"] == s.REFUSED_UPDATE
    assert outputs(model.calls[2].input)["call_6"].startswith('Refused: no tool named "get_pages"')
    asyncio.run(config.model_provider.aclose())
    assert closed == [True]


def test_the_host_formatter_answers_what_the_gate_did_not():
    gate = TurnGate(build([])[0])

    async def host_formatter(args):
        return f"host: {args.kind}"

    class Args:
        kind, call_id = "tool_not_found", "call_1"

    assert asyncio.run(gate.run_config(RunConfig(tool_error_formatter=host_formatter)).tool_error_formatter(Args)) \
        == "host: tool_not_found"
    assert asyncio.run(gate.run_config().tool_error_formatter(Args)) is None


def test_the_wrapped_model_passes_on_retry_advice_and_close():
    closed = []

    class Host(ScriptedModel):
        def get_retry_advice(self, request):
            return f"advice for {request}"

        async def close(self):
            closed.append(True)

    agent, _, _ = build([])
    gated = TurnGate(agent.clone(model=Host([]))).agent.model
    assert isinstance(gated, GatedModel) and gated.get_retry_advice("this") == "advice for this"
    asyncio.run(gated.close())
    assert closed == [True]


def test_the_turn_number_counts_the_models_earlier_turns():
    assert turn_number("Hello.") == 1
    earlier = [{"role": "user", "content": "Hello."},
               {"type": "function_call", "call_id": "a", "name": "get_page", "arguments": "{}"},
               {"type": "function_call", "call_id": "b", "name": "get_page", "arguments": "{}"},
               {"type": "function_call_output", "call_id": "a", "output": "x"},
               assistant_message("Read.")]
    assert turn_number(earlier) == 3


def test_an_mcp_servers_tools_are_gated_too():
    """Tools the SDK makes per turn from an MCP server (turngate's demo server, over stdio) get
    the guardrail as they are offered: nothing of the refused turn reaches the server."""
    from agents.mcp import MCPServerStdio

    async def scenario():
        params = {"command": sys.executable, "args": ["-m", "turngate.mcp.demo_server"]}
        async with MCPServerStdio(params=params) as server:
            good_update = {"uid": 42, "title": "Hours", "status": "draft", "keywords": ["hours"]}
            model = ScriptedModel([[function_call("update_page_metadata", good_update, call_id="call_1"),
                                    function_call("get_page", {"uid": [42]}, call_id="call_2")],
                                   [assistant_message(s.FINAL_TEXT)]])
            gate = TurnGate(Agent(name="pages", model=model, mcp_servers=[server]))
            await Runner.run(gate.agent, s.USER_TEXT, run_config=gate.run_config())
            page = json.loads((await server.call_tool("get_page", {"uid": 42})).content[0].text)
            return outputs(model.calls[1].input), page

    answered, page = asyncio.run(scenario())
    assert answered["call_1"].startswith('Not run: this call of tool "update_page_metadata"')
    assert answered["call_2"].startswith('Refused: the arguments do not match the schema of tool "get_page"')
    assert page["status"] == "published"  # the sibling's update never reached the server


@pytest.mark.parametrize("mode", MODES)
def test_with_telemetry_each_decided_turn_is_reported(mode):
    emitted = Emitted()
    agent, _, _ = build([s.REFUSED_TURN, s.BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT])
    gate = TurnGate(agent, telemetry=emitted.telemetry)
    run(gate.agent, mode, gate.run_config())
    assert_scenario_reported(emitted, "openai-agents")


# Every way a run can end: tool_use_behavior -------------------------------------------------------

def stop_after_an_update(context, results) -> ToolsToFinalOutputResult:
    """A host's rule: the run ends with the result of update_page_metadata."""
    update = next((result for result in results if result.tool.name == "update_page_metadata"), None)
    return ToolsToFinalOutputResult(is_final_output=update is not None, final_output=update and update.output)


async def stop_after_an_update_awaited(context, results) -> ToolsToFinalOutputResult:
    return stop_after_an_update(context, results)


STOP_RULES = {"stop_on_first_tool": "stop_on_first_tool",
              "StopAtTools get_page": StopAtTools(stop_at_tool_names=["get_page"]),
              "StopAtTools update_page_metadata": StopAtTools(stop_at_tool_names=["update_page_metadata"]),
              "StopAtTools none of the turn's": StopAtTools(stop_at_tool_names=["delete_page"]),
              "a host's function": stop_after_an_update, "a host's coroutine": stop_after_an_update_awaited}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rule", STOP_RULES)
def test_a_refused_turn_never_ends_the_run_whatever_the_tool_use_behavior(rule, mode):
    agent, model, recorder = build([s.REFUSED_TURN, s.BROKEN_TURN, s.CLEAN_TURN, s.FINAL_TEXT],
                                   tool_use_behavior=STOP_RULES[rule])
    gate = TurnGate(agent)
    result, _ = run(gate.agent, mode, gate.run_config())
    # The model got the answers of both refused turns, and the run went on.
    assert outputs(model.calls[1].input) == {"call_1": s.NOT_RUN_GET_PAGE, "call_2": s.REFUSED_UPDATE}
    assert outputs(model.calls[2].input) == {**outputs(model.calls[1].input), **s.turngate_answers(s.BROKEN_TURN)}
    assert recorder.runs == [("get_page", s.CLEAN_TURN[0][2]), ("update_page_metadata", s.CLEAN_TURN[1][2])]
    # The turn that fits ends the run exactly as it does without the gate.
    plain, plain_model, _ = build([s.CLEAN_TURN, s.FINAL_TEXT], tool_use_behavior=STOP_RULES[rule])
    plain_result, _ = run(plain, mode)
    assert result.final_output == plain_result.final_output
    assert len(model.calls) == len(plain_model.calls) + 2
    assert gate.answered == set() and gate.pending == {}


@pytest.mark.parametrize("rule", STOP_RULES)
def test_a_clean_run_ends_as_it_does_without_the_gate_whatever_the_tool_use_behavior(rule):
    script = [s.CLEAN_TURN, s.FINAL_TEXT]
    (agent, model, recorder), (plain, plain_model, plain_recorder) = (
        build(script, tool_use_behavior=STOP_RULES[rule]), build(script, tool_use_behavior=STOP_RULES[rule]))
    gate = TurnGate(agent)
    gated_result, _ = run(gate.agent, "plain", gate.run_config())
    plain_result, _ = run(plain, "plain")
    assert gated_result.final_output == plain_result.final_output
    assert gated_result.to_input_list() == plain_result.to_input_list()
    assert recorder.runs == plain_recorder.runs != []
    assert [call.input for call in model.calls] == [call.input for call in plain_model.calls]


def test_the_default_behaviour_is_kept_as_it_is():
    agent, _, _ = build([])
    assert TurnGate(agent).agent.tool_use_behavior == "run_llm_again"


@pytest.mark.parametrize("rule", ["stop_on_first_tool", "a host's function"])
def test_under_the_agents_own_stop_rule_the_refusal_would_be_the_final_output(rule):
    """Why the gate's agent decides the stop rule: the SDK would end the run on the answer."""
    agent, model, _ = build([s.REFUSED_TURN, s.CLEAN_TURN, s.FINAL_TEXT], tool_use_behavior=STOP_RULES[rule])
    gate = TurnGate(agent)
    result, _ = run(gate.agent.clone(tool_use_behavior=STOP_RULES[rule]), "plain", gate.run_config())
    assert result.final_output in (s.NOT_RUN_GET_PAGE, s.REFUSED_UPDATE) and len(model.calls) == 1
