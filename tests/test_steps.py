"""Run steps: JSON lines both ways, two privacy levels, and the timeline and stats commands."""

from __future__ import annotations

import io
import json
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES
from turngate import Call, check_turn
from turngate.cli import main
from turngate.turn.steps import RunStep, dump_steps, load_steps, refused_steps

STEPS = EXAMPLES / "steps.jsonl"
METADATA = EXAMPLES / "steps.metadata-only.jsonl"


def test_steps_round_trip_through_json_lines():
    steps, broken = load_steps(STEPS.read_text().splitlines())
    assert broken == [] and len(steps) == 8
    out = io.StringIO()
    dump_steps(steps, out)
    assert out.getvalue() == STEPS.read_text()


def test_metadata_only_keeps_tool_status_refusal_and_codes_and_nothing_else():
    full, _ = load_steps(STEPS.read_text().splitlines())
    kept, _ = load_steps(METADATA.read_text().splitlines())
    assert [(s.tool, s.status, s.tool_refusal, s.codes) for s in kept] == \
        [(s.tool, s.status, s.tool_refusal, s.codes) for s in full]
    assert all(s.text is None and s.call_id is None and s.privacy == "metadata-only" for s in kept)


def test_a_broken_line_is_reported_with_its_number_and_the_rest_is_read():
    lines = STEPS.read_text().splitlines()
    lines[2] = '{"turn": 1, "index": 3, "tool": "x"'
    lines.insert(4, '{"turn": 1, "index": 3, "tool": "x", "status": "exploded"}')
    steps, broken = load_steps(lines)
    assert len(steps) == 7
    assert [number for number, _ in broken] == [3, 5]
    assert broken[0][1].startswith("line 3 is not valid JSON")
    # The library says why as the command line does: no converter's wording.
    assert broken[1][1] == ('line 5 is not a run step: "status" must be one of "ok", "failed", "refused", '
                            '"not-run", "declined", not "exploded".')


marker = "\u2603"
sent_text = st.text(alphabet=string.ascii_letters + "\n\"\\{}" + marker, min_size=1, max_size=12).map(lambda t: marker + t)
sent_values = st.recursive(
    sent_text | st.floats(allow_nan=False).map(lambda f: f) | st.booleans(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(sent_text, inner, max_size=3),
    max_leaves=8)
TOOL_SCHEMA = {"type": "object", "required": ["uid"], "additionalProperties": False,
               "properties": {"uid": {"type": "integer"}, "tags": {"type": "array", "items": {"enum": ["a"]}},
                              "fields": {"type": "object", "properties": {"title": {"type": "string"}}}}}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arguments=st.lists(st.dictionaries(st.sampled_from(["uid", "tags", "fields", "title"]) | sent_text,
                                          sent_values, max_size=4)
                          | sent_text.map(lambda t: '{"uid": "' + t) | sent_text,
                          min_size=1, max_size=4))
def test_no_sent_value_ever_appears_in_a_metadata_only_record(arguments):
    calls = [Call(f"call_{i}", "update" if i % 2 == 0 else "updte", value) for i, value in enumerate(arguments)]
    verdict = check_turn(calls, {"update": TOOL_SCHEMA})
    if verdict.ok:
        return
    out = io.StringIO()
    dump_steps(refused_steps(verdict, 1, "metadata-only"), out)
    assert marker not in out.getvalue() and "\\u2603" not in out.getvalue()
    full = io.StringIO()
    dump_steps(refused_steps(verdict, 1, "full"), full)
    assert any(s.text for s in load_steps(full.getvalue().splitlines())[0])


def run(capfd, *argv):
    status = main(list(argv))
    out, err = capfd.readouterr()
    return status, out, err


def test_the_timeline(capfd, snapshot):
    status, out, err = run(capfd, "timeline", str(STEPS))
    assert (status, err) == (0, "")
    assert out.splitlines()[2].split() == ["1", "2", "update_page_metadata", "refused", "arguments",
                                           "enum,", "missing,", "additional"]
    assert run(capfd, "timeline", str(METADATA))[1] == out
    assert out == snapshot


