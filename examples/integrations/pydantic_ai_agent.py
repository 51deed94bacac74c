"""A pydantic-ai agent with turngate's TurnGate capability: the model's first turn has a bad
call, so nothing of it runs and no approval is deferred; the next turn's approval is. Offline:
a FunctionModel plays the model. Needs `pip install 'turngate[pydantic-ai]'`."""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Literal

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, Tool
from pydantic_ai.messages import ModelResponse, ModelResponsePart, TextPart, ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import FunctionModel

from turngate import dump_steps
from turngate.integrations.pydantic_ai import TurnGate


def review(model: Model, update_page: Callable[..., str]) -> None:
    gate = TurnGate(record=lambda step: dump_steps([step], sys.stdout))
    agent = Agent(model, tools=[Tool(update_page, requires_approval=True)], output_type=[str, DeferredToolRequests],
                  capabilities=[gate])
    result = agent.run_sync("Put page 42 up for review.")
    assert isinstance(result.output, DeferredToolRequests)  # the model's second turn waits for approval
    print("Approval asked for:", [call.args for call in result.output.approvals])
    approved = DeferredToolResults(approvals={call.tool_call_id: True for call in result.output.approvals})
    result = agent.run_sync(message_history=result.all_messages(), deferred_tool_results=approved)
    for message in result.all_messages():
        for part in message.parts:
            print(f"{part.part_kind:>12}: {getattr(part, 'content', None) or getattr(part, 'args', '')}")


def update_page(uid: int, title: str, status: Literal["draft", "review", "published"]) -> str:
    """Change a page's title and status."""
    return f"Page {uid} is now {title!r}, {status}."


turns: Iterator[ModelResponsePart] = iter([
    ToolCallPart("update_page", '{"uid": 42, "status": "archived"}', tool_call_id="call_1"),
    ToolCallPart("update_page", '{"uid": 42, "title": "Opening hours", "status": "review"}', tool_call_id="call_2"),
    TextPart("Done.")])
review(FunctionModel(lambda messages, info: ModelResponse(parts=[next(turns)])), update_page)
