"""`turngate proxy --otel`: each `tools/call` reported to OpenTelemetry as a turn of its own
(gate "proxy"), a call let through unjudged as an "unjudged" one, over stdio and both HTTP
modes, read back from an OTLP/HTTP receiver on 127.0.0.1 as the SDK's exporters send it
(the proxy sets OpenTelemetry up from the OTEL_* variables and sends what is left when it
ends). Real SDK clients and servers; the plain echo server only for a list no SDK server
sends. `--privacy` decides what is kept (metadata-only unless given); OpenTelemetry that
cannot be set up is one sentence and exit 2; without `--otel`, nothing of it is imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

from proxy_support import (
    CATALOG_SCRIPT,
    CATALOG_SERVER,
    ECHO_SERVER,
    PROXY,
    ROOT,
    free_port,
    http_server,
    mcp_url,
    proxied,
    read_lines,
    server_environment,
    serving,
    session,
)
from test_otlp import Receiver, attribute
from test_proxy_lists import call_line, text_of
from test_proxy_wire import INITIALIZE, INITIALIZED, converse

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def receiver():
    receiver = Receiver()
    yield receiver
    receiver.server.shutdown()


def otel_environment(folder: Path, receiver: Receiver) -> dict[str, str]:
    """The test servers' variables and the collector's: only what OpenTelemetry is told here
    (an SDK client starts its server with a few safe variables and these)."""
    return {**server_environment(folder), "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
            "OTEL_SERVICE_NAME": "pages-proxy"}


def reported(receiver: Receiver, turns: int, timeout: float = 20.0) -> list[dict]:
    """Each turn span the proxy sent (once `turns` have come, and the counters with them),
    as its attributes and its call events' attributes, in the order sent."""
    deadline = time.monotonic() + timeout
    while len(receiver.spans()) < turns or not receiver.bodies("/v1/metrics"):
        assert time.monotonic() < deadline, f"{len(receiver.spans())} of {turns} turns came"
        time.sleep(0.05)
    spans = [span for _, span in receiver.spans()]
    assert {attribute(resource.attributes, "service.name") for resource, _ in receiver.spans()} == {"pages-proxy"}
    return [{"span": _attributes(span.attributes), "calls": [_attributes(event.attributes) for event in span.events]}
            for span in spans]


def _attributes(attributes) -> dict:
    return {item.key: attribute(attributes, item.key) for item in attributes}


def counted(receiver: Receiver, metric: str) -> dict[frozenset, int]:
    """A counter's last value by its attributes (the proxy's last export holds the totals)."""
    found: dict[frozenset, int] = {}
    for body in receiver.bodies("/v1/metrics"):
        for resource in ExportMetricsServiceRequest.FromString(body).resource_metrics:
            for scope in resource.scope_metrics:
                for point in (p for m in scope.metrics if m.name == metric for p in m.sum.data_points):
                    found[frozenset(_attributes(point.attributes).items())] = point.as_int
    return found


def turn(outcome: str, tool: str | None, codes: list[str] = (), **more) -> dict:
    """A one-call turn as the proxy reports it (metadata-only unless `more` adds to its call)."""
    span = {"turngate.gate": "proxy", "turngate.turn.outcome": outcome, "turngate.turn.call_count": 1,
            "turngate.turn.tool_names": [tool] if tool else []}
    call = {"turngate.call.outcome": outcome, **({"gen_ai.tool.name": tool} if tool else {})}
    if outcome == "refused":
        span["turngate.turn.codes"] = call["turngate.call.codes"] = list(codes)
        call["error.type"] = "arguments"
    return {"span": span, "calls": [call | more]}


GATE = ("turngate.gate", "proxy")


