"""A mismatch's facts beside its sentence: code, path, what the schema expects (its keyword
and value) and what was sent (as the message quotes it), read when asked for, the same
whether the finding was worded at compile time or as it was found, and in `--json`."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import turngate
from conftest import EXAMPLES
from turngate.check.convert import from_data, to_data
from turngate.cli import main
from turngate.kinds import verdict as verdict_module
from turngate.kinds.mismatch_facts import SENT_WIDTH
from turngate.kinds.verdict import Mismatch
from turngate.table.vocabulary import MESSAGE_TEXTS
from test_made_findings import walked

TABLES = ("adr246", "strict", "extended")
SCHEMA = {
    "type": "object", "required": ["uid", "title"], "additionalProperties": False,
    "properties": {"uid": {"type": "integer"}, "title": {"type": "string"}, "tags": {"type": ["array", "integer"]},
                   "status": {"enum": ["draft", "review"]}, "items": {"type": "array", "items": {"type": "integer"}},
                   "either": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}},
}


def facts(schema: object, value: object, table: str = "adr246") -> list[dict]:
    return [mismatch.facts() for mismatch in turngate.compile_schema(schema, table).check(value).mismatches]


def test_each_code_says_what_the_schema_expects_and_what_was_sent():
    found = facts(SCHEMA, {"uid": [1], "title": None, "tags": {}, "status": "x" * 60, "items": [1, {}],
                           "extra": 5})
    assert found == [
        {"code": "null", "path": ["title"], "expected": {"keyword": "type", "value": "string"}, "sent": "null"},
        {"code": "kind", "path": ["uid"], "expected": {"keyword": "type", "value": "integer"}, "sent": None},
        {"code": "kind", "path": ["tags"], "expected": {"keyword": "type", "value": ["array", "integer"]},
         "sent": None},
        {"code": "enum", "path": ["status"], "expected": {"keyword": "enum", "value": ["draft", "review"]},
         "sent": '"' + "x" * 37 + '…"'},
        {"code": "kind", "path": ["items", 1], "expected": {"keyword": "type", "value": "integer"}, "sent": None},
        {"code": "additional", "path": ["extra"], "expected": {"keyword": "additionalProperties", "value": False},
         "sent": None},
    ]
    assert facts(SCHEMA, {})[0] == {"code": "missing", "path": ["uid"],
                                    "expected": {"keyword": "required", "value": "uid"}, "sent": None}


def test_a_union_expects_the_types_of_its_branches_and_several_types_a_list():
    assert facts(SCHEMA, {"uid": 1, "title": "t", "either": []}, "extended") == [
        {"code": "kind", "path": ["either"], "expected": {"keyword": "type", "value": ["integer", "boolean"]},
         "sent": None}]
    assert facts(SCHEMA, {"uid": 1, "title": "t", "tags": "many"}, "strict") == [
        {"code": "kind", "path": ["tags"], "expected": {"keyword": "type", "value": ["array", "integer"]},
         "sent": '"many"'}]


def test_sent_is_the_text_the_message_quotes():
    assert SENT_WIDTH == MESSAGE_TEXTS["sent"]
    compiled = turngate.compile_schema({"properties": {"n": {"type": "integer"}, "e": {"enum": [1]}}}, "strict")
    for value in ("abc", "é" * 80, 2.5, 10 ** 60, True, "line\nbreak"):
        for mismatch in compiled.check({"n": value, "e": value}).mismatches:
            assert mismatch.sent is not None and mismatch.sent in mismatch.message, (value, mismatch)


def test_a_host_code_has_no_expected_keyword(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES / "writing_a_rule"))
    import max_length  # noqa: F401  (registers the rule kind "max-length")
    table = turngate.load_table(EXAMPLES / "writing_a_rule" / "host.rules")
    mismatch, = turngate.compile_schema({"properties": {"title": {"maxLength": 3}}}, table).check(
        {"title": "abcdef"}).mismatches
    assert (mismatch.code, mismatch.expected, mismatch.sent) == ("too-long", None, None)
    assert mismatch.facts() == {"code": "too-long", "path": ["title"], "expected": None, "sent": None}


FLAT_TYPES = st.sampled_from(["string", "integer", "number", "boolean", "array", "object", "null"])
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=2), inner, max_size=2),
                    max_leaves=4)


@settings(max_examples=150, deadline=None)
@given(table=st.sampled_from(TABLES), types=st.dictionaries(st.sampled_from("abcd"), FLAT_TYPES),
       required=st.lists(st.sampled_from("abcde"), unique=True), arguments=st.dictionaries(st.sampled_from("abcdx"), JSON))
def test_findings_worded_at_compile_time_have_the_facts_the_walk_gives(table, types, required, arguments):
    """At the root, a missing argument or a list or an object sent where its property admits
    neither is worded when the schema is compiled: its facts are the ones a walk finds."""
    schema = {"type": "object", "properties": {name: {"type": kind} for name, kind in types.items()},
              "required": required}
    compiled = turngate.compile_schema(schema, table)
    assert [m.facts() for m in compiled.check(arguments).mismatches] == \
        [m.facts() for m in walked(compiled, arguments).mismatches]


def test_facts_are_read_when_asked_for_never_while_checking(monkeypatch):
    read = []
    real = verdict_module.expected_of
    monkeypatch.setattr(verdict_module, "expected_of", lambda *a: read.append(1) or real(*a))
    compiled = turngate.compile_schema(SCHEMA)
    verdict = compiled.check({"uid": [], "title": "t", "status": "x"})
    assert not verdict.ok and read == []
    assert verdict.mismatches[0].expected == {"keyword": "type", "value": "integer"} and read == [1]


def test_findings_worded_at_compile_time_share_their_facts():
    compiled = turngate.compile_schema({"type": "object", "required": ["a", "b"],
                                        "properties": {"a": {"type": "string"}, "b": {"type": "string"}}})
    first, second = compiled.check({}).mismatches
    assert first.reported is second.reported


def test_the_json_of_a_mismatch_holds_its_facts_and_reads_back():
    verdict = turngate.compile_schema(SCHEMA).check({"uid": "x", "title": "t", "status": "gone"})
    data = json.loads(json.dumps(to_data(verdict)))
    assert data["mismatches"][0] == {"path": ["status"], "code": "enum",
                                     "message": '"status" must be one of "draft", "review", but "gone" was sent.',
                                     "expected": {"keyword": "enum", "value": ["draft", "review"]}, "sent": '"gone"'}
    again = from_data(data, turngate.Verdict)
    assert again == verdict and [m.facts() for m in again.mismatches] == [m.facts() for m in verdict.mismatches]
    assert to_data(again) == data


def test_mismatches_are_equal_by_what_they_say_and_verdicts_stay_hashable():
    said = Mismatch(("a",), "kind", "It is wrong.", {"types": ("integer",), "value": "x"})
    assert said == Mismatch(("a",), "kind", "It is wrong.") and hash(said) == hash(Mismatch(("a",), "kind", "It is wrong."))
    assert said != Mismatch(("b",), "kind", "It is wrong.")
    verdicts = {turngate.compile_schema(SCHEMA).check({}), turngate.compile_schema(SCHEMA).check({})}
    assert len(verdicts) == 1
    with pytest.raises(TypeError):
        turngate.compile_schema({"anyOf": [{}]}).check(1).unjudged["anyOf"] = 0  # type: ignore[index]


def test_check_json_writes_the_facts(capfd, snapshot):
    status = main(["check", str(EXAMPLES / "create_content_element_draft.schema.json"),
                   str(EXAMPLES / "create_content_element_draft.bad.json"), "--json"])
    out, _ = capfd.readouterr()
    assert status == 1 and all(set(m) == {"path", "code", "message", "expected", "sent"}
                               for m in json.loads(out)["mismatches"])
    assert out == snapshot


# ── Run steps keep the facts; metadata-only keeps no argument name and no value sent ──────

def test_a_refused_calls_step_keeps_its_facts_and_metadata_only_drops_the_model_s_text():
    toolset = turngate.Toolset({"save": SCHEMA})
    verdict = turngate.check_turn([{"id": "c1", "tool": "save", "arguments": {"uid": 1, "title": "t",
                                                                               "status": "secret", "leak": 1}}], toolset)
    full, = turngate.refused_steps(verdict, 1)
    assert full.facts == (
        {"code": "enum", "path": ["status"], "expected": {"keyword": "enum", "value": ["draft", "review"]},
         "sent": '"secret"'},
        {"code": "additional", "path": ["leak"], "expected": {"keyword": "additionalProperties", "value": False},
         "sent": None})
    private, = turngate.refused_steps(verdict, 1, "metadata-only")
    assert private.facts == ({"code": "enum", "expected": {"keyword": "enum", "value": ["draft", "review"]}},
                             {"code": "additional", "expected": {"keyword": "additionalProperties", "value": False}})
    written = io.StringIO()
    turngate.dump_steps([private], written)
    assert "secret" not in written.getvalue() and "leak" not in written.getvalue()
    (loaded,), broken = turngate.load_steps(written.getvalue().splitlines())
    assert broken == [] and loaded.facts == private.facts


def test_a_step_without_mismatches_is_written_as_before():
    step = turngate.RunStep(1, 1, "save", "ok")
    written = io.StringIO()
    turngate.dump_steps([step], written)
    assert "facts" not in json.loads(written.getvalue())
    assert turngate.load_steps(['{"turn": 1, "index": 1, "tool": "t", "status": "refused", "facts": 3}'])[1] == [
        (1, 'line 1 is not a run step: "facts" must be a list of objects, not 3.')]
