"""One upstream answer (a round) as the guardrail judges it: the assistant message as plain
data, the verdict on its tool calls, its tokens, and what the app would be sent of it (the
`ModelResponse`, or the stream's chunks)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attrs import frozen
from litellm.types.utils import ModelResponse, ModelResponseStream

from turngate import Telemetry, Toolset, TurnVerdict, check_turn
from turngate.formats import FormatError, openai_chat

#: What an assistant message keeps when it is sent back to the model: a provider's reasoning
#: must go back with its tool calls (Anthropic refuses a thinking turn without its blocks).
MESSAGE_KEYS = ("role", "content", "tool_calls", "reasoning_content", "thinking_blocks")


@frozen
class Tokens:
    prompt: int = 0
    completion: int = 0
    total: int = 0

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(self.prompt + other.prompt, self.completion + other.completion, self.total + other.total)


@frozen
class Round:
    """`verdict` is None for a message with no tool call; `unreadable` says why a turn could
    not be read (a custom tool call, a call with no name), and is then judged as refused."""

    message: dict[str, Any]
    verdict: TurnVerdict | None
    tokens: Tokens
    payload: ModelResponse | tuple[ModelResponseStream, ...]
    unreadable: str | None = None

    @property
    def fits(self) -> bool:
        return self.unreadable is None and (self.verdict is None or self.verdict.ok)


def turn_number(messages: Sequence[dict[str, Any]]) -> int:
    """The number of the model's turn that answers `messages`, as run steps count turns: one
    more than the assistant turns they hold."""
    return 1 + sum(1 for message in messages if message.get("role") == "assistant")


def tokens_of(usage: object) -> Tokens:
    if usage is None:
        return Tokens()
    return Tokens(*(_count(getattr(usage, name, 0)) for name in ("prompt_tokens", "completion_tokens", "total_tokens")))


def _count(value: object) -> int:
    return value if type(value) is int else 0


def judged(message: dict[str, Any], toolset: Toolset | FormatError, tokens: Tokens,
           payload: ModelResponse | tuple[ModelResponseStream, ...], telemetry: Telemetry | None = None) -> Round:
    """The round of `message`, its whole turn checked against `toolset` (or the reason the
    request's tools could not be read), and reported to `telemetry` as a turn."""
    if not message.get("tool_calls"):
        return Round(message, None, tokens, payload)
    if isinstance(toolset, FormatError):
        return Round(message, None, tokens, payload, f"the request's tools could not be read: {toolset}")
    try:
        calls = openai_chat.calls(message)
    except FormatError as error:
        return Round(message, None, tokens, payload, f"the model's turn could not be read: {error}")
    return Round(message, check_turn(calls, toolset, telemetry=telemetry), tokens, payload)


def response_message(response: ModelResponse, choice: int = 0) -> dict[str, Any]:
    """The assistant message of a response's choice as plain data, tool calls as sent."""
    message = response.choices[choice].message
    data = message.model_dump(exclude_none=True)
    return {key: data[key] for key in MESSAGE_KEYS if key in data} | {"role": "assistant"}


def response_round(response: ModelResponse, toolset: Toolset | FormatError,
                   telemetry: Telemetry | None = None) -> Round:
    return judged(response_message(response), toolset, tokens_of(getattr(response, "usage", None)), response,
                  telemetry)


def chunks_round(chunks: Sequence[ModelResponseStream], toolset: Toolset | FormatError, index: int = 0,
                 telemetry: Telemetry | None = None) -> Round:
    """The round of choice `index` of a whole stream: text and each tool call (by its
    index) put together from the deltas, as an OpenAI client puts them together."""
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    tokens = Tokens()
    for chunk in chunks:
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            tokens = tokens_of(usage)
        for choice in chunk.choices:
            if choice.index != index:
                continue
            delta = choice.delta
            if delta.content:
                text.append(delta.content)
            for call in delta.tool_calls or ():
                _add_delta(calls.setdefault(call.index, {"type": "function", "function": {"name": "", "arguments": ""}}),
                           call)
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    return judged(message, toolset, tokens, tuple(chunks), telemetry)


def _add_delta(call: dict[str, Any], delta: Any) -> None:
    if delta.id:
        call["id"] = delta.id
    if delta.type and delta.type != "function":  # a custom tool's call: the turn cannot be read
        call["type"] = delta.type
    function = getattr(delta, "function", None)
    if function is not None:
        if function.name:
            call["function"]["name"] += function.name
        if function.arguments:
            call["function"]["arguments"] += function.arguments


def has_tool_calls(chunk: ModelResponseStream) -> bool:
    return any(choice.delta.tool_calls for choice in chunk.choices)
