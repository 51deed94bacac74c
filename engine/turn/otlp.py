"""OpenTelemetry set up from the standard `OTEL_*` variables, for a process that is turngate's
own (`turngate proxy --otel`): the SDK's tracer and meter providers, exporting over OTLP.

    with otlp_telemetry() as telemetry:
        verdict = check_turn(calls, toolset, telemetry=telemetry.for_gate("proxy"))

A host that embeds turngate sets OpenTelemetry up its own way and passes its providers (or
none: the global ones) to `Telemetry`. Needs the `otel` extra (the SDK and the OTLP/HTTP
exporter); nothing of them is imported before `otlp_telemetry` is called.

The SDK and the exporter read the variables themselves: `OTEL_SERVICE_NAME`,
`OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_ENDPOINT` (and `_HEADERS`, `_TIMEOUT`,
`_COMPRESSION`, each also per signal), `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*`,
`OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_SDK_DISABLED`. Read here: `OTEL_TRACES_EXPORTER` and
`OTEL_METRICS_EXPORTER` ("otlp", the default, "console": to standard error, never standard
output, which may be a protocol's channel, or "none"), and
`OTEL_EXPORTER_OTLP_PROTOCOL` (per signal too: "http/protobuf", the default, or "grpc" where
its exporter is installed).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module
from typing import Any

from .telemetry import Privacy, Telemetry, TelemetryError

#: The service name when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES gives one.
SERVICE_NAME = "turngate"
EXPORTERS = ("otlp", "console", "none")
#: Where each protocol's exporters live, and their class per signal.
PROTOCOLS = {"http/protobuf": "opentelemetry.exporter.otlp.proto.http", "grpc": "opentelemetry.exporter.otlp.proto.grpc"}
EXPORTER_CLASSES = {"traces": ("trace_exporter", "OTLPSpanExporter"), "metrics": ("metric_exporter", "OTLPMetricExporter")}
INSTALL = "pip install 'turngate[otel]'"


@contextmanager
def otlp_telemetry(privacy: Privacy = "metadata-only", service_name: str = SERVICE_NAME) -> Iterator[Telemetry]:
    """A `Telemetry` on providers of its own, set up from the `OTEL_*` variables; on leaving,
    what is left is sent and the providers are shut down. A variable this reads that holds
    a value it does not know, or a part that is not installed, is a `TelemetryError`
    saying which, before anything is set up."""
    try:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise TelemetryError(f"the OTLP set-up needs the OpenTelemetry SDK, which is not installed: {INSTALL}.") from None
    traces, metrics = signal_exporters("traces"), signal_exporters("metrics")
    resource = _resource(Resource, service_name)
    tracer_provider = TracerProvider(resource=resource)
    for exporter in traces:
        tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
    meter_provider = MeterProvider(resource=resource, metric_readers=[PeriodicExportingMetricReader(exporter)
                                                                      for exporter in metrics])
    try:
        yield Telemetry(tracer_provider, meter_provider, privacy=privacy)
    finally:
        tracer_provider.shutdown()
        meter_provider.shutdown()


def _resource(resource: Any, service_name: str) -> Any:
    """The SDK's resource from the variables, `service_name` where they give none."""
    found = resource.create()
    if str(found.attributes.get("service.name", "")).startswith("unknown_service"):
        return found.merge(resource({"service.name": service_name}))
    return found


def signal_exporters(signal: str) -> list[Any]:
    """The exporters `OTEL_<SIGNAL>_EXPORTER` names for "traces" or "metrics"."""
    variable = f"OTEL_{signal.upper()}_EXPORTER"
    names = [name.strip() for name in os.environ.get(variable, "otlp").split(",") if name.strip()]
    unknown = [name for name in names if name not in EXPORTERS]
    if unknown:
        raise TelemetryError(f'{variable} is "{unknown[0]}", which turngate cannot send to; '
                             f'it sends to "otlp", "console" or "none".')
    return [_exporter(signal, name) for name in names if name != "none"]


def _exporter(signal: str, name: str) -> Any:
    if name == "console":
        module, cls = (("opentelemetry.sdk.trace.export", "ConsoleSpanExporter") if signal == "traces"
                       else ("opentelemetry.sdk.metrics.export", "ConsoleMetricExporter"))
    else:
        module, cls = _otlp_exporter(signal)
    try:
        exporter = getattr(import_module(module), cls)
    except ImportError:
        raise TelemetryError(f"sending {signal} to {name} needs {module}, which is not installed: {INSTALL}"
                             f"{' and opentelemetry-exporter-otlp-proto-grpc' if 'grpc' in module else ''}.") from None
    return exporter(out=sys.stderr) if name == "console" else exporter()


def _otlp_exporter(signal: str) -> tuple[str, str]:
    variable = f"OTEL_EXPORTER_OTLP_{signal.upper()}_PROTOCOL"
    if variable not in os.environ:
        variable = "OTEL_EXPORTER_OTLP_PROTOCOL"
    protocol = os.environ.get(variable, "http/protobuf").strip()
    if protocol not in PROTOCOLS:
        raise TelemetryError(f'{variable} is "{protocol}", a protocol turngate cannot send {signal} with; '
                             f'it sends "http/protobuf" or "grpc".')
    module, cls = EXPORTER_CLASSES[signal]
    return f"{PROTOCOLS[protocol]}.{module}", cls
