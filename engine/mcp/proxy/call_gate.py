"""The gate of a `tools/call`: the call's arguments checked against the input schema the
server listed for its tool, before the server sees the call.

A call that fits goes to the server as the client sent it (cast, with `--casts`, where it
fits only after an exact cast); a call that does not is answered here with a tool error
result carrying the Refused text, as a result the model reads, not a protocol error.
"""

from __future__ import annotations

import sys
from typing import NamedTuple

from ...formats import mcp_calls
from ...kinds.hosted import RuleKindError
from ...turn.gate import check_turn
from .messages import error_response, refusal_response, with_arguments
from .steps_log import StepLog
from .tool_list import ToolList


class Ruling(NamedTuple):
    """What becomes of one message from the client: what goes to the server (None: nothing),
    whether that differs from what came, and the answer the client gets from the proxy
    (None: none, as for a call sent as a notification)."""

    send: dict | None
    changed: bool = False
    answer: dict | None = None


def as_call(request: dict) -> dict | None:
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
    call_id = request.get("id", mcp_calls.position_id(1))
    return {"id": call_id, "name": params["name"], "arguments": arguments or {}}


class CallGate:
    """The decision on each `tools/call`, by the tools in `tools`."""

    def __init__(self, tools: ToolList, steps: StepLog | None = None):
        self.tools, self.steps = tools, steps

    def wants_fresh_list(self, requests: list[dict]) -> bool:
        """Whether the tools are to be read again before these calls are judged: no list
        could be read so far, or a call names a tool not in the list (not every server says
        when its list changes, and a call is not refused by a list that may be old)."""
        if self.tools.toolset is None:
            return True
        return any(call is not None and not self.tools.offers(call["name"]) for call in map(as_call, requests))

    def judge(self, request: dict) -> Ruling:
        call = as_call(request)
        if call is None:
            return Ruling(request)
        toolset = self.tools.toolset
        if self.tools.failed is not None:
            return self._failed(request, self.tools.failed)
        if toolset is None:  # nothing is judged without the server's list
            self._forwarded(request, call["name"], ())
            return Ruling(request)
        try:
            verdict = check_turn([call], toolset)
        except RuleKindError as error:
            return self._failed(request, error)
        if not verdict.ok:
            if self.steps is not None:
                self.steps.refused(verdict)
            answer = mcp_calls.answers(verdict)[0]
            return Ruling(None, True, refusal_response(request, answer) if "id" in request else None)
        changed = verdict.casts[0].changed if verdict.casts else ()
        self._forwarded(request, call["name"], changed)
        if changed:
            return Ruling(with_arguments(request, verdict.calls[0].arguments), True)
        return Ruling(request)

    @staticmethod
    def _failed(request: dict, error: RuleKindError) -> Ruling:
        """A host's rule kind raised: the call is neither refused nor let through, but
        answered with a JSON-RPC error naming the kind (and told on standard error)."""
        sys.stderr.write(f"turngate proxy: {str(error)[:-1]}, so the call was answered with an error.\n")
        return Ruling(None, True, error_response(request, str(error)) if "id" in request else None)

    def _forwarded(self, request: dict, tool: str, changed: tuple) -> None:
        if self.steps is not None:
            self.steps.forwarded(request, tool, self.tools.offers(tool), changed)
