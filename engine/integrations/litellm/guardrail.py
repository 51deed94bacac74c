"""The guardrail LiteLLM's proxy loads from its `config.yaml`: it judges each chat completion's
tool calls against the request's `tools`, answers a refused turn to the model through the
proxy's router, and returns only a turn that fits (or, failing closed, text)."""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, ClassVar

from litellm.integrations.custom_guardrail import CustomGuardrail
from litellm.types.guardrails import LitellmParams
from litellm.types.utils import ModelResponse, ModelResponseStream

from turngate import Toolset
from turngate.formats import FormatError

from .choices import gated_choices, gated_choices_stream
from .options import OPTION_NAMES, GateOptions, OptionError, ToolsetCache, gate_options
from .replies import fitting_response, no_fit_response
from .request import ChatRequest, chat_request
from .rounds import Outcome, corrected
from .streaming import gated_stream
from .turns import Round, response_round, turn_number

#: The options `config.yaml` can give (`record` is a function: Python only).
CONFIG_OPTIONS = tuple(name for name in OPTION_NAMES if name != "record")


class TurnGuardrail(CustomGuardrail):
    """In `config.yaml`, under `guardrails:`, with `guardrail:
    turngate.integrations.litellm.TurnGuardrail`, `mode: post_call` and `default_on: true`;
    its own options (`table`, `casts`, `rounds`, `privacy`, `steps`, `telemetry`) beside
    LiteLLM's. In Python, `record=` is also given each run step of a refused turn, and
    `telemetry=` may be a host's `Telemetry`."""

    toolsets: ToolsetCache

    # The two hooks below are the whole guardrail. It has no `apply_guardrail`, LiteLLM's
    # unified interface, which would run in their place and can neither drop calls nor turn
    # a response into text; this keeps LiteLLM on these hooks should a subclass add one.
    use_native_lifecycle_hooks: ClassVar[bool] = True

    def __init__(self, **given: Any):
        options = {name: given.pop(name) for name in OPTION_NAMES if name in given}
        _refuse_unknown(given)
        _require_post_call(given.get("event_hook", "post_call"))
        self.options: GateOptions = gate_options(options)
        self.toolsets = ToolsetCache(self.options.table, self.options.casts)
        super().__init__(**given)

    async def async_post_call_success_hook(self, data: dict[str, Any], user_api_key_dict: Any,
                                           response: Any) -> ModelResponse | None:
        request = chat_request(data)
        if request is None or not isinstance(response, ModelResponse) or not response.choices:
            return None  # no tools offered, or not a chat completion (see docs/gateway.md)
        toolset = self.toolsets.toolset(request.tools)
        if len(response.choices) > 1:
            return gated_choices(response, toolset, self.options, turn_number(request.messages))
        first = response_round(response, toolset, self.options.telemetry)
        if first.verdict is None and first.unreadable is None:
            return None  # no tool call
        outcome = await self._outcome(first, request, toolset)
        if outcome.fitting is None:
            return no_fit_response(response, outcome)
        return fitting_response(outcome)

    async def _outcome(self, first: Round, request: ChatRequest, toolset: Toolset | FormatError) -> Outcome:
        if first.fits:
            return Outcome(first, first.tokens, 0)

        async def ask(messages: list[dict[str, Any]], number: int) -> Round:
            return response_round(await request.ask(messages, number), toolset, self.options.telemetry)

        return await corrected(first, request.messages, ask, self.options)

    async def async_post_call_streaming_iterator_hook(
            self, user_api_key_dict: Any, response: AsyncIterator[ModelResponseStream],
            request_data: dict[str, Any]) -> AsyncGenerator[ModelResponseStream, None]:
        # Defined in this class's own body: LiteLLM looks for it there only, and streams
        # past an inherited one without calling it.
        first = await anext(aiter(response), None)
        if first is None:
            return
        stream = _then(first, response)
        request = chat_request(request_data)
        # LiteLLM also streams /v1/messages and /v1/responses events through this hook.
        if request is not None and isinstance(first, ModelResponseStream):
            toolset = self.toolsets.toolset(request.tools)
            stream = (gated_choices_stream(stream, toolset, self.options, turn_number(request.messages))
                      if request.choices > 1
                      else gated_stream(stream, request, toolset, self.options))
        async for chunk in stream:
            yield chunk


async def _then(first: ModelResponseStream, rest: AsyncIterator[ModelResponseStream]) -> AsyncIterator[ModelResponseStream]:
    yield first
    async for chunk in rest:
        yield chunk


def _refuse_unknown(given: dict[str, Any]) -> None:
    """A key neither LiteLLM nor the guardrail knows is a mistake (`round: 3`), not a setting
    to ignore."""
    known = set(LitellmParams.model_fields) | set(inspect.signature(CustomGuardrail.__init__).parameters)
    unknown = sorted(key for key in given if key not in known)
    if unknown:
        raise OptionError(f"turngate guardrail: {', '.join(map(repr, unknown))} is not an option of LiteLLM's "
                          f"or the guardrail's (its own are {', '.join(CONFIG_OPTIONS)}).")


def _require_post_call(event_hook: object) -> None:
    if event_hook != "post_call" and not (isinstance(event_hook, list) and "post_call" in event_hook):
        raise OptionError(f"turngate guardrail: mode is post_call (it judges the model's answer), not {event_hook!r}.")
