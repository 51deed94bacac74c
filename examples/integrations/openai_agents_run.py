"""An OpenAI Agents SDK run gated by turngate: the model's first turn has a bad call, so nothing
of it runs and no approval is asked; the next turn's approval is asked as usual. Offline: the
SDK's own ScriptedModel, tracing off. Needs `pip install 'turngate[openai-agents]'`."""
from __future__ import annotations

import asyncio
import sys
from typing import Literal

from agents import Agent, FunctionTool, Model, Runner, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from turngate import dump_steps
from turngate.integrations.openai_agents import TurnGate


async def review(model: Model, update_page: FunctionTool) -> None:
    gate = TurnGate(Agent(name="pages", model=model, tools=[update_page]),
                    record=lambda step: dump_steps([step], sys.stdout))
    result = await Runner.run(gate.agent, "Put page 42 up for review.", run_config=gate.run_config())
    print("Approval asked for:", [item.arguments for item in result.interruptions])
    state = result.to_state()
    state.approve(result.interruptions[0])
    result = await Runner.run(gate.agent, state, run_config=gate.run_config())
    for item in result.to_input_list():
        print(f"{item.get('type') or item.get('role'):>20}: {item.get('output') or item.get('arguments') or item.get('content')}")


@function_tool(needs_approval=True)
def update_page(uid: int, title: str, status: Literal["draft", "review", "published"]) -> str:
    """Change a page's title and status."""
    return f"Page {uid} is now {title!r}, {status}."


set_tracing_disabled(True)
model = ScriptedModel([
    [function_call("update_page", {"uid": 42, "status": "archived"}, call_id="call_1")],
    [function_call("update_page", {"uid": 42, "title": "Opening hours", "status": "review"}, call_id="call_2")],
    [assistant_message("Done.")]])
asyncio.run(review(model, update_page))
