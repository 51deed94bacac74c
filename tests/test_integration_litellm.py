"""The LiteLLM guardrail (turngate.integrations.litellm) in the real LiteLLM proxy, started on
127.0.0.1 with the docs' config (examples/gateway/config.yaml), in front of a scripted
OpenAI-compatible upstream of the test's own (tests/litellm_upstream.py), with the real
`openai` client as the app; a second proxy with the same config but no guardrail shows what
the app gets without it. Both proxies start once for the module (each takes seconds)."""

from __future__ import annotations

import os

# No network: LiteLLM reads its model cost map from the package, not from the web, at import.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import json  # noqa: E402
import re
import time
from typing import Any, Iterator

import pytest

import litellm_support as support
import scenario as s
from litellm_upstream import Reply, ScriptedUpstream, turn
from telemetry_support import CLEAN_STEPS, Emitted, assert_reported, counted
from test_otlp import Receiver, attribute
from turngate import RunStep, load_steps

TOOLS = [{"type": "function", "function": {"name": name, "description": name, "parameters": schema}}
         for name, schema in s.SCHEMAS.items()]
MESSAGES = [{"role": "system", "content": "You edit pages."}, {"role": "user", "content": s.USER_TEXT}]
#: What the app sends beside the messages: each corrective request must send them again.
PARAMS: dict[str, Any] = {"tools": TOOLS, "tool_choice": "auto", "parallel_tool_calls": True, "temperature": 0.25,
                          "top_p": 0.9, "max_tokens": 300, "seed": 7, "response_format": {"type": "text"}}
MODES = ["plain", "streamed"]
GATEWAY_DOC = support.ROOT / "docs" / "gateway.md"


@pytest.fixture(scope="module")
def upstream() -> Iterator[ScriptedUpstream]:
    server = ScriptedUpstream()
    yield server
    server.close()


@pytest.fixture(scope="module")
def collector() -> Iterator[Receiver]:
    """An OTLP/HTTP receiver on 127.0.0.1, for the proxy that reports to OpenTelemetry."""
    receiver = Receiver()
    yield receiver
    receiver.server.shutdown()


@pytest.fixture(scope="module")
def proxies(upstream: ScriptedUpstream, collector: Receiver,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, support.Proxy]]:
    folder = tmp_path_factory.mktemp("litellm")
    with support.proxies(folder, upstream.base_url, gated=support.CONFIG,
                         plain=support.config_without_guardrail(folder), traced=support.config_with_telemetry(folder),
                         variables={"traced": support.otel_variables(collector.endpoint)}) as started:
        yield started


def ask(proxy: support.Proxy, mode: str, **more: Any) -> dict[str, Any]:
    """The app's request through `proxy`: the message it gets (its text, and its tool calls as
    `(id, name, arguments)`), and what it received (the response, or every chunk) as data."""
    with support.client(proxy) as app:
        return asked(app, mode, PARAMS | more)


def asked(app: Any, mode: str, options: dict[str, Any]) -> dict[str, Any]:
    if mode == "plain":
        response = app.chat.completions.create(model=support.MODEL, messages=MESSAGES, **options)
        message = response.choices[0].message
        calls = [(call.id, call.function.name, call.function.arguments) for call in message.tool_calls or ()]
        return {"text": message.content, "calls": calls, "received": response.model_dump(),
                "usage": response.usage.model_dump(exclude_none=True)}
    chunks = list(app.chat.completions.create(model=support.MODEL, messages=MESSAGES, stream=True,
                                              stream_options={"include_usage": True}, **options))
    return streamed_message(chunks)


def streamed_message(chunks: list[Any]) -> dict[str, Any]:
    text, calls, usage = [], {}, {}
    for chunk in chunks:
        usage = chunk.usage.model_dump(exclude_none=True) if getattr(chunk, "usage", None) else usage
        for choice in chunk.choices:
            text.append(choice.delta.content or "")
            for delta in choice.delta.tool_calls or ():
                call = calls.setdefault(delta.index, ["", "", ""])
                call[0] += delta.id or ""
                call[1] += delta.function.name or ""
                call[2] += delta.function.arguments or ""
    received = [chunk.model_dump() for chunk in chunks]
    return {"text": "".join(text) or None, "calls": [tuple(calls[index]) for index in sorted(calls)],
            "received": received, "usage": usage, "finish": [c["finish_reason"] for r in received for c in r["choices"]
                                                             if c["finish_reason"]]}