def test_the_stats_by_tool_and_by_code(capfd, snapshot):
    by_tool = run(capfd, "stats", str(STEPS))[1]
    assert run(capfd, "stats", str(METADATA))[1] == by_tool
    assert by_tool.splitlines()[-1].split() == ["all", "8", "3", "1", "12.5", "%", "3", "2", "0"]
    by_code = run(capfd, "stats", str(STEPS), "--by", "code")[1]
    assert by_code.splitlines()[-1].split() == ["all", "5", "3"]
    assert {"by tool": by_tool, "by code": by_code} == snapshot


def test_the_stats_as_json(capfd):
    status, out, _ = run(capfd, "stats", str(METADATA), "--json")
    data = json.loads(out)
    assert status == 0 and data["unreadable_lines"] == []
    assert data["total"] == {"calls": 8, "ran": 3, "failed": 1, "failure_rate": 0.125,
                             "refused_arguments": 3, "not_run_turn": 2, "declined": 0}
    assert data["rows"][0]["tool"] == "get_page"


def test_stats_report_a_broken_line_and_count_the_rest(capfd, tmp_path):
    records = tmp_path / "steps.jsonl"
    lines = STEPS.read_text().splitlines()
    records.write_text("\n".join([lines[0], "not json", *lines[1:]]) + "\n")
    status, out, err = run(capfd, "stats", str(records), "--json")
    assert status == 1
    assert err == f'turngate: line 2 of the steps file "{records}" is not valid JSON: expecting value at column 1.\n'
    assert json.loads(out)["total"]["calls"] == 8 and json.loads(out)["unreadable_lines"] == [2]


def test_a_missing_record_file_is_unusable(capfd, tmp_path):
    assert run(capfd, "timeline", str(tmp_path / "none.jsonl")) == (
        2, "", f'turngate: the steps file "{tmp_path / "none.jsonl"}" does not exist.\n')


def test_a_step_with_an_unknown_privacy_level_is_refused():
    import pytest
    with pytest.raises(ValueError, match="privacy is one of"):
        RunStep(1, 1, "x", "ok", privacy="secret")


# ── Wrong record files: plain sentences, the first few told and the rest counted ─────────

GOOD_STEP = {"turn": 1, "index": 1, "tool": "get_page", "status": "ok"}


@pytest.mark.parametrize("record, reason", [
    ({"index": 1, "tool": "x", "status": "ok"}, '"turn" is missing.'),
    ({"tool": "x"}, '"turn", "index" and "status" are missing.'),
    ({**GOOD_STEP, "turn": "1"}, '"turn" must be an integer, not "1".'),
    ({**GOOD_STEP, "index": 1.5}, '"index" must be an integer, not 1.5.'),
    ({**GOOD_STEP, "turn": True}, '"turn" must be an integer, not true.'),
    ({**GOOD_STEP, "tool": 5}, '"tool" must be text or null, not 5.'),
    ({**GOOD_STEP, "status": "exploded"},
     '"status" must be one of "ok", "failed", "refused", "not-run", "declined", not "exploded".'),
    ({**GOOD_STEP, "tool_refusal": "later"}, '"tool_refusal" must be one of null, "arguments", "turn", not "later".'),
    ({**GOOD_STEP, "codes": "enum"}, '"codes" must be a list of text, not "enum".'),
    ({**GOOD_STEP, "codes": ["enum", 2]}, '"codes" must be a list of text, but item 2 is 2.'),
    ({**GOOD_STEP, "call_id": [1]}, '"call_id" must be text, an integer or null, not a list.'),
    ({**GOOD_STEP, "privacy": "secret"}, '"privacy" must be one of "full", "metadata-only", not "secret".'),
    ([1, 2], "it is a list, not a JSON object."),
])
def test_a_line_that_is_not_a_step_is_told_in_a_plain_sentence(capfd, tmp_path, record, reason):
    records = tmp_path / "steps.jsonl"
    records.write_text(json.dumps(GOOD_STEP) + "\n" + json.dumps(record) + "\n")
    for command in ("timeline", "stats"):
        status, _, err = run(capfd, command, str(records))
        assert status == 1
        assert err == f'turngate: line 2 of the steps file "{records}" is not a run step: {reason}\n'
        assert "@" not in err and "step." not in err  # none of cattrs' own wording


