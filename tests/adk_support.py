"""What the Google ADK gate's tests share (tests/test_integration_adk*.py): a scripted `BaseLlm`,
the scenario's tools as ADK tools, and a runner driven to the end of a run."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncGenerator, Callable

from google.adk.agents import LlmAgent
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools import FunctionTool
from google.genai import types

import scenario as s
from turngate.integrations.adk import TurnGate

MODES = ["plain", "streamed"]
CONFIRMATION = "adk_request_confirmation"  # the call ADK makes to ask a person


class ScriptedLlm(BaseLlm):
    """Plays the model's turns in order: text, or calls of (id, tool, arguments). Streamed,
    each part comes as a partial response first, then the whole turn, as Gemini sends it."""

    turns: list[Any]
    requests: list[LlmRequest] = []
    streamed: list[bool] = []

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request.model_copy(deep=True))
        self.streamed.append(stream)
        turn = self.turns[len(self.requests) - 1]
        parts = [types.Part(text=turn)] if isinstance(turn, str) else [
            types.Part(function_call=types.FunctionCall(id=call_id, name=name, args=arguments))
            for call_id, name, arguments in turn]
        for part in parts if stream else ():
            yield LlmResponse(content=types.Content(role="model", parts=[part]), partial=True)
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def scripted(script: list[Any]) -> ScriptedLlm:
    return ScriptedLlm(model="scripted", turns=script, requests=[], streamed=[])


def page_tools(recorder: s.Recorder, confirm: bool = True) -> list[Any]:
    """The scenario's tools: `update_page_metadata` asks a person first, where `confirm`."""
    def get_page(uid: int, language: str) -> str:
        """Read a page."""
        return recorder.get_page(uid, language)

    def update_page_metadata(uid: int, title: str, status: s.Status) -> str:
        """Change a page's title and status."""
        return recorder.update_page_metadata(uid, title, status)

    return [get_page, FunctionTool(update_page_metadata, require_confirmation=confirm)]


def build(script: list[Any], gate: bool = True, tools: list[Any] | None = None,
          **gate_options: Any) -> tuple[InMemoryRunner, ScriptedLlm, s.Recorder]:
    recorder, model = s.Recorder(), scripted(script)
    agent = LlmAgent(name="pages", model=model, tools=page_tools(recorder) if tools is None else tools)
    return runner_for(agent, gate, **gate_options), model, recorder


def runner_for(agent: Any, gate: bool = True, **gate_options: Any) -> InMemoryRunner:
    plugins = [TurnGate(**gate_options)] if gate else []
    return InMemoryRunner(app=App(name="pages", root_agent=agent, plugins=plugins))


def run(runner: InMemoryRunner, mode: str = "plain", between: Callable[[], object] = lambda: None,
        **settings: Any) -> tuple[list[Any], list[tuple[str, dict]]]:
    """Runs to the end, confirming every call ADK asks a person about (`between` is called
    before each confirmation is sent): the events, and the calls confirmed. `settings` go to
    the `RunConfig`."""
    config = RunConfig(streaming_mode=StreamingMode.SSE if mode == "streamed" else StreamingMode.NONE, **settings)

    async def until_done() -> tuple[list[Any], list[tuple[str, dict]]]:
        session = await runner.session_service.create_session(app_name=runner.app_name, user_id="host")
        message = types.Content(role="user", parts=[types.Part(text=s.USER_TEXT)])
        events: list[Any] = []
        approvals: list[tuple[str, dict]] = []
        while message is not None:
            asked = []
            async for event in runner.run_async(user_id="host", session_id=session.id, new_message=message,
                                                run_config=config):
                events.append(event)
                asked += [call for call in event.get_function_calls() if call.name == CONFIRMATION]
            approvals += [(call.args["originalFunctionCall"]["name"], call.args["originalFunctionCall"]["args"])
                          for call in asked]
            between()
            message = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
                id=call.id, name=CONFIRMATION, response={"confirmed": True})) for call in asked]) if asked else None
        return events, approvals

    return asyncio.run(until_done())


def answers(request: LlmRequest) -> dict[str, Any]:
    """The function responses of the model's latest input, by call id."""
    return {part.function_response.id: part.function_response.response
            for part in request.contents[-1].parts or [] if part.function_response}


def transcript(events: list[Any]) -> list[Any]:
    """What a run said and did, without the ids and times that differ from run to run."""
    def made(call_id: str | None) -> str | None:  # ADK's own ids are new each run
        return "adk-" if call_id and call_id.startswith("adk-") else call_id

    def part(p: types.Part) -> Any:
        call, response = p.function_call, p.function_response
        return (p.text, call and (made(call.id), call.name, call.args),
                response and (made(response.id), response.response))
    return [(event.author, event.partial, event.content and [part(p) for p in event.content.parts or []],
             event.actions.model_dump(exclude_none=True, exclude={"requested_tool_confirmations"}))
            for event in events]


def error(text: str) -> dict[str, str]:
    return {"error": text}


def not_run(tool: str) -> str:
    return s.NOT_RUN_GET_PAGE.replace('"get_page"', f'"{tool}"')
