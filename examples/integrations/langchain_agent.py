"""A LangChain agent gated by turngate: the model's bad first turn runs nothing and asks no
approval; its next turn is put to a person as usual. Offline: a scripted model. Needs
`pip install 'turngate[langchain]'`."""
from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, Literal

from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from turngate import dump_steps
from turngate.integrations.langchain import gated_agent


def review(model: BaseChatModel, update_page: BaseTool) -> None:
    agent = gated_agent(model, [update_page], middleware=[HumanInTheLoopMiddleware(interrupt_on={"update_page": True})],
                        checkpointer=InMemorySaver(), record=lambda step: dump_steps([step], sys.stdout))
    config = {"configurable": {"thread_id": "1"}}
    agent.invoke({"messages": [{"role": "user", "content": "Put page 42 up for review."}]}, config)
    print("Approval asked for:", agent.get_state(config).interrupts[0].value["action_requests"][0]["args"])
    agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
    for message in agent.get_state(config).values["messages"]:
        print(f"{message.type:>6}: {message.content or message.tool_calls}")


@tool
def update_page(uid: int, title: str, status: Literal["draft", "review", "published"]) -> str:
    """Change a page's title and status."""
    return f"Page {uid} is now {title!r}, {status}."


class ScriptedModel(GenericFakeChatModel):
    def bind_tools(self, tools: Sequence[Any], **options: Any) -> ScriptedModel:  # the script's calls name the tools already
        return self


def turn(call_id: str, **args: object) -> AIMessage:
    return AIMessage("", tool_calls=[{"id": call_id, "name": "update_page", "args": args}])


review(ScriptedModel(messages=iter([turn("call_1", uid=42, status="archived"),
                                    turn("call_2", uid=42, title="Opening hours", status="review"),
                                    AIMessage("Done.")])), update_page)
