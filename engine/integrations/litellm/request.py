"""The app's chat-completion request as the guardrail re-sends it: the same model group,
messages and parameters, through the proxy's own router, which asks the same upstream
without running the proxy's hooks (so the guardrail does not judge its own rounds twice)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import frozen
from litellm.types.utils import ModelResponse, ModelResponseStream

#: Keys of the request the proxy adds for itself: never re-sent as parameters.
PROXY_KEYS = frozenset(("model", "messages", "stream", "metadata", "litellm_metadata", "proxy_server_request",
                        "secret_fields", "litellm_call_id", "litellm_logging_obj", "shared_session",
                        "deployment", "guardrails", "guardrail_to_apply"))
PROXY_PREFIXES = ("litellm_", "user_api_key", "_")
#: The request's metadata kept on each corrective request, so LiteLLM's logging and spend
#: callbacks count the round against the same key, team, user and tags as the request.
KEPT_METADATA = ("headers", "requester_metadata", "tags", "requester_ip_address", "user_agent", "endpoint",
                 "spend_logs_metadata")
#: ...but not the request's budget reservation (nor the key object that carries it): the
#: cost callback of a round would settle the request's reservation as its own.
LEFT_METADATA = frozenset(("user_api_key_auth", "user_api_key_budget_reservation"))


@frozen
class ChatRequest:
    """`params`: every parameter the app sent (`tools`, `tool_choice`, `parallel_tool_calls`,
    sampling settings, `max_tokens`, `response_format`, a provider's own...), re-sent as they
    were with each corrective request."""

    model: str
    messages: tuple[dict[str, Any], ...]
    tools: object
    params: dict[str, Any]
    metadata: dict[str, Any]
    choices: int

    async def ask(self, messages: list[dict[str, Any]], round_number: int) -> ModelResponse:
        response = await _router().acompletion(model=self.model, messages=messages, **self._sent(round_number))
        if not isinstance(response, ModelResponse):
            raise TypeError(f"the router answered with {type(response).__name__}, not a chat completion")
        return response

    async def ask_streamed(self, messages: list[dict[str, Any]], round_number: int) -> tuple[ModelResponseStream, ...]:
        stream = await _router().acompletion(model=self.model, messages=messages, stream=True,
                                             **self._sent(round_number))
        return tuple([chunk async for chunk in stream])

    def _sent(self, round_number: int) -> dict[str, Any]:
        metadata = self.metadata | {"turngate_corrective_round": round_number}
        return self.params | {"metadata": metadata}


def chat_request(data: Mapping[str, Any]) -> ChatRequest | None:
    """The request the proxy was sent, or None when it offered no tools."""
    tools = data.get("tools")
    if not tools or not isinstance(data.get("model"), str):
        return None
    params = {key: value for key, value in data.items()
              if key not in PROXY_KEYS and not key.startswith(PROXY_PREFIXES)}
    metadata = data.get("metadata")
    kept = {key: value for key, value in metadata.items() if key not in LEFT_METADATA and (
        key in KEPT_METADATA or key.startswith("user_api_key"))} if isinstance(metadata, Mapping) else {}
    choices = data.get("n")
    return ChatRequest(data["model"], tuple(data.get("messages") or ()), tools, params, kept,
                       choices if type(choices) is int and choices > 1 else 1)


def _router() -> Any:
    # Read when a round is asked for: the proxy sets its router once the config is loaded.
    from litellm.proxy import proxy_server

    if proxy_server.llm_router is None:
        raise RuntimeError("the proxy has no router (no model_list in its config)")
    return proxy_server.llm_router