def calls_of(script_turn: list[tuple[str, str, object]]) -> list[tuple[str, str, str]]:
    return [(call_id, tool, s.raw(arguments)) for call_id, tool, arguments in script_turn]


def sent_answers(request: dict[str, Any]) -> dict[str, str]:
    """The tool messages a request ends with, by call id."""
    answers = {}
    for message in reversed(request["messages"]):
        if message["role"] != "tool":
            break
        answers[message["tool_call_id"]] = message["content"]
    return dict(reversed(answers.items()))


def new_steps(proxy: support.Proxy, before: int) -> list[RunStep]:
    path = proxy.folder / "turngate-steps.jsonl"
    steps, broken = load_steps(path.read_text().splitlines() if path.exists() else [])
    assert broken == []
    return steps[before:]


def steps_count(proxy: support.Proxy) -> int:
    return len(new_steps(proxy, 0))


@pytest.mark.parametrize("mode", MODES)
def test_a_refused_turn_is_answered_to_the_model_and_the_app_gets_the_corrected_one(proxies, upstream, mode):
    before = steps_count(proxies["gated"])
    upstream.script(turn(s.REFUSED_TURN, text="Let me look."), turn(s.CLEAN_TURN, text="Trying again."))
    got = ask(proxies["gated"], mode)
    assert got["calls"] == calls_of(s.CLEAN_TURN)
    first, second = upstream.requests
    assert second["messages"][:len(MESSAGES)] == MESSAGES
    refused = second["messages"][len(MESSAGES)]
    assert refused["role"] == "assistant"
    assert [(call["id"], call["function"]["name"], call["function"]["arguments"]) for call in refused["tool_calls"]] \
        == calls_of(s.REFUSED_TURN)
    # One answer per call id, turngate's own texts, right after the refused turn.
    assert sent_answers(second) == s.turngate_answers(s.REFUSED_TURN)
    assert len(second["messages"]) == len(MESSAGES) + 1 + len(s.REFUSED_TURN)
    resent = {key: value for key, value in second.items() if key != "messages"}
    assert resent == {key: value for key, value in first.items() if key != "messages"}
    assert {key: first[key] for key in PARAMS if key != "tools"} == {key: value for key, value in PARAMS.items()
                                                                     if key != "tools"}
    # The tokens of both rounds are counted in the usage the app gets.
    assert got["usage"]["total_tokens"] == 2 * 18
    assert [(step.turn, step.tool, step.status, step.codes) for step in new_steps(proxies["gated"], before)] == \
        [(1, tool, status, codes) for tool, status, _, codes in s.REFUSED_STEPS]
    if mode == "streamed":
        # The first round's text went out as it came; only the fitting round's calls follow.
        assert got["text"] == "Let me look."
        assert got["finish"] == ["tool_calls"]


