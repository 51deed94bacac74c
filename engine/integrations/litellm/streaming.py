"""A streamed chat completion, gated: text deltas pass as they come until the first tool-call
delta; from there every chunk is held until the stream ends and the whole turn is judged. A
turn that fits is let through as it came; a refused one is corrected (each corrective round
streamed whole from the upstream and judged), and only the fitting round's tool-call chunks
follow the text already sent, or the no-fit text as the last text chunk."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from litellm.types.utils import ModelResponseStream

from turngate import Toolset
from turngate.formats import FormatError

from .options import GateOptions
from .replies import corrected_chunks, no_fit_chunks, released
from .request import ChatRequest
from .rounds import Outcome, corrected
from .turns import Round, chunks_round, has_tool_calls


async def gated_stream(chunks: AsyncIterator[ModelResponseStream], request: ChatRequest,
                       toolset: Toolset | FormatError, options: GateOptions) -> AsyncIterator[ModelResponseStream]:
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
    first = chunks_round(seen, toolset, telemetry=options.telemetry)
    held = seen[held_from:]
    if first.fits:
        for chunk in released(held, first.verdict):
            yield chunk
        return

    async def ask(messages: list[dict[str, Any]], number: int) -> Round:
        return chunks_round(await request.ask_streamed(messages, number), toolset, telemetry=options.telemetry)

    outcome: Outcome = await corrected(first, request.messages, ask, options)
    if outcome.fitting is not None:
        for chunk in corrected_chunks(outcome, seen[0]):
            yield chunk
        return
    for chunk in no_fit_chunks(outcome, seen[0], any(getattr(chunk, "usage", None) for chunk in held)):
        yield chunk
