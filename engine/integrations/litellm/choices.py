"""Requests with `n > 1`: every choice is judged as a turn of its own, and a refused choice
fails closed (its calls replaced by the no-fit text) with no corrective round, since a
corrective request would have to be one conversation per refused choice. Fitting choices
are returned as they came, not cast."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from litellm.types.utils import Choices, Delta, Message, ModelResponse, ModelResponseStream, StreamingChoices

from turngate import Toolset, refused_steps
from turngate.formats import FormatError

from .options import GateOptions, keep_steps
from .rounds import Outcome
from .turns import Round, Tokens, chunks_round, has_tool_calls, judged, response_message

WHY = "with n > 1 no corrective round is asked for"


def gated_choices(response: ModelResponse, toolset: Toolset | FormatError, options: GateOptions,
                  turn_at: int) -> ModelResponse | None:
    rounds = [judged(response_message(response, place), toolset, Tokens(), response, options.telemetry)
              for place in range(len(response.choices))]
    if all(turn.fits for turn in rounds):
        return None
    answered = response.model_copy(deep=True)
    for place, turn in enumerate(rounds):
        if not turn.fits:
            _record(turn, options, turn_at)
            answered.choices[place] = Choices(index=answered.choices[place].index, finish_reason="stop",
                                              message=Message(role="assistant", content=_text(turn)))
    return answered


async def gated_choices_stream(chunks: AsyncIterator[ModelResponseStream], toolset: Toolset | FormatError,
                               options: GateOptions, turn_at: int) -> AsyncIterator[ModelResponseStream]:
    seen: list[ModelResponseStream] = []
    held_from: int | None = None
    async for chunk in chunks:
        seen.append(chunk)
        if held_from is None and has_tool_calls(chunk):
            held_from = len(seen) - 1
        if held_from is None:
            yield chunk
    if held_from is None:
        return
    indexes = sorted({choice.index for chunk in seen for choice in chunk.choices})
    refused = {index: turn for index in indexes
               if not (turn := chunks_round(seen, toolset, index, options.telemetry)).fits}
    for chunk in _without(seen[held_from:], set(refused)):
        yield chunk
    for index, turn in refused.items():
        _record(turn, options, turn_at)
        for delta, finish in ((Delta(content=_text(turn)), None), (Delta(), "stop")):
            yield ModelResponseStream(id=seen[0].id, created=seen[0].created, model=seen[0].model,
                                      choices=[StreamingChoices(index=index, delta=delta, finish_reason=finish)])


def _without(chunks: Sequence[ModelResponseStream], refused: set[int]) -> list[ModelResponseStream]:
    kept: list[ModelResponseStream] = []
    for chunk in chunks:
        if not any(choice.index in refused for choice in chunk.choices):
            kept.append(chunk)
            continue
        chunk = chunk.model_copy(deep=True)
        chunk.choices = [choice for choice in chunk.choices if choice.index not in refused]
        if chunk.choices or getattr(chunk, "usage", None):
            kept.append(chunk)
    return kept


def _text(turn: Round) -> str:
    answers = turn.verdict.answers if turn.verdict is not None else ()
    return Outcome(None, turn.tokens, 0, turn.unreadable or WHY, answers).text


def _record(turn: Round, options: GateOptions, turn_at: int) -> None:
    if turn.verdict is not None and (options.record is not None or options.steps is not None):
        keep_steps(options, refused_steps(turn.verdict, turn_at, options.privacy))
