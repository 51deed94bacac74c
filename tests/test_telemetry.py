"""Telemetry (turngate.Telemetry): each decided turn reported to OpenTelemetry when asked, as
a span with an event per call and three counters, read back with the SDK's in-memory
exporters; what the model sent kept only at privacy "full"; and with telemetry off, nothing of
OpenTelemetry imported and every decision the same."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace import TracerProvider

import scenario as s
from telemetry_support import CLEAN_STEPS, Emitted, assert_scenario_reported, turn
from turngate import Call, Telemetry, TelemetryError, Toolset, check_turn, formats

TOOLS = Toolset(s.SCHEMAS)


def calls(turn_of_the_scenario) -> list[Call]:
    return [Call(*call) for call in turn_of_the_scenario]


def decide_the_scenario(telemetry: Telemetry) -> list:
    return [check_turn(calls(turn_), TOOLS, telemetry=telemetry)
            for turn_ in (s.REFUSED_TURN, s.BROKEN_TURN, s.CLEAN_TURN, [])]


def test_each_decided_turn_is_a_span_with_an_event_per_call_and_counted():
    emitted = Emitted()
    decide_the_scenario(emitted.telemetry.for_gate("host"))
    assert_scenario_reported(emitted, "host")


def test_without_a_gate_name_no_gate_attribute_is_set():
    emitted = Emitted()
    check_turn(calls(s.CLEAN_TURN), TOOLS, telemetry=emitted.telemetry)
    attributes, _ = turn("-", CLEAN_STEPS)
    del attributes["turngate.gate"]
    assert emitted.turns()[0][0] == attributes
    assert emitted.points("turngate.turns") == {frozenset({("turngate.turn.outcome", "accepted")}): 1}


def test_at_full_privacy_the_call_ids_the_answers_and_a_made_up_tool_name_are_on_the_span_only():
    emitted = Emitted(privacy="full")
    check_turn(calls(s.BROKEN_TURN), TOOLS, telemetry=emitted.telemetry)
    (attributes, events), = emitted.turns()
    answers = s.turngate_answers(s.BROKEN_TURN)
    assert [(e["gen_ai.tool.call.id"], e["gen_ai.tool.name"], e["turngate.call.answer"]) for e in events] == [
        ("call_5", "get_page", answers["call_5"]), ("call_6", "get_pages", answers["call_6"]),
        ("call_7", "get_page", answers["call_7"])]
    assert attributes["turngate.turn.tool_names"] == ("get_page", "get_pages", "get_page")
    # A counter never takes the model's own name for a tool: a series per invented name.
    assert frozenset({("turngate.code", "unknown-tool")}) in emitted.points("turngate.codes")
    assert not any(("gen_ai.tool.name", "get_pages") in point for point in emitted.points("turngate.calls"))


def test_at_metadata_only_nothing_the_model_sent_is_emitted():
    emitted = Emitted()
    check_turn([Call("id-SECRET", "update_page_metadata", {"uid": 42, "title": "SECRET", "status": "SECRET"}),
                Call("id-other", "SECRET_TOOL", {})], TOOLS, telemetry=emitted.telemetry)
    (span,) = emitted.spans()
    emitted_text = repr([span.attributes, [event.attributes for event in span.events]])
    emitted_text += repr(list(emitted.points("turngate.calls")) + list(emitted.points("turngate.codes")))
    assert "update_page_metadata" in emitted_text and "enum" in emitted_text and "unknown-tool" in emitted_text
    assert "SECRET" not in emitted_text and "id-" not in emitted_text


def test_a_turn_with_no_call_is_not_reported():
    emitted = Emitted()
    assert check_turn([], TOOLS, telemetry=emitted.telemetry).ok
    assert emitted.spans() == [] and emitted.points("turngate.turns") == {}


def test_the_span_is_a_child_of_the_hosts_current_span_and_spans_the_decision():
    emitted = Emitted()
    tracer = emitted.tracer_provider.get_tracer("host")
    with tracer.start_as_current_span("run") as run:
        check_turn(calls(s.REFUSED_TURN), TOOLS, telemetry=emitted.telemetry)
    (span,) = emitted.spans()
    assert span.parent.span_id == run.get_span_context().span_id
    assert span.context.trace_id == run.get_span_context().trace_id
    assert run.start_time <= span.start_time <= span.end_time <= run.end_time


def test_a_turn_that_is_not_a_turn_raises_as_before_and_reports_nothing():
    emitted = Emitted()
    with pytest.raises(TypeError, match="check_turn takes the turn's calls"):
        check_turn({"id": "a"}, TOOLS, telemetry=emitted.telemetry)
    assert emitted.spans() == []


def test_a_format_gate_and_a_toolset_made_on_the_fly_report_too():
    emitted = Emitted()
    message = {"role": "assistant", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_page", "arguments": '{"uid": 42}'}}]}
    verdict = check_turn(formats.FORMATS["openai"].calls(message), s.SCHEMAS, telemetry=emitted.telemetry)
    assert not verdict.ok  # "language" is missing
    assert emitted.turns()[0][1] == [{"turngate.call.outcome": "refused", "gen_ai.tool.name": "get_page",
                                      "error.type": "arguments", "turngate.call.codes": ("missing",)}]


@pytest.mark.parametrize("privacy", ["metadata-only", "full"])
def test_a_call_let_through_unjudged_is_a_turn_of_its_own_with_the_outcome_unjudged(privacy):
    """As `turngate proxy` reports a call it had no schema for: its tool's name kept as a
    run step keeps it (an unlisted one at full only), its id at full only."""
    emitted = Emitted(privacy=privacy)
    telemetry = emitted.telemetry.for_gate("proxy")
    telemetry.unjudged("get_page", True, 7)
    telemetry.unjudged("SECRET_TOOL", False, "id-SECRET")
    full = privacy == "full"
    assert emitted.turns() == [
        ({"turngate.gate": "proxy", "turngate.turn.outcome": "unjudged", "turngate.turn.call_count": 1,
          "turngate.turn.tool_names": (tool,) if tool else ()},
         [{"turngate.call.outcome": "unjudged", **({"gen_ai.tool.name": tool} if tool else {}),
           **({"gen_ai.tool.call.id": call_id} if full else {})}])
        for tool, call_id in (("get_page", "7"), ("SECRET_TOOL" if full else None, "id-SECRET"))]
    g = ("turngate.gate", "proxy")
    assert emitted.points("turngate.turns") == {frozenset({g, ("turngate.turn.outcome", "unjudged")}): 2}
    assert emitted.points("turngate.calls") == {
        frozenset({g, ("gen_ai.tool.name", "get_page"), ("turngate.call.outcome", "unjudged")}): 1,
        frozenset({g, ("turngate.call.outcome", "unjudged")}): 1}
    assert emitted.points("turngate.codes") == {}


def test_the_privacy_is_checked_when_the_telemetry_is_made():
    with pytest.raises(ValueError, match='telemetry privacy is "full" or "metadata-only", not \'all\''):
        Telemetry(privacy="all")


def test_gates_share_one_telemetrys_instruments():
    telemetry = Telemetry(TracerProvider())
    assert telemetry.for_gate("mcp").instruments is telemetry.instruments
    assert telemetry.for_gate("mcp").gate == "mcp" and telemetry.gate is None


ARGUMENTS = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                         lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                         max_leaves=6)
TURNS = st.lists(st.tuples(st.sampled_from(["call_1", "call_2", "call_3"]),
                           st.sampled_from(["get_page", "update_page_metadata", "get_pages"]),
                           st.dictionaries(st.sampled_from(["uid", "language", "title", "status"]), ARGUMENTS,
                                           max_size=4) | st.text(max_size=8)),
                 max_size=4)


@settings(max_examples=150, deadline=None)
@given(TURNS)
def test_telemetry_never_changes_a_decision_and_reports_each_call_once(turn_):
    emitted = Emitted()
    plain = check_turn(calls(turn_), TOOLS)
    reported = check_turn(calls(turn_), TOOLS, telemetry=emitted.telemetry)
    assert reported == plain
    if not turn_:
        assert emitted.spans() == []
        return
    (attributes, events), = emitted.turns()
    assert attributes["turngate.turn.outcome"] == ("accepted" if plain.ok else "refused")
    assert len(events) == attributes["turngate.turn.call_count"] == (len(plain.calls) if plain.ok else len(plain.answers))
    assert sum(emitted.points("turngate.calls").values()) == len(events)


IMPORTED = "sorted({name.split('.')[0] for name in sys.modules if name.startswith('opentelemetry')})"


def test_without_telemetry_a_gated_turn_imports_no_opentelemetry_module():
    program = ("import sys, turngate, turngate.integrations\n"
               "from turngate import Call, check_turn, formats, Loop\n"
               f"tools = {s.SCHEMAS!r}\n"
               f"check_turn([Call(*call) for call in {s.REFUSED_TURN!r}], tools)\n"
               f"check_turn([Call(*call) for call in {s.CLEAN_TURN!r}], tools)\n"
               f"print({IMPORTED})\n"
               "from turngate import Telemetry\n"
               "# OpenTelemetry's own global providers, where no SDK is set up: they report nothing.\n"
               f"print(check_turn([Call(*call) for call in {s.REFUSED_TURN!r}], tools, telemetry=Telemetry()).ok)\n"
               f"print({IMPORTED})\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["[]", "False", "['opentelemetry']"] and done.stderr == ""


def test_without_opentelemetry_installed_every_gate_decides_as_before():
    program = ("import sys\n"
               "sys.modules['opentelemetry'] = None  # as if not installed\n"
               "import turngate, turngate.integrations\n"
               "from turngate import Call, check_turn\n"
               f"tools = {s.SCHEMAS!r}\n"
               f"print([answer.codes for answer in check_turn([Call(*call) for call in {s.REFUSED_TURN!r}], tools).answers])\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[(), ('missing', 'enum')]"


def test_telemetry_asked_for_without_opentelemetry_installed_says_what_to_install():
    program = ("import sys\n"
               "sys.modules['opentelemetry'] = None  # as if not installed\n"
               "from turngate import Telemetry, TelemetryError\n"
               "try:\n"
               "    Telemetry()\n"
               "except TelemetryError as error:\n"
               "    print(error)\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ("telemetry needs the OpenTelemetry API, which is not installed: "
                                   "pip install 'turngate[otel]'.")
    assert issubclass(TelemetryError, RuntimeError)
