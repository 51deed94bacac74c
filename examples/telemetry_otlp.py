"""Each turn turngate decides, reported to OpenTelemetry: the host sets up the SDK with the
OTLP exporter (here over HTTP, to OTEL_EXPORTER_OTLP_ENDPOINT, by default
http://localhost:4318, where a collector listens), and gives the gate a `Telemetry`.
Needs `pip install 'turngate[otel]'`.

Run from the repository's top folder:  python examples/telemetry_otlp.py
"""

import json
from pathlib import Path

from opentelemetry import metrics, trace
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from turngate import Telemetry, Toolset, check_turn

resource = Resource.create({"service.name": "pages-agent"})
tracer_provider = TracerProvider(resource=resource)
tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
meter_provider = MeterProvider(resource=resource, metric_readers=[PeriodicExportingMetricReader(OTLPMetricExporter())])
trace.set_tracer_provider(tracer_provider)
metrics.set_meter_provider(meter_provider)
telemetry = Telemetry()  # the global providers; privacy="metadata-only": nothing the model sent

EXAMPLES = Path(__file__).parent
toolset = Toolset({name: json.loads((EXAMPLES / f"{name}.schema.json").read_text())
                   for name in ("get_page", "update_page_metadata")})
refused = json.loads((EXAMPLES / "turn.json").read_text())
corrected = [{**call, "arguments": {"uid": 42, "fields": {"title": "Opening hours"}}}
             if call["tool"] == "update_page_metadata" else call for call in refused]

with trace.get_tracer("pages-agent").start_as_current_span("run"):  # the host's run: one trace
    for turn in (refused, corrected):
        verdict = check_turn(turn, toolset, telemetry=telemetry)
        print("ran" if verdict.ok else "refused", [answer.codes for answer in verdict.answers])

tracer_provider.shutdown()  # sends what is left
meter_provider.shutdown()
