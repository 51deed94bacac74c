"""`--steps FILE`: one run step per `tools/call`, appended as a JSON line once its outcome is
known, for `turngate stats` and `turngate timeline`.

A refused call is written at once; a call sent to the server when the server answers it
(`failed` for a JSON-RPC error or a tool error result). A call sent without being judged
(no schema was at hand) says so (`"judged": false`). Each call is a turn of its own: the
client sends calls one by one, and the proxy never sees a model's turn whole. At
`metadata-only` no argument or text the model sent is kept: not the call id, not the
refusal's text, not the paths of casts, and not the name of a tool the server did not offer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, TextIO

from .messages import Message, allowed_id, id_key

if TYPE_CHECKING:
    from ...turn.calls import TurnVerdict
    from ...turn.steps import RunStep


class StepLog:
    out: TextIO
    privacy: str
    shown_id: Callable[[object], object]

    def __init__(self, out: TextIO, privacy: str, shown_id: Callable[[object], object] = lambda given: given):
        self.out, self.privacy, self.shown_id = out, privacy, shown_id
        self._turns = [0]  # shared with siblings: one numbering per file
        self.sent: dict[str, RunStep] = {}  # calls the server has yet to answer, by request id
        self._siblings: list[StepLog] = []

    def sibling(self, shown_id: Callable[[object], object] = lambda given: given) -> StepLog:
        """The steps of another session, in the same file (`--listen` serves many); its
        calls' ids as `shown_id` gives them (the client's, where the proxy gave them others)."""
        other = StepLog(self.out, self.privacy, shown_id)
        other._turns = self._turns
        self._siblings.append(other)
        return other

    @property
    def turns(self) -> int:
        return self._turns[0]

    def _next_turn(self) -> int:
        self._turns[0] += 1
        return self._turns[0]

    def refused(self, verdict: TurnVerdict) -> None:
        from attrs import evolve

        from ...turn.steps import refused_steps, step_id
        steps = refused_steps(verdict, self._next_turn(), self.privacy)
        self._write(evolve(step, call_id=step_id(self.shown_id(step.call_id))) if step.call_id is not None else step
                    for step in steps)

    def forwarded(self, request: Message, tool: str, offered: bool, changed: tuple[Any, ...],
                  judged: bool = True) -> None:
        """A call sent to the server; `offered` says whether the server listed `tool` (it is
        not known when no list could be read), `changed` the paths a cast changed."""
        from ...turn.steps import RunStep, step_id
        from ...values.quoting import path_text
        kept_tool = tool if offered or self.privacy == "full" else None
        step = RunStep(self._next_turn(), 1, kept_tool, "ok", call_id=step_id(self.shown_id(request.get("id"))),
                       casts=[path_text(path) for path in changed], cast_count=len(changed), judged=judged)
        step = step.at_privacy(self.privacy)
        if allowed_id(request):
            self.sent[id_key(request["id"])] = step
        else:  # a notification: the server answers nothing, so it ran as far as we know
            self._write([step])

    @property
    def waiting(self) -> bool:
        """Whether some call's outcome is still to come from the server."""
        return bool(self.sent)

    def answered(self, message: object) -> None:
        """The server's answer to a call it was sent (or a batch of answers). A 2026-07-28
        `input_required` result is no outcome yet: the client sends the call again with
        what was asked for."""
        for answer in message if isinstance(message, list) else [message]:
            if isinstance(answer, dict) and self.sent:
                self._answered(answer)

    def _answered(self, message: Message) -> None:
        from attrs import evolve
        step = self.sent.pop(id_key(message.get("id")), None)
        result = message.get("result")
        result = result if isinstance(result, dict) else {}
        if step is None or result.get("resultType") == "input_required":
            return
        failed = "error" in message or result.get("isError") is True
        self._write([evolve(step, status="failed" if failed else "ok")])

    def close(self) -> None:
        """Calls the server never answered are written as failed: they did not run to an end
        that anyone saw."""
        for log in (*self._siblings, self):
            if log.sent:
                from attrs import evolve
                self._write(evolve(step, status="failed") for step in log.sent.values())
                log.sent.clear()
        self.out.close()

    def _write(self, steps: Iterable[RunStep]) -> None:
        from ...turn.steps import dump_steps
        dump_steps(steps, self.out)
        self.out.flush()  # a run may end by a signal; what was decided is on disk by then
