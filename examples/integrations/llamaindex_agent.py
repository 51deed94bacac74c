"""A LlamaIndex FunctionAgent gated by turngate: the model's first turn has a bad call, so
nothing of it runs and no approval is asked; the next turn's approval is. Offline:
llama-index-core's MockFunctionCallingLLM plays the model. Needs `pip install 'turngate[llamaindex]'`."""
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Literal

from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.workflow import Context, HumanResponseEvent, InputRequiredEvent

#: A tool's function: awaited with the workflow's context and the call's arguments.
AsyncFn = Callable[..., Awaitable[str]]

from turngate import dump_steps
from turngate.integrations.llamaindex import GatedFunctionAgent, TurnGate


async def review(llm: FunctionCallingLLM, update_page: AsyncFn) -> None:
    gate = TurnGate(record=lambda step: dump_steps([step], sys.stdout))
    agent = GatedFunctionAgent(tools=[update_page], llm=llm, gate=gate)
    handler = agent.run(user_msg="Put page 42 up for review.")
    async for event in handler.stream_events():
        if isinstance(event, ApprovalAsked):
            print("Approval asked for:", event.arguments)
            handler.ctx.send_event(Approval(response="yes"))
    result = await handler
    memory = await handler.ctx.store.get("memory")
    for message in await memory.aget():
        print(f"{message.role.value:>12}: {message.content or [block.tool_kwargs for block in message.blocks]}")
    print("Result:", result)


class ApprovalAsked(InputRequiredEvent):
    """A person is asked to approve a call (LlamaIndex's input event, its fields declared)."""

    prefix: str
    arguments: dict[str, object]


class Approval(HumanResponseEvent):
    response: str


async def update_page(ctx: Context, uid: int, title: str, status: Literal["draft", "review", "published"]) -> str:
    """Change a page's title and status, once a person approves."""
    asked = ApprovalAsked(prefix="Approve?", arguments={"uid": uid, "title": title, "status": status})
    await ctx.wait_for_event(Approval, waiter_event=asked, waiter_id=f"update_page {uid}")
    return f"Page {uid} is now {title!r}, {status}."


turns = iter([
    ToolCallBlock(tool_call_id="call_1", tool_name="update_page", tool_kwargs='{"uid": 42, "status": "archived"}'),
    ToolCallBlock(tool_call_id="call_2", tool_name="update_page",
                  tool_kwargs='{"uid": 42, "title": "Opening hours", "status": "review"}')])


def model(messages: list[ChatMessage], **options: object) -> ChatMessage:
    turn = next(turns, None)
    return ChatMessage(role="assistant", blocks=[turn]) if turn else ChatMessage(role="assistant", content="Done.")


asyncio.run(review(MockFunctionCallingLLM(response_generator=model), update_page))