@pytest.mark.parametrize("mode", MODES)
def test_when_the_rounds_are_spent_the_app_gets_text_and_no_call(proxies, upstream, mode):
    upstream.script(*[turn(s.REFUSED_TURN)] * 3, turn(s.CLEAN_TURN))
    got = ask(proxies["gated"], mode)
    assert got["calls"] == []
    assert len(upstream.requests) == 3  # the default: two corrective rounds
    # Each round answers the turn before it: the conversation grows by a turn and its answers.
    assert [len(request["messages"]) for request in upstream.requests] == [2, 5, 8]
    answers = s.turngate_answers(s.REFUSED_TURN)
    assert got["text"] == "\n".join([
        "turngate: the model's tool calls did not fit the tools' schemas, so none was returned: "
        "all 2 corrective rounds were spent.", "The answers to its last turn:",
        *[f"[{call_id}] {text}" for call_id, text in answers.items()]])
    assert got["usage"]["total_tokens"] == 3 * 18
    assert got["text"] in GATEWAY_DOC.read_text()  # the docs show this very text
    if mode == "streamed":
        assert got["finish"] == ["stop"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("failure, named", [(Reply(status=500), "InternalServerError"),
                                            (turn(s.CLEAN_TURN, delay=3), "Timeout")])
def test_a_corrective_request_that_fails_fails_closed(proxies, upstream, mode, failure, named):
    upstream.script(turn(s.REFUSED_TURN), failure, turn(s.CLEAN_TURN))
    got = ask(proxies["gated"], mode, extra_body={"timeout": 1, "num_retries": 0})
    assert got["calls"] == []
    assert got["text"].startswith("turngate: the model's tool calls did not fit the tools' schemas, so none was "
                                  f"returned: the corrective request failed ({named}).\nThe answers to its last turn:")
    assert len(upstream.requests) == 2


@pytest.mark.parametrize("mode", MODES)
def test_a_fitting_turn_costs_one_request_and_reaches_the_app_as_without_the_guardrail(proxies, upstream, mode):
    received, requests = {}, {}
    for name in ("plain", "gated"):
        upstream.script(turn(s.CLEAN_TURN, text="Here you go."))
        got = ask(proxies[name], mode)
        received[name], requests[name] = got["received"], upstream.requests[:]
    assert len(requests["gated"]) == 1
    assert requests["gated"] == requests["plain"]
    if mode == "streamed":
        # LiteLLM stamps each relayed stream with the time it relays it.
        for chunks in received.values():
            for chunk in chunks:
                chunk.pop("created")
    assert received["gated"] == received["plain"]


@pytest.mark.parametrize("mode", MODES)
def test_a_turn_with_no_call_passes_as_it_came(proxies, upstream, mode):
    upstream.script(turn([], text="Which page do you mean?"))
    got = ask(proxies["gated"], mode)
    assert (got["text"], got["calls"], len(upstream.requests)) == ("Which page do you mean?", [], 1)


def test_with_telemetry_in_the_config_each_round_is_a_turn_in_the_requests_trace(proxies, upstream, collector):
    """`telemetry: true` and LiteLLM's own OpenTelemetry set-up (`callbacks: ["otel"]`, the
    standard OTEL_* variables): each judged round reaches the collector as a turn, its span
    in the trace of the app's request, and the counters through LiteLLM's meter provider."""
    upstream.script(turn(s.REFUSED_TURN), turn(s.CLEAN_TURN))
    assert ask(proxies["traced"], "plain")["calls"] == calls_of(s.CLEAN_TURN)
    deadline = time.monotonic() + 30
    while len(turn_spans(collector)) < 2 or "turngate.codes" not in collector.metric_names():
        assert time.monotonic() < deadline, (len(turn_spans(collector)), collector.metric_names())
        time.sleep(0.1)
    turns = turn_spans(collector)
    assert [(attribute(span.attributes, "turngate.gate"), attribute(span.attributes, "turngate.turn.outcome"))
            for span in turns] == [("litellm", "refused"), ("litellm", "accepted")]
    requests = [span for _, span in collector.spans() if span.name == "POST /v1/chat/completions"]
    assert [span.trace_id for span in turns] == [requests[-1].trace_id] * 2
    # metadata-only (the guardrail's privacy): no call id, no answer text on any span.
    assert not any(event.attributes and any(item.key in ("gen_ai.tool.call.id", "turngate.call.answer")
                                            for item in event.attributes) for span in turns for event in span.events)
    assert last_points(collector, "turngate.turns") == counted("litellm", [s.REFUSED_STEPS, CLEAN_STEPS])["turngate.turns"]


def turn_spans(collector: Receiver) -> list[Any]:
    return [span for _, span in collector.spans() if span.name == "turngate turn"]


def last_points(collector: Receiver, metric: str) -> dict[frozenset, int]:
    """A counter's latest value by its attributes, as the collector received it."""
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

    found: dict[frozenset, int] = {}
    for body in collector.bodies("/v1/metrics"):
        for resource in ExportMetricsServiceRequest.FromString(body).resource_metrics:
            for scope in resource.scope_metrics:
                for point in (p for m in scope.metrics if m.name == metric for p in m.sum.data_points):
                    found[frozenset((item.key, attribute(point.attributes, item.key))
                                    for item in point.attributes)] = point.as_int
    return found


def test_the_docs_show_the_config_the_tests_start(tmp_path):
    import yaml

    shown = re.findall(r"^```yaml\n(.*?)^```", GATEWAY_DOC.read_text(), re.S | re.M)
    started = "".join(line for line in support.CONFIG.read_text().splitlines(keepends=True)
                      if not line.startswith("#")).lstrip()
    assert shown[0] == started
    # The OpenTelemetry set-up: the config the traced proxy starts with is the docs' config,
    # its telemetry on, with the settings the docs add.
    traced = yaml.safe_load(support.config_with_telemetry(tmp_path).read_text())
    added = yaml.safe_load(shown[1])
    assert len(shown) == 2 and traced == yaml.safe_load(started) | added | {"guardrails": traced["guardrails"]}
    assert traced["guardrails"][0]["litellm_params"] == yaml.safe_load(started)["guardrails"][0]["litellm_params"] | {
        "telemetry": True}


# The guardrail's options, with LiteLLM's own response objects (no upstream needed) ----------

def guardrail(**options: Any) -> Any:
    from turngate.integrations.litellm import TurnGuardrail

    return TurnGuardrail(guardrail_name="turngate", event_hook="post_call", default_on=True, **options)


def response_of(*turns: list[tuple[str, str, object]]) -> Any:
    from litellm import ModelResponse

    from litellm_upstream import completion

    choices = [completion(turn(calls), 1)["choices"][0] | {"index": index} for index, calls in enumerate(turns)]
    return ModelResponse(**(completion(turn(turns[0]), 1) | {"choices": choices}))


def chunks_of(calls: list[tuple[str, str, object]], text: str | None = None) -> list[Any]:
    from litellm.types.utils import ModelResponseStream

    from litellm_upstream import events

    return [ModelResponseStream(**event) for event in events(turn(calls, text), 1, usage=True)]


def hooked(gate: Any, response: Any, **request: Any) -> Any:
    import asyncio

    data = {"model": support.MODEL, "messages": MESSAGES, "tools": TOOLS} | request
    return asyncio.run(gate.async_post_call_success_hook(data, None, response))


def hooked_stream(gate: Any, chunks: list[Any], **request: Any) -> list[Any]:
    import asyncio

    async def run() -> list[Any]:
        async def upstream_chunks() -> Any:
            for chunk in chunks:
                yield chunk

        data = {"model": support.MODEL, "messages": MESSAGES, "tools": TOOLS, "stream": True} | request
        return [chunk async for chunk in gate.async_post_call_streaming_iterator_hook(None, upstream_chunks(), data)]

    return asyncio.run(run())


LOOSE_TURN = [("call_8", "update_page_metadata", {"uid": "42", "title": "Opening hours", "status": "Review"})]
CAST_ARGUMENTS = {"uid": 42, "title": "Opening hours", "status": "review"}


def test_with_casts_a_fitting_turn_is_returned_with_the_cast_arguments():
    assert hooked(guardrail(), response_of(LOOSE_TURN)) is None  # it fits as sent: unchanged
    cast = hooked(guardrail(casts=True), response_of(LOOSE_TURN))
    assert json.loads(cast.choices[0].message.tool_calls[0].function.arguments) == CAST_ARGUMENTS
    streamed = streamed_message(hooked_stream(guardrail(casts=True), chunks_of(LOOSE_TURN, "Done.")))
    assert streamed["text"] == "Done."
    assert [(call_id, json.loads(arguments)) for call_id, _, arguments in streamed["calls"]] == \
        [("call_8", CAST_ARGUMENTS)]


def test_run_steps_are_kept_at_the_privacy_asked_for():
    kept: list[RunStep] = []
    gate = guardrail(rounds=0, privacy="full", record=kept.append)
    answer = hooked(gate, response_of(s.REFUSED_TURN))
    assert answer.choices[0].message.tool_calls is None
    assert "no corrective round is allowed" in answer.choices[0].message.content
    assert [(step.call_id, step.text) for step in kept] == list(s.turngate_answers(s.REFUSED_TURN).items())


def test_with_n_above_one_each_choice_is_judged_and_a_refused_one_fails_closed():
    answer = hooked(guardrail(), response_of(s.CLEAN_TURN, s.REFUSED_TURN), n=2)
    fitting, refused = answer.choices
    assert [call.id for call in fitting.message.tool_calls] == ["call_3", "call_4"]
    assert refused.message.tool_calls is None and refused.finish_reason == "stop"
    assert "with n > 1 no corrective round is asked for" in refused.message.content


def test_tools_that_cannot_be_read_fail_closed():
    unnamed = [{"type": "function", "function": {"parameters": {"type": "object"}}}]
    answer = hooked(guardrail(), response_of(s.CLEAN_TURN), tools=unnamed)
    assert answer.choices[0].message.tool_calls is None
    assert answer.choices[0].message.content == (
        "turngate: the model's tool calls did not fit the tools' schemas, so none was returned: the request's "
        'tools could not be read: tools[0].function has no "name".')
    streamed = streamed_message(hooked_stream(guardrail(), chunks_of(s.CLEAN_TURN), tools=unnamed))
    assert streamed["calls"] == [] and streamed["text"] == answer.choices[0].message.content


@pytest.mark.parametrize("options, says", [
    ({"rounds": "2"}, "rounds is a whole number from 0 to 10, not '2'."),
    ({"privacy": "none"}, "privacy is \"full\" or \"metadata-only\", not 'none'."),
    ({"table": "nonesuch"}, "table 'nonesuch' cannot be used"),
    ({"round": 3}, "'round' is not an option of LiteLLM's or the guardrail's"),
    ({"telemetry": "all"}, 'telemetry is true, false, "metadata-only" or "full" (or, in Python, a turngate '
                           "Telemetry), not 'all'."),
    ({"event_hook": "pre_call"}, "mode is post_call (it judges the model's answer), not 'pre_call'."),
])
def test_an_option_that_cannot_be_used_is_one_sentence_when_the_proxy_starts(options, says):
    from turngate.integrations.litellm import OptionError, TurnGuardrail

    given = {"guardrail_name": "turngate", "event_hook": "post_call"} | options
    with pytest.raises(OptionError) as raised:
        TurnGuardrail(**given)
    assert str(raised.value).startswith("turngate guardrail: ")
    assert says in str(raised.value)


@pytest.fixture
def router(upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch) -> None:
    """LiteLLM's own router, as the proxy sets it from the config, in front of the scripted
    upstream: the guardrail's corrective rounds, in this process."""
    from litellm import Router
    from litellm.proxy import proxy_server

    monkeypatch.setattr(proxy_server, "llm_router", Router(model_list=[{"model_name": support.MODEL, "litellm_params": {
        "model": "openai/gpt-4o", "api_base": upstream.base_url, "api_key": "sk-upstream"}}]))


@pytest.mark.parametrize("mode", MODES)
def test_with_telemetry_each_judged_round_is_reported_as_a_turn(router, upstream, mode):
    """The first round and each corrective one: three turns, the last one fitting."""
    emitted = Emitted()
    gate = guardrail(telemetry=emitted.telemetry)
    upstream.script(turn(s.BROKEN_TURN), turn(s.CLEAN_TURN))
    if mode == "plain":
        answer = hooked(gate, response_of(s.REFUSED_TURN))
        assert [call.id for call in answer.choices[0].message.tool_calls] == ["call_3", "call_4"]
    else:
        assert streamed_message(hooked_stream(gate, chunks_of(s.REFUSED_TURN)))["calls"] == calls_of(s.CLEAN_TURN)
    assert len(upstream.requests) == 2
    assert_reported(emitted, "litellm", [s.REFUSED_STEPS, s.BROKEN_STEPS, CLEAN_STEPS])


def test_with_telemetry_a_fitting_turn_is_one_turn_and_a_text_answer_none():
    emitted = Emitted()
    gate = guardrail(telemetry=emitted.telemetry)
    assert hooked(gate, response_of(s.CLEAN_TURN)) is None
    assert hooked(gate, response_of([])) is None
    hooked_stream(gate, chunks_of(s.CLEAN_TURN, "Here."))
    assert_reported(emitted, "litellm", [CLEAN_STEPS, CLEAN_STEPS])


def test_with_telemetry_and_n_above_one_each_choice_is_a_turn():
    emitted = Emitted()
    hooked(guardrail(telemetry=emitted.telemetry), response_of(s.CLEAN_TURN, s.REFUSED_TURN), n=2)
    assert_reported(emitted, "litellm", [CLEAN_STEPS, s.REFUSED_STEPS])


@pytest.mark.parametrize("given, privacy", [(True, "metadata-only"), ("full", "full"), ("metadata-only", "metadata-only")])
def test_telemetry_from_the_config_reports_through_the_global_providers_at_its_level(given, privacy):
    """`telemetry: true` follows the run steps' `privacy`; a level given is its own."""
    gate = guardrail(telemetry=given, privacy="metadata-only" if given is True else "full")
    telemetry = gate.options.telemetry
    assert (telemetry.gate, telemetry.privacy, telemetry.tracer_provider, telemetry.meter_provider) == (
        "litellm", privacy, None, None)
    assert guardrail(telemetry=True, privacy="full").options.telemetry.privacy == "full"
    assert guardrail(telemetry=False).options.telemetry is None and guardrail().options.telemetry is None


def test_telemetry_without_opentelemetry_installed_is_one_sentence(monkeypatch):
    import sys

    from turngate.integrations.litellm import OptionError

    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # as where it is not installed
    with pytest.raises(OptionError) as raised:
        guardrail(telemetry=True)
    assert str(raised.value) == ("turngate guardrail: telemetry needs the OpenTelemetry API, which is not installed: "
                                 "pip install 'turngate[otel]'.")


def test_each_distinct_tool_list_is_compiled_once():
    gate = guardrail()
    for _ in range(3):
        hooked(gate, response_of(s.CLEAN_TURN))
        hooked(gate, response_of(s.CLEAN_TURN), tools=[*TOOLS][::-1])
    assert len(gate.toolsets._entries) == 2
    assert gate.toolsets.toolset(TOOLS) is gate.toolsets.toolset(json.loads(json.dumps(TOOLS)))


def test_a_stream_of_another_endpoint_passes_as_it_came():
    # LiteLLM streams /v1/messages and /v1/responses through the same hook: events, not chunks.
    events = [b"event: message_start\n", b"data: {}\n\n"]
    assert hooked_stream(guardrail(), events) == events


def test_with_n_above_one_a_stream_holds_each_choice_and_a_refused_one_fails_closed():
    from litellm.types.utils import ModelResponseStream

    from litellm_upstream import events

    def of_choice(calls: list[tuple[str, str, object]], index: int) -> list[dict[str, Any]]:
        found = events(turn(calls, "Sure."), 1, usage=False)
        for event in found:
            event["choices"][0]["index"] = index
        return found

    interleaved = [event for pair in zip(of_choice(s.CLEAN_TURN, 0), of_choice(s.REFUSED_TURN, 1)) for event in pair]
    chunks = hooked_stream(guardrail(), [ModelResponseStream(**event) for event in interleaved], n=2)
    by_choice = {index: streamed_message([chunk.model_copy(update={"choices": [
        choice for choice in chunk.choices if choice.index == index]}) for chunk in chunks]) for index in (0, 1)}
    assert by_choice[0]["calls"] == calls_of(s.CLEAN_TURN) and by_choice[0]["finish"] == ["tool_calls"]
    assert by_choice[1]["calls"] == [] and by_choice[1]["finish"] == ["stop"]
    assert by_choice[1]["text"].startswith("Sure.turngate: the model's tool calls did not fit")


def test_a_turn_that_cannot_be_read_fails_closed():
    from litellm import ModelResponse

    from litellm_upstream import completion

    data = completion(turn(s.CLEAN_TURN), 1)
    data["choices"][0]["message"]["tool_calls"] = [
        {"id": "call_9", "type": "custom", "custom": {"name": "shell", "input": "ls"}}]
    answer = hooked(guardrail(), ModelResponse(**data))
    assert answer.choices[0].message.tool_calls is None
    assert answer.choices[0].message.content.startswith(
        "turngate: the model's tool calls did not fit the tools' schemas, so none was returned: the model's turn "
        "could not be read: message.tool_calls[0] is a \"custom\" tool call")


@pytest.mark.parametrize("options, says", [
    ({"casts": "yes"}, "casts is true or false, not 'yes'."),
    ({"steps": "/nonesuch/steps.jsonl"}, "steps '/nonesuch/steps.jsonl' cannot be written: its folder does not exist."),
    ({"steps": 5}, "steps is the path of a file to append run steps to, not 5."),
    ({"record": "steps.jsonl"}, "record is a function given each run step, not str."),
])
def test_each_option_is_checked(options, says):
    from turngate.integrations.litellm import OptionError

    with pytest.raises(OptionError) as raised:
        guardrail(**options)
    assert str(raised.value) == f"turngate guardrail: {says}"


def test_the_guardrail_imports_litellm_and_turngates_public_api_only():
    import ast
    import sys

    for path in sorted((support.ROOT / "engine" / "integrations" / "litellm").glob("*.py")):
        tree = ast.parse(path.read_text())
        absolute = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 0}
        absolute |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        ours = {module for module in absolute if module.split(".")[0] == "turngate"}
        assert ours <= {"turngate", "turngate.formats"}, (path.name, ours)
        others = {module.split(".")[0] for module in absolute - ours} - set(sys.stdlib_module_names) - {"__future__"}
        assert others <= {"litellm", "attrs"}, (path.name, others)
