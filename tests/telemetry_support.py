"""What a gate reported to OpenTelemetry, read with the SDK's in-memory exporters: a
`Telemetry` on providers of its own (the global ones are never set), and the spans, events
and counter points it emitted, as plain data the tests compare."""

from __future__ import annotations

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from scenario import BROKEN_STEPS, REFUSED_STEPS
from turngate import Telemetry


class Emitted:
    """A `Telemetry` whose spans and metrics are kept in memory to be read back."""

    def __init__(self, privacy: str = "metadata-only"):
        self.exporter, self.reader = InMemorySpanExporter(), InMemoryMetricReader()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.telemetry = Telemetry(self.tracer_provider, MeterProvider(metric_readers=[self.reader]), privacy=privacy)

    def spans(self) -> list:
        return [span for span in self.exporter.get_finished_spans() if span.name == "turngate turn"]

    def turns(self) -> list[tuple[dict, list[dict]]]:
        """Each turn span's attributes and its call events' attributes, in the order emitted."""
        return [(dict(span.attributes), [dict(event.attributes) for event in span.events if event.name == "turngate.call"])
                for span in self.spans()]

    def points(self, metric: str) -> dict[frozenset, int]:
        """The counter's value by its attributes (as a frozenset of their items, lists as tuples)."""
        found: dict[frozenset, int] = {}
        data = self.reader.get_metrics_data()
        for resource in (data.resource_metrics if data else []):
            for scope in resource.scope_metrics:
                for point in (point for m in scope.metrics if m.name == metric for point in m.data.data_points):
                    found[frozenset(point.attributes.items())] = point.value
        return found


def event(tool, status, refusal, codes) -> dict:
    """A call event as reported at metadata-only."""
    attributes = {"turngate.call.outcome": status}
    if tool is not None:
        attributes["gen_ai.tool.name"] = tool
    if refusal is not None:
        attributes["error.type"] = refusal
    if codes:
        attributes["turngate.call.codes"] = tuple(codes)
    return attributes


def turn(gate: str, steps: list[tuple]) -> tuple[dict, list[dict]]:
    """A turn span as reported at metadata-only: its calls' (tool, status, refusal, codes)."""
    refused = any(status != "accepted" for _, status, _, _ in steps)
    attributes = {"turngate.gate": gate, "turngate.turn.outcome": "refused" if refused else "accepted",
                  "turngate.turn.call_count": len(steps),
                  "turngate.turn.tool_names": tuple(tool for tool, *_ in steps if tool is not None)}
    codes = tuple(dict.fromkeys(code for *_, found in steps for code in found))
    if codes:
        attributes["turngate.turn.codes"] = codes
    return attributes, [event(*step) for step in steps]


#: The scenario's CLEAN_TURN, accepted.
CLEAN_STEPS = [("get_page", "accepted", None, ()), ("update_page_metadata", "accepted", None, ())]


def assert_scenario_reported(emitted: Emitted, gate: str, broken: list[tuple] = BROKEN_STEPS) -> None:
    """REFUSED_TURN, BROKEN_TURN and CLEAN_TURN reported at metadata-only by `gate`, and
    nothing else (a turn with no call is not reported): the spans, their call events and
    the counters. `broken` is BROKEN_TURN's steps in the order the framework gives them."""
    assert emitted.turns() == [turn(gate, REFUSED_STEPS), turn(gate, broken), turn(gate, CLEAN_STEPS)]
    # A refusal is the gate's answer, not an error of the host's program.
    assert all(span.status.status_code.name == "UNSET" for span in emitted.spans())
    g = ("turngate.gate", gate)
    assert emitted.points("turngate.turns") == {
        frozenset({g, ("turngate.turn.outcome", "refused")}): 2, frozenset({g, ("turngate.turn.outcome", "accepted")}): 1}
    assert emitted.points("turngate.calls") == {
        frozenset({g, ("gen_ai.tool.name", "get_page"), ("turngate.call.outcome", "not-run"), ("error.type", "turn")}): 2,
        frozenset({g, ("gen_ai.tool.name", "update_page_metadata"), ("turngate.call.outcome", "refused"),
                   ("error.type", "arguments")}): 1,
        frozenset({g, ("gen_ai.tool.name", "get_page"), ("turngate.call.outcome", "refused"), ("error.type", "arguments")}): 1,
        frozenset({g, ("turngate.call.outcome", "refused"), ("error.type", "arguments")}): 1,  # the unknown tool
        frozenset({g, ("gen_ai.tool.name", "get_page"), ("turngate.call.outcome", "accepted")}): 1,
        frozenset({g, ("gen_ai.tool.name", "update_page_metadata"), ("turngate.call.outcome", "accepted")}): 1}
    assert emitted.points("turngate.codes") == {
        frozenset({g, ("gen_ai.tool.name", "update_page_metadata"), ("turngate.code", "missing")}): 1,
        frozenset({g, ("gen_ai.tool.name", "update_page_metadata"), ("turngate.code", "enum")}): 1,
        frozenset({g, ("gen_ai.tool.name", "get_page"), ("turngate.code", "invalid-json")}): 1,
        frozenset({g, ("turngate.code", "unknown-tool")}): 1}


def counted(gate: str, turns: list[list[tuple]]) -> dict[str, dict[frozenset, int]]:
    """The three counters as `gate` counts `turns` (each a turn's calls as (tool, status,
    refusal, codes), at metadata-only: tool None for a tool not offered)."""
    points: dict[str, dict[frozenset, int]] = {"turngate.turns": {}, "turngate.calls": {}, "turngate.codes": {}}

    def add(metric: str, *attributes: tuple) -> None:
        key = frozenset({("turngate.gate", gate), *attributes})
        points[metric][key] = points[metric].get(key, 0) + 1

    for steps in turns:
        add("turngate.turns", ("turngate.turn.outcome", "accepted" if all(s[1] == "accepted" for s in steps)
                               else "refused"))
        for tool, status, refusal, codes in steps:
            named = (("gen_ai.tool.name", tool),) if tool is not None else ()
            add("turngate.calls", *named, ("turngate.call.outcome", status),
                *((("error.type", refusal),) if refusal is not None else ()))
            for code in codes:
                add("turngate.codes", *named, ("turngate.code", code))
    return points


def assert_reported(emitted: Emitted, gate: str, turns: list[list[tuple]]) -> None:
    """Exactly `turns` reported by `gate` at metadata-only, in order: the spans, their call
    events and the counters."""
    assert emitted.turns() == [turn(gate, steps) for steps in turns]
    for metric, points in counted(gate, turns).items():
        assert emitted.points(metric) == points, metric
