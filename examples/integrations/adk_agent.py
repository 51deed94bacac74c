"""A Google ADK run gated by turngate: the model's first turn has a bad call, so nothing of it
runs and no confirmation is asked; the next turn's confirmation is asked as usual. Offline: a
scripted model plays the turns, no key needed. Needs `pip install 'turngate[adk]'`."""
import asyncio
import sys
from typing import AsyncGenerator, Literal

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.function_tool import FunctionTool
from google.genai import types

from turngate import dump_steps
from turngate.integrations.adk import TurnGate


class ScriptedModel(BaseLlm):
    """Answers each request with the next of its turns."""

    turns: list[list[types.Part]]
    played: int = 0

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        self.played += 1
        yield LlmResponse(content=types.Content(role="model", parts=self.turns[self.played - 1]))


def update_page(uid: int, title: str, status: Literal["draft", "review", "published"]) -> str:
    """Change a page's title and status."""
    return f"Page {uid} is now {title!r}, {status}."


def call(call_id: str, **arguments: object) -> types.Part:
    return types.Part(function_call=types.FunctionCall(id=call_id, name="update_page", args=arguments))


model = ScriptedModel(model="scripted", turns=[[call("call_1", uid=42, status="archived")],
                                               [call("call_2", uid=42, title="Opening hours", status="review")],
                                               [types.Part(text="Done.")]])
agent = LlmAgent(name="pages", model=model, tools=[FunctionTool(update_page, require_confirmation=True)])
app = App(name="pages", root_agent=agent, plugins=[TurnGate(record=lambda step: dump_steps([step], sys.stdout))])
runner = InMemoryRunner(app=app)


async def main() -> None:
    session = await runner.session_service.create_session(app_name="pages", user_id="host")
    message = types.Content(role="user", parts=[types.Part(text="Put page 42 up for review.")])
    asked = [call async for event in runner.run_async(user_id="host", session_id=session.id, new_message=message)
             for call in event.get_function_calls() if call.name == "adk_request_confirmation"]
    print("Approval asked for:", [(call.args or {})["originalFunctionCall"]["args"] for call in asked])
    confirmed = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id=call.id, name="adk_request_confirmation", response={"confirmed": True})) for call in asked])
    async for _ in runner.run_async(user_id="host", session_id=session.id, new_message=confirmed):
        pass
    done = await runner.session_service.get_session(app_name="pages", user_id="host", session_id=session.id)
    for event in done.events if done else []:
        for part in event.content.parts or [] if event.content else []:
            call, answer = part.function_call, part.function_response
            said = (answer.response or {}) if answer else {}
            shown = part.text or (call and f"{call.name}({call.args})") or said.get("error") or said.get("result")
            print(f"{event.author:>8}: {shown or said}")


asyncio.run(main())
