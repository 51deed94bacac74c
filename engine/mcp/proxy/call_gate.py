"""The gate of a `tools/call`: the call's arguments checked against the input schema of the
list the session judges by, before the server sees the call.

A call that fits goes to the server as the client sent it (cast, with `--casts`, where it
fits only after an exact cast); a call that does not is answered here with a tool error
result carrying the Refused text, as a result the model reads, not a protocol error. A call
the gate cannot judge (no current list, a tool whose schema it does not have) goes to the
server as it came, as ADR 246 skips what it cannot judge; its run step (and, with `--otel`,
its telemetry) says it was not judged. A call whose id MCP does not allow (null, an object, a
fraction) is one the SDKs read as a notification: judged as one, and never answered.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, NamedTuple

from .messages import Message, allowed_id, error_response, refusal_response, with_arguments
from .session import Session
from .steps_log import StepLog

#: The id `mcp_calls.calls` gives a call sent without one (the first of its turn).
NO_ID = "call_1"


class Ruling(NamedTuple):
    """What becomes of one message from the client: what goes to the server (None: nothing),
    whether that differs from what came, and the answer the client gets from the proxy
    (None: none, as for a call sent as a notification)."""

    send: object
    changed: bool = False
    answer: Message | None = None


def as_call(request: Message) -> dict[str, Any] | None:
    """The call of a `tools/call` request as `check_turn` takes it; None when it has no name
    or its arguments are not an object (the server answers such a request itself). This is
    what `mcp_calls.calls` reads, without its shape errors: 25 µs less per call, where the
    whole added latency is a few hundred (the tests hold the two readings equal)."""
    params = request.get("params")
    if type(params) is not dict or type(params.get("name")) is not str:
        return None
    arguments = params.get("arguments")
    if arguments is not None and type(arguments) is not dict:
        return None
    call_id = request["id"] if allowed_id(request) else NO_ID
    return {"id": call_id, "name": params["name"], "arguments": arguments or {}}


def call_name(message: object) -> str | None:
    params = message.get("params") if isinstance(message, dict) else None
    name = params.get("name") if isinstance(params, dict) else None
    return name if type(name) is str else None


def _as_given(call_id: object) -> object:
    return call_id


class CallGate:
    """The decision on each `tools/call` of a session. `shown_id` gives a call's id as its
    client sent it, where the server is sent another (the call is judged, and reported to
    telemetry, under the client's)."""

    session: Session
    steps: StepLog | None
    shown_id: Callable[[object], object]

    def __init__(self, session: Session, steps: StepLog | None = None,
                 shown_id: Callable[[object], object] = _as_given):
        self.session, self.steps, self.shown_id = session, steps, shown_id

    def judge(self, request: Message, since: float | None = None) -> Ruling:
        """The ruling on a call that came at `since` (see `Session.judging`)."""
        call = as_call(request)
        if call is None:
            return Ruling(request)
        if self.shown_id is not _as_given and allowed_id(request):
            call["id"] = self.shown_id(call["id"])
        session = self.session
        if not session.judging(call["name"], since):
            known = session.tools.known
            session.core.unjudged(call["name"], known is not None and known.offers(call["name"]),
                                  call["id"] if allowed_id(request) else None)
            self._forwarded(request, call["name"], (), judged=False)
            return Ruling(request)
        known = session.tools.known
        assert known is not None
        toolset = known.toolset()
        verdict = known.errors.get(call["name"]) or session.core.check(call, toolset)
        if isinstance(verdict, Exception):
            return self._failed(request, verdict)
        if not verdict.ok:
            if self.steps is not None:
                self.steps.refused(verdict)
            if not allowed_id(request):  # a notification to the SDKs: nothing answers it
                return Ruling(None, True)
            answer = session.core.answer(verdict)
            return Ruling(None, True, refusal_response(request, answer, session.tools.server_info))  # type: ignore[arg-type]
        changed = verdict.casts[0].changed if verdict.casts else ()
        self._forwarded(request, call["name"], changed)
        if changed:
            return Ruling(with_arguments(request, verdict.calls[0].arguments), True)
        return Ruling(request)

    @staticmethod
    def _failed(request: Message, error: Exception) -> Ruling:
        """A host's rule kind raised (a `RuleKindError`): the call is neither refused nor let
        through, but answered with a JSON-RPC error naming the kind (and told on standard
        error)."""
        sys.stderr.write(f"turngate proxy: {str(error)[:-1]}, so the call was answered with an error.\n")
        return Ruling(None, True, error_response(request, str(error)) if allowed_id(request) else None)

    def _forwarded(self, request: Message, tool: str, changed: tuple[Any, ...], judged: bool = True) -> None:
        if self.steps is not None:
            known = self.session.tools.known
            self.steps.forwarded(request, tool, known is not None and known.offers(tool), changed, judged)