async def test_each_call_over_stdio_is_a_turn_and_nothing_the_model_sent_is_reported(tmp_path, receiver):
    environment = otel_environment(tmp_path, receiver)
    async with session(proxied(CATALOG_SERVER, "--otel", "--steps", str(tmp_path / "steps.jsonl")),
                       environment) as client:
        refused = text_of(await client.call_tool("tag", {"label": "green"}))
        await client.call_tool("tag", {"label": "red"})
        unknown = text_of(await client.call_tool("tag_all", {"label": "SECRET"}))
    assert refused.endswith('"label" must be one of "red", "blue", but "green" was sent.')
    assert unknown.startswith('Refused: no tool named "tag_all"')
    assert reported(receiver, 3) == [turn("refused", "tag", ["enum"]), turn("accepted", "tag"),
                                     turn("refused", None, ["unknown-tool"])]
    assert counted(receiver, "turngate.calls") == {
        frozenset({GATE, ("gen_ai.tool.name", "tag"), ("turngate.call.outcome", "refused"), ("error.type", "arguments")}): 1,
        frozenset({GATE, ("gen_ai.tool.name", "tag"), ("turngate.call.outcome", "accepted")}): 1,
        frozenset({GATE, ("turngate.call.outcome", "refused"), ("error.type", "arguments")}): 1}
    assert counted(receiver, "turngate.codes") == {
        frozenset({GATE, ("gen_ai.tool.name", "tag"), ("turngate.code", "enum")}): 1,
        frozenset({GATE, ("turngate.code", "unknown-tool")}): 1}
    sent = b"".join(body for _, _, body in receiver.received)
    assert b"tag_all" not in sent and b"green" not in sent and b"SECRET" not in sent
    # The steps keep everything, as without --otel: --privacy was not given.
    assert [step["call_id"] is not None for step in read_lines(tmp_path / "steps.jsonl")] == [True] * 3


async def test_a_call_let_through_unjudged_is_reported_as_unjudged(tmp_path, receiver):
    """The echo server's malformed list: `whisper` (no inputSchema) is offered but unjudged,
    `nowhere` may be a malformed entry's, so it is not refused either; `echo` is judged."""
    environment = {**otel_environment(tmp_path, receiver), "TURNGATE_ECHO_TOOLS": "malformed"}
    script = [(INITIALIZE, 1), (INITIALIZED, None), (call_line(2, "echo", '{"text":[5]}'), 2),
              (call_line(3, "whisper", '{"text":[5]}'), 3), (call_line(4, "nowhere", "{}"), 4)]
    await converse(proxied(ECHO_SERVER, "--otel"), environment, script)
    assert reported(receiver, 3) == [turn("refused", "echo", ["kind"]), turn("unjudged", "whisper"),
                                     turn("unjudged", None)]
    assert counted(receiver, "turngate.turns") == {frozenset({GATE, ("turngate.turn.outcome", "refused")}): 1,
                                                    frozenset({GATE, ("turngate.turn.outcome", "unjudged")}): 2}
    assert counted(receiver, "turngate.calls") == {
        frozenset({GATE, ("gen_ai.tool.name", "echo"), ("turngate.call.outcome", "refused"), ("error.type", "arguments")}): 1,
        frozenset({GATE, ("gen_ai.tool.name", "whisper"), ("turngate.call.outcome", "unjudged")}): 1,
        frozenset({GATE, ("turngate.call.outcome", "unjudged")}): 1}


async def test_over_url_each_call_is_reported_and_at_full_privacy_with_its_id_and_answer(tmp_path, receiver):
    port = free_port()
    with serving(http_server(CATALOG_SCRIPT, port), port, server_environment(tmp_path)):
        command = [*PROXY, "--otel", "--privacy", "full", "--steps", str(tmp_path / "steps.jsonl"), "--url",
                   mcp_url(port)]
        async with session(command, otel_environment(tmp_path, receiver)) as client:
            refused = text_of(await client.call_tool("tag", {"label": "green"}))
            await client.call_tool("tag", {"label": "red"})
            unknown = text_of(await client.call_tool("tag_all", {}))
    turns = reported(receiver, 3)
    assert [(t["span"]["turngate.turn.outcome"], t["span"]["turngate.turn.tool_names"]) for t in turns] == [
        ("refused", ["tag"]), ("accepted", ["tag"]), ("refused", ["tag_all"])]
    assert [t["calls"][0].get("turngate.call.answer") for t in turns] == [refused, None, unknown]
    assert [t["calls"][0]["gen_ai.tool.call.id"] for t in turns] == [
        str(step["call_id"]) for step in read_lines(tmp_path / "steps.jsonl")]
    # The counters never take a name the model made up, at any privacy.
    assert not any(("gen_ai.tool.name", "tag_all") in point for point in counted(receiver, "turngate.calls"))


