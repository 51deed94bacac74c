"""A LangGraph graph built by hand, with turngate's gate node between the model and the tools:
the bad turn goes back to the model with its answer, and the next turn runs. Offline: a
scripted model. Needs `pip install 'turngate[langgraph]'`."""
from __future__ import annotations

import sys
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool, tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode

from turngate import dump_steps
from turngate.integrations.langgraph import turn_gate_node


def gated_graph(model: BaseChatModel, update_page: BaseTool) -> CompiledStateGraph[Any, Any, Any, Any]:
    graph = StateGraph(MessagesState)
    graph.add_node("model", lambda state: {"messages": [model.invoke(state["messages"])]})
    graph.add_node("gate", turn_gate_node([update_page], record=lambda step: dump_steps([step], sys.stdout)),
                   destinations=("tools", "model", END))
    graph.add_node("tools", ToolNode([update_page]))
    graph.add_edge(START, "model")
    graph.add_edge("model", "gate")
    graph.add_edge("tools", "model")
    return graph.compile()


@tool
def update_page(uid: int, title: str, status: Literal["draft", "review", "published"]) -> str:
    """Change a page's title and status."""
    return f"Page {uid} is now {title!r}, {status}."


def turn(call_id: str, **args: object) -> AIMessage:
    return AIMessage("", tool_calls=[{"id": call_id, "name": "update_page", "args": args}])


model = GenericFakeChatModel(messages=iter([turn("call_1", uid=42, status="archived"),
                                            turn("call_2", uid=42, title="Opening hours", status="review"),
                                            AIMessage("Done.")]))
result = gated_graph(model, update_page).invoke({"messages": [{"role": "user", "content": "Put page 42 up for review."}]})
for message in result["messages"]:
    print(f"{message.type:>6}: {message.content or message.tool_calls}")
