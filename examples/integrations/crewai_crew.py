"""A CrewAI crew gated by turngate: the model's first turn has a bad call, so nothing of it
runs and no approval is asked; the next turn's approval is asked as usual. Offline: a
scripted BaseLLM plays the model, and CrewAI's telemetry is off. Needs
`pip install 'turngate[crewai]'`."""
import json
import os
import sys
from typing import Any, Literal

os.environ.update(CREWAI_DISABLE_TELEMETRY="true", CREWAI_TRACING_ENABLED="false")

from crewai import Agent, Crew, CrewOutput, Task
from crewai.hooks import ToolCallHookContext, before_tool_call
from crewai.llms.base_llm import BaseLLM
from crewai.tools import tool

from turngate import dump_steps


class ScriptedModel(BaseLLM):
    """Plays the model: a turn of tool calls, another, then its final answer."""

    turns: list[Any] = [[("call_1", "update_page", {"uid": 42, "status": "archived"})],
                   [("call_2", "update_page", {"uid": 42, "title": "Opening hours", "status": "review"})],
                   "Done."]

    def call(self, messages: Any, *args: Any, **options: Any) -> Any:
        turn = self.turns.pop(0)
        return turn if isinstance(turn, str) else [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
            for call_id, name, arguments in turn]

    def supports_function_calling(self) -> bool:
        return True


@tool("update_page")
def update_page(uid: int, title: str, status: Literal["draft", "review", "published"]) -> str:
    """Change a page's title and status."""
    return f"Page {uid} is now {title!r}, {status}."


@before_tool_call(tools=["update_page"])
def ask_a_person(context: ToolCallHookContext) -> None:
    print("Approval asked for:", context.tool_input)  # a host would call context.request_human_input(...)
    return None


editor = Agent(role="editor", goal="Keep pages current.", backstory="An editor.",
               llm=ScriptedModel(model="scripted"), tools=[update_page])
task = Task(description="Put page 42 up for review.", expected_output="What changed.", agent=editor)

from turngate.integrations.crewai import TurnGate

gate = TurnGate(record=lambda step: dump_steps([step], sys.stdout))
crew = gate.crew(Crew(agents=[editor], tasks=[task]))
result = crew.kickoff()

assert isinstance(result, CrewOutput)  # not a streaming crew
for message in result.tasks_output[0].messages[2:]:
    print(f"{message['role']:>10}: {message.get('content') or message.get('tool_calls')}")
print(result.raw)
