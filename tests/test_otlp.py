"""OpenTelemetry set up from the OTEL_* variables (turngate.turn.otlp), for a process of
turngate's own: what it sends reaches an OTLP/HTTP receiver on 127.0.0.1 as the SDK's exporter
sends it, read back with OpenTelemetry's own protobuf messages; a variable it cannot follow
is one sentence."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

import scenario as s
from conftest import EXAMPLES, ROOT
from test_integrations import excerpt_at
from turngate import Call, TelemetryError, check_turn
from turngate.turn.otlp import otlp_telemetry


class Receiver:
    """An OTLP/HTTP endpoint that keeps every request: its path, headers and body."""

    def __init__(self):
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                received.append((self.path, dict(self.headers), self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"

    def bodies(self, path: str) -> list[bytes]:
        return [body for at, _, body in self.received if at == path]

    def spans(self) -> list:
        requests = [ExportTraceServiceRequest.FromString(body) for body in self.bodies("/v1/traces")]
        return [(resource.resource, span) for request in requests for resource in request.resource_spans
                for scope in resource.scope_spans for span in scope.spans]

    def metric_names(self) -> set[str]:
        requests = [ExportMetricsServiceRequest.FromString(body) for body in self.bodies("/v1/metrics")]
        return {metric.name for request in requests for resource in request.resource_metrics
                for scope in resource.scope_metrics for metric in scope.metrics}


@pytest.fixture
def receiver(monkeypatch):
    receiver = Receiver()
    for name in ("OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER",
                 "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_SDK_DISABLED"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=pages")
    yield receiver
    receiver.server.shutdown()


def decide_two_turns(telemetry) -> None:
    check_turn([Call(*call) for call in s.REFUSED_TURN], s.SCHEMAS, telemetry=telemetry.for_gate("proxy"))
    check_turn([Call(*call) for call in s.CLEAN_TURN], s.SCHEMAS, telemetry=telemetry.for_gate("proxy"))


def attribute(attributes, key: str):
    value = next(item.value for item in attributes if item.key == key)
    kind = value.WhichOneof("value")
    return [item.string_value for item in value.array_value.values] if kind == "array_value" else getattr(value, kind)


def test_the_turns_and_the_counters_reach_the_otlp_endpoint_the_variables_name(receiver):
    with otlp_telemetry() as telemetry:
        decide_two_turns(telemetry)
    spans = receiver.spans()
    assert [(span.name, attribute(span.attributes, "turngate.turn.outcome"), attribute(span.attributes, "turngate.gate"))
            for _, span in spans] == [("turngate turn", "refused", "proxy"), ("turngate turn", "accepted", "proxy")]
    assert attribute(spans[0][1].events[1].attributes, "turngate.call.codes") == ["missing", "enum"]
    assert {attribute(resource.attributes, "service.name") for resource, _ in spans} == {"turngate"}
    assert receiver.metric_names() == {"turngate.turns", "turngate.calls", "turngate.codes"}
    assert all(headers.get("x-tenant") == "pages" for _, headers, _ in receiver.received)


def test_the_service_is_named_by_the_variables_where_they_name_it(receiver, monkeypatch):
    monkeypatch.setenv("OTEL_SERVICE_NAME", "pages-proxy")
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=staging")
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "none")
    with otlp_telemetry() as telemetry:
        decide_two_turns(telemetry)
    resource = receiver.spans()[0][0]
    assert attribute(resource.attributes, "service.name") == "pages-proxy"
    assert attribute(resource.attributes, "deployment.environment.name") == "staging"
    assert receiver.bodies("/v1/metrics") == []


def test_console_output_goes_to_standard_error_never_standard_output(receiver, monkeypatch, capsys):
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "none")
    with otlp_telemetry() as telemetry:
        decide_two_turns(telemetry)
    out, err = capsys.readouterr()
    assert out == "" and err.count('"name": "turngate turn"') == 2
    assert receiver.received == []


@pytest.mark.parametrize(("variable", "value", "said"), [
    ("OTEL_TRACES_EXPORTER", "zipkin",
     'OTEL_TRACES_EXPORTER is "zipkin", which turngate cannot send to; it sends to "otlp", "console" or "none".'),
    ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json",
     'OTEL_EXPORTER_OTLP_PROTOCOL is "http/json", a protocol turngate cannot send traces with; '
     'it sends "http/protobuf" or "grpc".'),
    ("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "udp",
     'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL is "udp", a protocol turngate cannot send metrics with; '
     'it sends "http/protobuf" or "grpc".'),
    ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc",
     "sending traces to otlp needs opentelemetry.exporter.otlp.proto.grpc.trace_exporter, which is not installed: "
     "pip install 'turngate[otel]' and opentelemetry-exporter-otlp-proto-grpc."),
])
def test_a_variable_it_cannot_follow_is_one_sentence_before_anything_is_set_up(receiver, monkeypatch, variable, value,
                                                                                said):
    monkeypatch.setenv(variable, value)
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.grpc", None)  # as where it is not installed
    with pytest.raises(TelemetryError) as raised:
        with otlp_telemetry():
            pass
    assert str(raised.value) == said
    assert receiver.received == []


def test_without_the_sdk_the_set_up_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.metrics", None)
    with pytest.raises(TelemetryError, match=r"^the OTLP set-up needs the OpenTelemetry SDK, which is not installed: "
                                             r"pip install 'turngate\[otel\]'.$"):
        with otlp_telemetry():
            pass


def test_the_hosts_set_up_in_the_example_sends_each_turn_under_the_run_to_the_endpoint(receiver):
    env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint}
    done = subprocess.run([sys.executable, str(EXAMPLES / "telemetry_otlp.py")], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["refused [(), ('enum', 'missing', 'additional'), ('cut-off-json',)]", "ran []"]
    spans = receiver.spans()
    (run,) = [span for _, span in spans if span.name == "run"]
    turns = [span for _, span in spans if span.name == "turngate turn"]
    assert [attribute(span.attributes, "turngate.turn.outcome") for span in turns] == ["refused", "accepted"]
    assert all(span.parent_span_id == run.span_id and span.trace_id == run.trace_id for span in turns)
    assert {attribute(resource.attributes, "service.name") for resource, _ in spans} == {"pages-agent"}
    assert receiver.metric_names() == {"turngate.turns", "turngate.calls", "turngate.codes"}


def test_the_docs_show_the_set_up_as_verbatim_excerpts_of_the_example():
    page = (ROOT / "docs" / "telemetry.md").read_text()
    blocks = [block.split("```")[0] for block in page.split("```python\n")[1:]]
    lines = (EXAMPLES / "telemetry_otlp.py").read_text().splitlines()
    assert blocks and all(excerpt_at(block, lines) is not None for block in blocks), blocks
