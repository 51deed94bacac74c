"""What the agent-framework tests share: the scenario (two tools, one needs approval; the model's
turns; the texts turngate answers them with), scripted models that play the model's turns
offline (LangChain, pydantic-ai; the OpenAI Agents SDK brings its own), and a runner for
LangChain agents and LangGraph graphs that answers every interrupt."""

from __future__ import annotations

import asyncio
import io
import json
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage, message_chunk_to_message
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.types import Command
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import DeltaToolCall, FunctionModel

from turngate import Call, RunStep, check_turn, dump_steps, load_steps

# The scenario --------------------------------------------------------------------------------

GET_PAGE_DOC = "Read a page."
UPDATE_DOC = "Change a page's title and status."
Status = Literal["draft", "review", "published"]
USER_TEXT = "Retitle page 42 and put it up for review."

# A turn with a bad call: "title" is missing and "status" is outside its enum.
REFUSED_TURN = [
    ("call_1", "get_page", {"uid": 42, "language": "de"}),
    ("call_2", "update_page_metadata", {"uid": 42, "status": "archived"}),
]
# The model's next turn, written after it read the answers: it may run.
CLEAN_TURN = [
    ("call_3", "get_page", {"uid": 42, "language": "de"}),
    ("call_4", "update_page_metadata", {"uid": 42, "title": "Opening hours", "status": "review"}),
]
# Raw arguments that are not JSON, a tool that was never offered, and a call that fits.
BROKEN_TURN = [
    ("call_5", "get_page", '{"uid": 42,, "language": "de"}'),
    ("call_6", "get_pages", {"uid": 42}),
    ("call_7", "get_page", {"uid": 7, "language": "en"}),
]
FINAL_TEXT = "Done."

NOT_RUN_GET_PAGE = (
    'Not run: this call of tool "get_page" matched its schema, but another call of the same turn '
    "did not, so nothing was run; send this call again, unchanged, together with the corrected one.")
REFUSED_UPDATE = (
    'Refused: the arguments do not match the schema of tool "update_page_metadata", so nothing was run.\n'
    '- "title" is missing; it is required and must be text.\n'
    '- "status" must be one of "draft", "review", "published", but "archived" was sent.')

#: The two tools' schemas, written out: what turngate itself is given in `turngate_answers`.
SCHEMAS = {
    "get_page": {"type": "object", "required": ["uid", "language"],
                 "properties": {"uid": {"type": "integer"}, "language": {"type": "string"}}},
    "update_page_metadata": {"type": "object", "required": ["uid", "title", "status"], "properties": {
        "uid": {"type": "integer"}, "title": {"type": "string"},
        "status": {"type": "string", "enum": ["draft", "review", "published"]}}},
}
#: The steps recorded at metadata-only for REFUSED_TURN then BROKEN_TURN: (tool, status, refusal, codes).
REFUSED_STEPS = [("get_page", "not-run", "turn", ()),
                 ("update_page_metadata", "refused", "arguments", ("missing", "enum"))]
BROKEN_STEPS = [("get_page", "refused", "arguments", ("invalid-json",)),
                (None, "refused", "arguments", ("unknown-tool",)),  # the model's name is not kept
                ("get_page", "not-run", "turn", ())]


def turngate_answers(turn) -> dict:
    """The answers turngate's own turn gate gives `turn`, by call id."""
    verdict = check_turn([Call(*call) for call in turn], SCHEMAS)
    return {answer.call_id: answer.text for answer in verdict.answers}


class Recorder:
    """The tools' side effects: every run of a tool."""

    def __init__(self):
        self.log: list[tuple[str, dict]] = []

    @property
    def runs(self) -> list[tuple[str, dict]]:
        """The runs sorted: frameworks run a turn's calls at once, in no fixed order."""
        return sorted(self.log, key=repr)

    def get_page(self, uid: int, language: str) -> str:
        self.log.append(("get_page", {"uid": uid, "language": language}))
        return f"Page {uid} ({language}): Opening hours"

    def update_page_metadata(self, uid: int, title: str, status: Status) -> str:
        self.log.append(("update_page_metadata", {"uid": uid, "title": title, "status": status}))
        return f"Page {uid} updated: {title}, {status}"


def raw(arguments) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


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


def assert_steps_of_the_refused_and_the_broken_turn(steps: list) -> None:
    """The run steps of REFUSED_TURN then BROKEN_TURN, at metadata-only, and read back as
    they were written."""
    assert steps == [RunStep(turn, index, tool, status, refusal, codes, privacy="metadata-only")
                     for turn, found in ((1, REFUSED_STEPS), (2, BROKEN_STEPS))
                     for index, (tool, status, refusal, codes) in enumerate(found, 1)]
    written = io.StringIO()
    dump_steps(steps, written)
    assert load_steps(written.getvalue().splitlines()) == (steps, [])
