"""Each decided turn reported to OpenTelemetry, when a host asks for it (`telemetry=` on
`check_turn` and on every gate): a span per turn, an event on it per call, and counters of
turns, calls and mismatch codes.

The attributes follow the OpenTelemetry GenAI semantic conventions where they name a thing
(`gen_ai.tool.name`, `gen_ai.tool.call.id`, `error.type`); the rest are `turngate.*`. What
the model sent is kept as the run steps keep it (`steps.refused_steps`): at `metadata-only`,
the default, no call id, no answer text and no name of a tool that was not offered (the
model's own text); at `full`, all three on the span. Metrics never carry a tool name the
model made up: each would be a series of its own.

OpenTelemetry is imported when a `Telemetry` is made, never before: a gate made without one
imports no module of it, and decides as it did. A `Telemetry` reports through the providers
it is given, or else the global ones (which report nothing until a host sets them up).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, Literal, NamedTuple

from attrs import Factory, evolve, field, frozen

from .calls import TurnVerdict
from .steps import refused_steps

if TYPE_CHECKING:
    from opentelemetry.metrics import Counter, MeterProvider
    from opentelemetry.trace import Tracer, TracerProvider

Privacy = Literal["full", "metadata-only"]

#: The instrumentation scope's name: the tracer's and the meter's.
SCOPE = "turngate"
SPAN_NAME = "turngate turn"
CALL_EVENT = "turngate.call"

# Attributes the GenAI semantic conventions name.
TOOL_NAME = "gen_ai.tool.name"
CALL_ID = "gen_ai.tool.call.id"
ERROR_TYPE = "error.type"  # a refused turn's call: "arguments" (its own) or "turn" (a sibling's)
# turngate's own.
GATE = "turngate.gate"
TURN_OUTCOME = "turngate.turn.outcome"  # "accepted", "refused" or "unjudged"
CALL_COUNT = "turngate.turn.call_count"
TURN_TOOLS = "turngate.turn.tool_names"
TURN_CODES = "turngate.turn.codes"
CALL_OUTCOME = "turngate.call.outcome"  # "accepted", "refused", "not-run" or "unjudged"
CODES = "turngate.call.codes"
CODE = "turngate.code"
ANSWER = "turngate.call.answer"

ACCEPTED, REFUSED = "accepted", "refused"
#: A call a gate let through without judging it, as ADR 246 skips what it cannot judge
#: (`turngate proxy`: no current list, or no schema for its tool).
UNJUDGED = "unjudged"


class TelemetryError(RuntimeError):
    """Telemetry was asked for where OpenTelemetry is not installed."""


class Instruments:
    """The tracer and the counters a `Telemetry` reports with, made once, through the
    providers given or else the global ones."""

    def __init__(self, tracer_provider: TracerProvider | None, meter_provider: MeterProvider | None):
        try:
            from opentelemetry import metrics, trace
        except ImportError:
            raise TelemetryError("telemetry needs the OpenTelemetry API, which is not installed: "
                                 "pip install 'turngate[otel]'.") from None
        self.tracer: Tracer = trace.get_tracer(SCOPE, tracer_provider=tracer_provider)
        meter = metrics.get_meter(SCOPE, meter_provider=meter_provider)
        self.turns: Counter = meter.create_counter(
            "turngate.turns", unit="{turn}", description="Turns decided by turngate, by outcome.")
        self.calls: Counter = meter.create_counter(
            "turngate.calls", unit="{call}", description="Tool calls of the turns decided, by tool and outcome.")
        self.codes: Counter = meter.create_counter(
            "turngate.codes", unit="{code}", description="Mismatch codes of the calls refused, by tool and code.")


def _instruments(telemetry: Telemetry) -> Instruments:
    return Instruments(telemetry.tracer_provider, telemetry.meter_provider)


def _privacy(_: object, attribute: object, value: str) -> None:
    if value not in ("full", "metadata-only"):
        raise ValueError(f'telemetry privacy is "full" or "metadata-only", not {value!r}')


class CallReport(NamedTuple):
    """One call of a decided turn as reported: its tool (None: not offered, at
    metadata-only), whether it was offered, and what became of it."""

    tool: str | None
    offered: bool
    outcome: str
    refusal: str | None = None
    codes: tuple[str, ...] = ()
    call_id: object = None
    answer: str | None = None


@frozen
class Telemetry:
    """What a gate reports each decided turn with. `tracer_provider` and `meter_provider`
    are the host's (None: OpenTelemetry's global ones); `privacy` decides what of the
    model's turn is kept; `gate` names the gate on every span and data point (each gate
    sets its own, through `for_gate`)."""

    tracer_provider: TracerProvider | None = None
    meter_provider: MeterProvider | None = None
    privacy: Privacy = field(default="metadata-only", validator=_privacy)
    gate: str | None = None
    instruments: Instruments = field(default=Factory(_instruments, takes_self=True), eq=False, repr=False)

    def for_gate(self, gate: str) -> Telemetry:
        """This telemetry as reported by `gate` (its instruments shared)."""
        return evolve(self, gate=gate)

    def decide(self, decide: Callable[[], TurnVerdict]) -> TurnVerdict:
        """The verdict `decide` gives, reported with the time it took (a turn with no call
        is not reported: nothing was gated)."""
        start = time.time_ns()
        verdict = decide()
        if verdict.given:
            self.report(verdict, start)
        return verdict

    def report(self, verdict: TurnVerdict, start: int | None = None) -> None:
        """A span for the turn (from `start`, in nanoseconds since the epoch, when given) as a
        child of the current span, an event on it per call, and the counters."""
        self._emit(ACCEPTED if verdict.ok else REFUSED, call_reports(verdict, self.privacy), start)

    def unjudged(self, tool: str, offered: bool, call_id: object = None) -> None:
        """A call that went on without being judged, reported as a turn of its own whose
        outcome is "unjudged": `offered` says whether the tool was listed (its name is kept
        at metadata-only only then, as the run steps keep it)."""
        full = self.privacy == "full"
        self._emit(UNJUDGED, [CallReport(tool if offered or full else None, offered, UNJUDGED,
                                         call_id=call_id if full else None)])

    def _emit(self, outcome: str, calls: list[CallReport], start: int | None = None) -> None:
        span = self.instruments.tracer.start_span(SPAN_NAME, start_time=start,
                                                  attributes=self._turn_attributes(outcome, calls))
        for call in calls:
            span.add_event(CALL_EVENT, _event_attributes(call))
        span.end()
        self._count(outcome, calls)

    def _turn_attributes(self, outcome: str, calls: list[CallReport]) -> dict[str, Any]:
        attributes: dict[str, Any] = self._gate({TURN_OUTCOME: outcome, CALL_COUNT: len(calls)})
        attributes[TURN_TOOLS] = [call.tool for call in calls if call.tool]
        codes = list(dict.fromkeys(code for call in calls for code in call.codes))
        if codes:
            attributes[TURN_CODES] = codes
        return attributes

    def _count(self, outcome: str, calls: list[CallReport]) -> None:
        instruments = self.instruments
        instruments.turns.add(1, self._gate({TURN_OUTCOME: outcome}))
        for call in calls:
            tool = {TOOL_NAME: call.tool} if call.offered and call.tool else {}
            counted = self._gate({**tool, CALL_OUTCOME: call.outcome})
            if call.refusal is not None:
                counted[ERROR_TYPE] = call.refusal
            instruments.calls.add(1, counted)
            for code in call.codes:
                instruments.codes.add(1, self._gate({**tool, CODE: code}))

    def _gate(self, attributes: dict[str, Any]) -> dict[str, Any]:
        if self.gate is not None:
            attributes[GATE] = self.gate
        return attributes


def call_reports(verdict: TurnVerdict, privacy: str) -> list[CallReport]:
    """Each call of a decided turn as reported at `privacy`: a refused turn's as its run steps
    keep it, an accepted turn's (every tool offered) by tool and call id."""
    if verdict.ok:
        return [CallReport(call.tool, True, ACCEPTED, call_id=call.id if privacy == "full" else None)
                for call in verdict.calls]
    return [CallReport(step.tool, answer.offered, step.status, step.tool_refusal, step.codes, step.call_id, step.text)
            for step, answer in zip(refused_steps(verdict, 0, privacy), verdict.answers)]


def _event_attributes(call: CallReport) -> dict[str, Any]:
    attributes: dict[str, Any] = {CALL_OUTCOME: call.outcome}
    if call.tool:
        attributes[TOOL_NAME] = call.tool
    if call.call_id is not None:
        attributes[CALL_ID] = str(call.call_id)
    if call.refusal is not None:
        attributes[ERROR_TYPE] = call.refusal
    if call.codes:
        attributes[CODES] = list(call.codes)
    if call.answer is not None:
        attributes[ANSWER] = call.answer
    return attributes