def test_a_hostile_value_in_a_record_is_quoted_and_escaped(capfd, tmp_path):
    records = tmp_path / "steps.jsonl"
    records.write_text(json.dumps(GOOD_STEP) + "\n" + json.dumps({**GOOD_STEP, "status": "ok\n\x1b[31mred" + "x" * 80}))
    _, _, err = run(capfd, "stats", str(records))
    assert err.count("\n") == 1 and "\x1b" not in err and '"ok\\n\\u001b[31mred' in err and "…" in err


def test_only_the_first_three_bad_lines_are_told_then_the_rest_is_counted(capfd, tmp_path):
    records = tmp_path / "steps.jsonl"
    records.write_text(STEPS.read_text() + '{"turn": 9}\n' * 20)
    for command in ("timeline", "stats"):
        status, out, err = run(capfd, command, str(records))
        assert (status, len(err.splitlines())) == (1, 4)
        assert err.splitlines()[0] == (f'turngate: line 9 of the steps file "{records}" is not a run step: '
                                       '"index", "tool" and "status" are missing.')
        assert err.splitlines()[3] == f'turngate: … and 17 more lines of the steps file "{records}" are not run steps.'
        assert out  # the steps that are there are still shown
    records.write_text(STEPS.read_text() + "[]\n" * 4)
    assert run(capfd, "stats", str(records))[2].splitlines()[-1] == (
        f'turngate: … and 1 more line of the steps file "{records}" is not a run step.')


def test_a_file_with_no_step_at_all_is_unusable_and_prints_nothing(capfd):
    corpus = EXAMPLES / "corpus.jsonl"  # the wrong file: a batch corpus, not steps
    for command in ("timeline", "stats"):
        status, out, err = run(capfd, command, str(corpus))
        assert (status, out) == (2, "")
        assert err.splitlines()[0].startswith(f'turngate: line 1 of the steps file "{corpus}" is not a run step: ')
        assert err.splitlines()[-2:] == [
            f'turngate: … and 2 more lines of the steps file "{corpus}" are not run steps.',
            f'turngate: the steps file "{corpus}" holds no run step.']


def test_the_timeline_as_json_lines_in_the_order_of_the_run(capfd):
    status, out, err = run(capfd, "timeline", str(METADATA), "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert (status, err, len(rows)) == (0, "", 8)
    assert rows[1] == {"turn": 1, "index": 2, "tool": "update_page_metadata", "status": "refused",
                       "tool_refusal": "arguments", "codes": ["enum", "missing", "additional"]}
    assert [(row["turn"], row["index"]) for row in rows] == sorted((row["turn"], row["index"]) for row in rows)
    text = run(capfd, "timeline", str(METADATA))[1].splitlines()[1:]
    assert [line.split()[3] for line in text] == [row["status"] for row in rows]


def test_a_hostile_tool_name_cannot_forge_a_timeline_line(capfd, tmp_path):
    records = tmp_path / "steps.jsonl"
    records.write_text(json.dumps({**GOOD_STEP, "tool": "x\n1     2     forged  ok\x1b[2J"}) + "\n")
    out = run(capfd, "timeline", str(records))[1]
    assert len(out.splitlines()) == 2 and "\x1b" not in out and "x\\n1     2     forged  ok\\u001b[2J" in out
    out = run(capfd, "stats", str(records))[1]
    assert len(out.splitlines()) == 3 and "\x1b" not in out
