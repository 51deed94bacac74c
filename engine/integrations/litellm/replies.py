"""What the app is sent: a fitting round as the upstream answered it (with the exact casts
applied where the guardrail casts, and the tokens of every round in its usage), or, when no
turn fits, a response with no tool call whose text says why. Every object the upstream sent
is copied before it is changed: LiteLLM's logging keeps them, and logs each round's own."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from litellm.types.utils import (
    Choices,
    Delta,
    Message,
    ModelResponse,
    ModelResponseStream,
    StreamingChoices,
    Usage,
)

from turngate import TurnVerdict

from .rounds import Outcome
from .turns import Tokens, has_tool_calls


def usage_of(tokens: Tokens) -> Usage:
    return Usage(prompt_tokens=tokens.prompt, completion_tokens=tokens.completion, total_tokens=tokens.total)


def cast_texts(verdict: TurnVerdict | None) -> dict[int, str]:
    """The arguments text of each call (by its place in the turn) that a cast changed."""
    if verdict is None or not verdict.casts:
        return {}
    return {place: json.dumps(cast.arguments, ensure_ascii=False)
            for place, cast in enumerate(verdict.casts) if cast.changed}


def fitting_response(outcome: Outcome) -> ModelResponse | None:
    """The fitting round's response for the app, or None where the first round's goes out
    unchanged."""
    fitting = outcome.fitting
    assert fitting is not None and isinstance(fitting.payload, ModelResponse)
    casts = cast_texts(fitting.verdict)
    if outcome.rounds == 0 and not casts:
        return None
    response = fitting.payload.model_copy(deep=True)
    calls = response.choices[0].message.tool_calls or []
    for place, text in casts.items():
        function = getattr(calls[place], "function", None)  # a cast turn has function calls only
        if function is not None:
            function.arguments = text
    if outcome.rounds:
        response.usage = usage_of(outcome.tokens)  # type: ignore[attr-defined]
    return response


def no_fit_response(base: ModelResponse, outcome: Outcome) -> ModelResponse:
    """A response with the text of `outcome` and no tool call, in the place of `base`."""
    response = ModelResponse(id=base.id, created=base.created, model=base.model,
                             choices=[Choices(index=0, finish_reason="stop",
                                              message=Message(role="assistant", content=outcome.text))],
                             usage=usage_of(outcome.tokens))
    response._hidden_params = dict(base._hidden_params)
    return response


def released(chunks: Sequence[ModelResponseStream], verdict: TurnVerdict | None) -> Iterator[ModelResponseStream]:
    """A fitting turn's held chunks, as they came, but for the calls a cast changed: each
    sends its cast arguments whole in its first delta (and nothing in the others)."""
    casts = cast_texts(verdict)
    if not casts:
        yield from chunks
        return
    places: dict[int, int] = {}  # a call's delta index -> its place in the turn
    for chunk in chunks:
        if not has_tool_calls(chunk):
            yield chunk
            continue
        chunk = chunk.model_copy(deep=True)
        for delta in chunk.choices[0].delta.tool_calls or ():
            first = delta.index not in places
            place = places.setdefault(delta.index, len(places))
            function = getattr(delta, "function", None)
            if place in casts and function is not None:
                function.arguments = casts[place] if first else ""
        yield chunk


def corrected_chunks(outcome: Outcome, first: ModelResponseStream) -> Iterator[ModelResponseStream]:
    """The fitting corrective round's chunks, under the first round's id: its tool-call
    deltas (its text is left out, the first round's having been sent), its finish and usage."""
    fitting = outcome.fitting
    assert fitting is not None and isinstance(fitting.payload, tuple)
    with_calls = fitting.verdict is not None
    for chunk in released(fitting.payload, fitting.verdict):
        chunk = chunk.model_copy(deep=True)
        chunk.id = first.id
        if with_calls:
            for choice in chunk.choices:
                choice.delta.content = None
                choice.delta.role = None
            if not (has_tool_calls(chunk) or _finishes(chunk) or getattr(chunk, "usage", None)):
                continue
        if getattr(chunk, "usage", None):
            chunk.usage = usage_of(outcome.tokens)
        yield chunk


def no_fit_chunks(outcome: Outcome, first: ModelResponseStream, with_usage: bool) -> Iterator[ModelResponseStream]:
    """The text of `outcome` as the last text chunk, a finish chunk, and the usage chunk
    where the stream had one."""
    def chunk(delta: Delta, finish: str | None = None, **more: Any) -> ModelResponseStream:
        return ModelResponseStream(id=first.id, created=first.created, model=first.model,
                                   choices=[StreamingChoices(index=0, delta=delta, finish_reason=finish)], **more)

    yield chunk(Delta(content=outcome.text))
    yield chunk(Delta(), "stop")
    if with_usage:
        yield chunk(Delta(), usage=usage_of(outcome.tokens))


def _finishes(chunk: ModelResponseStream) -> bool:
    return any(choice.finish_reason for choice in chunk.choices)
