"""Scripted models that play the scenario's turns offline (LangChain, pydantic-ai; the OpenAI
Agents SDK brings its own), and a runner for LangChain agents and LangGraph graphs that answers
every interrupt. The scenario itself, with no framework imported, is `scenario`."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage, message_chunk_to_message
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.types import Command
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import DeltaToolCall, FunctionModel

from scenario import *  # noqa: F403 (the framework tests read the scenario through this module)
from scenario import USER_TEXT, raw

# Scripted models -------------------------------------------------------------------------------

class ScriptedChatModel(BaseChatModel):
    """A LangChain chat model that plays a script of turns (each a text, or a list of (call id,
    tool name, arguments)), streamed or not, and keeps every input it was sent. Calls leave it
    as tool-call chunks, their JSON in two pieces, so LangChain itself decodes it (text it cannot
    decode becomes an `invalid_tool_call`, as with a real provider)."""

    script: list
    inputs: list = []
    streamed: list = []  # True for each call streamed token by token

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **options: Any):
        return self

    def _chunks(self, messages: list[BaseMessage]) -> list[AIMessageChunk]:
        self.inputs.append(list(messages))
        turn = self.script[len(self.inputs) - 1]
        if isinstance(turn, str):
            words = turn.split(" ")
            return [AIMessageChunk(content=word + " ") for word in words[:-1]] + [AIMessageChunk(content=words[-1])]
        chunks = []
        for index, (call_id, name, arguments) in enumerate(turn):
            text = raw(arguments)
            half = len(text) // 2
            chunks.append(AIMessageChunk(content="", tool_call_chunks=[
                {"id": call_id, "name": name, "args": text[:half], "index": index}]))
            chunks.append(AIMessageChunk(content="", tool_call_chunks=[
                {"id": None, "name": None, "args": text[half:], "index": index}]))
        return chunks

    def _generate(self, messages, stop=None, run_manager=None, **options) -> ChatResult:
        first, *rest = self._chunks(messages)
        return ChatResult(generations=[ChatGeneration(message=message_chunk_to_message(sum(rest, first)))])

    def _stream(self, messages, stop=None, run_manager=None, **options):
        self.streamed.append(True)
        for chunk in self._chunks(messages):
            yield ChatGenerationChunk(message=chunk)


class ScriptedFunctionModel(FunctionModel):
    """A pydantic-ai model that plays a script of turns, streamed or not, and keeps every input
    it was sent. Arguments go out as raw JSON text, as a provider sends them."""

    def __init__(self, script: list):
        self.script, self.inputs, self.streamed = script, [], []
        super().__init__(self.respond, stream_function=self.stream)

    def next_turn(self, messages, streamed: bool):
        self.inputs.append(list(messages))
        self.streamed.append(streamed)
        return self.script[len(self.inputs) - 1]

    def respond(self, messages, info) -> ModelResponse:
        turn = self.next_turn(messages, False)
        if isinstance(turn, str):
            return ModelResponse(parts=[TextPart(turn)])
        return ModelResponse(parts=[ToolCallPart(name, raw(arguments), tool_call_id=call_id)
                                    for call_id, name, arguments in turn])

    async def stream(self, messages, info):
        turn = self.next_turn(messages, True)
        if isinstance(turn, str):
            for word in turn.split(" "):
                yield word
            return
        for index, (call_id, name, arguments) in enumerate(turn):
            text = raw(arguments)
            half = len(text) // 2
            yield {index: DeltaToolCall(name=name, json_args=text[:half], tool_call_id=call_id)}
            yield {index: DeltaToolCall(json_args=text[half:])}


# Running a LangChain agent or a LangGraph graph ------------------------------------------------

GRAPH_MODES = ["invoke", "stream", "astream"]


@dataclass
class Outcome:
    messages: list
    approvals: list = field(default_factory=list)  # the interrupts' values, in order

    def transcript(self) -> list[tuple]:
        """The messages without their random ids."""
        return [(type(m).__name__, m.content, [(c["id"], c["name"], c["args"]) for c in getattr(m, "tool_calls", [])],
                 getattr(m, "tool_call_id", None), getattr(m, "status", None)) for m in self.messages]

    def answers(self, after_turn: int = 1) -> dict:
        """The tool messages after the model's `after_turn`-th message, by call id: (text, status)."""
        seen, found = 0, {}
        for message in self.messages:
            if type(message).__name__ == "AIMessage":
                seen += 1
            elif seen == after_turn and type(message).__name__ == "ToolMessage":
                found[message.tool_call_id] = (message.content, message.status)
        return found


def run_graph(graph, mode: str, resume_with=lambda interrupt: {"decisions": [{"type": "approve"}]}) -> Outcome:
    """Runs to the end, answering each interrupt with `resume_with(interrupt)`. `mode`: "invoke",
    "stream" (the model's tokens streamed) or "astream"."""
    config = {"configurable": {"thread_id": "thread"}}
    given = {"messages": [{"role": "user", "content": USER_TEXT}]}
    outcome = Outcome([])
    while True:
        if mode == "invoke":
            graph.invoke(given, config)
        elif mode == "stream":
            for _ in graph.stream(given, config, stream_mode="messages"):
                pass
        else:
            asyncio.run(consume(graph.astream(given, config, stream_mode="messages")))
        interrupts = graph.get_state(config).interrupts
        if not interrupts:
            break
        (interrupt,) = interrupts
        outcome.approvals.append(interrupt.value)
        given = Command(resume=resume_with(interrupt))
    outcome.messages = graph.get_state(config).values["messages"]
    return outcome


async def consume(stream) -> None:
    async for _ in stream:
        pass


def assert_clean_runs_alike(with_gate, without_gate, gated: tuple, plain: tuple) -> None:
    """A clean run is the same with the gate as without: its transcript, the approvals asked
    (some), the tools run (some) and what the model was sent. `gated` and `plain` are each
    run's (model, recorder)."""
    (gated_model, gated_recorder), (plain_model, plain_recorder) = gated, plain
    assert with_gate.transcript() == without_gate.transcript()
    assert with_gate.approvals == without_gate.approvals != []
    assert gated_recorder.runs == plain_recorder.runs != []
    assert [[m.content for m in sent] for sent in gated_model.inputs] == \
           [[m.content for m in sent] for sent in plain_model.inputs]