async def test_behind_listen_each_clients_calls_are_reported_under_the_ids_it_sent(tmp_path, receiver):
    """`--listen` in front of a stdio server: a 2026-07-28 session's calls reach the server
    under ids of the proxy's own; steps and telemetry both show the client's."""
    port = free_port()
    command = [*PROXY, "--listen", f"127.0.0.1:{port}", "--otel", "--privacy", "full",
               "--steps", str(tmp_path / "steps.jsonl"), "--", *CATALOG_SERVER]
    with serving(command, port, otel_environment(tmp_path, receiver)):
        async with httpx2.AsyncClient() as raw:
            async with Client(streamable_http_client(mcp_url(port), http_client=raw)) as client:
                assert client.protocol_version == "2026-07-28"
                await client.call_tool("tag", {"label": "green"})
                await client.call_tool("tag", {"label": "blue"})
    turns = reported(receiver, 2)
    assert [t["span"]["turngate.turn.outcome"] for t in turns] == ["refused", "accepted"]
    ids = [t["calls"][0]["gen_ai.tool.call.id"] for t in turns]
    assert ids == [str(step["call_id"]) for step in read_lines(tmp_path / "steps.jsonl")]
    assert not any(call_id.startswith("turngate-") for call_id in ids)


def run_proxy(options: list[str], environment: dict[str, str], marker: Path, probe: str = "") -> subprocess.CompletedProcess:
    """The proxy run in front of a server that would leave `marker`; `probe`: Python run
    first (as `python -c`), in the proxy's own process."""
    program = (f"import sys\n{probe}\nfrom turngate.mcp.proxy.command import main\n"
               f"sys.exit(main({[*options, '--', 'sh', '-c', f'touch {marker}']!r}))\n")
    return subprocess.run([sys.executable, "-c", program], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          env={**os.environ, **environment}, cwd=ROOT, timeout=60)


@pytest.mark.parametrize("environment, probe, said", [
    ({"OTEL_TRACES_EXPORTER": "zipkin"}, "",
     'OTEL_TRACES_EXPORTER is "zipkin", which turngate cannot send to; it sends to "otlp", "console" or "none".'),
    ({}, "sys.modules['opentelemetry.sdk.trace'] = None  # as where the SDK is not installed",
     "the OTLP set-up needs the OpenTelemetry SDK, which is not installed: pip install 'turngate[otel]'."),
])
def test_opentelemetry_that_cannot_be_set_up_is_one_sentence_and_exit_2_before_any_server_starts(
        tmp_path, environment, probe, said):
    marker = tmp_path / "started"
    done = run_proxy(["--otel", "--steps", str(tmp_path / "steps.jsonl")], environment, marker, probe)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"turngate proxy: {said}\n")
    assert not marker.exists()


IMPORTED = ("print(sorted({name for name in sys.modules if name.startswith(('opentelemetry', 'turngate.turn.telemetry', "
            "'turngate.turn.otlp'))}))")


def test_without_otel_the_proxy_runs_without_importing_anything_of_opentelemetry(tmp_path):
    marker = tmp_path / "started"
    program_end = f"import atexit\natexit.register(lambda: {IMPORTED})"
    plain = run_proxy([], {}, marker, program_end)
    assert (plain.returncode, plain.stdout, plain.stderr) == (0, "[]\n", "") and marker.exists()
    exported = run_proxy(["--otel"], {"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"},
                         tmp_path / "again", program_end)
    assert exported.returncode == 0 and "'turngate.turn.otlp'" in exported.stdout
