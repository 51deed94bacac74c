"""The fuzz target: arbitrary and hostile schemas, arguments, raw argument text, turns and
table text, under every shipped table. Nothing may raise but the documented errors, every
message stays one clean bounded sentence, and no sent text can forge a line of an answer.

Short by default (CI); long:  python -m pytest tests/test_fuzz.py --hypothesis-profile=fuzz --no-cov -n 0
"""

from __future__ import annotations

import pytest

import json
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import turngate
from turngate import Call, check_turn
from turngate.formats import FormatError, read_turn
from support import one_clean_line

#: Hundreds of generated hostile inputs per target.
pytestmark = pytest.mark.slow

TABLES = sorted(turngate.shipped_tables())
HEADERS = ("Refused:", "Not run:", "- ", "\n", "\r\n", "\u2028", "\x1b[2J", "\u202e", '"', "\\")

nasty_text = st.one_of(
    st.text(max_size=30),
    st.lists(st.sampled_from(HEADERS) | st.text(max_size=5), max_size=6).map("".join),
    st.text(alphabet=string.ascii_letters + "{}[]\":,", max_size=30),
)
numbers = st.one_of(st.integers(), st.floats(), st.integers(min_value=10 ** 5000, max_value=10 ** 5001),
                    st.sampled_from([float("nan"), float("inf"), -0.0, True, False]))
values = st.recursive(st.none() | st.booleans() | numbers | nasty_text,
                      lambda inner: st.lists(inner, max_size=4) | st.dictionaries(nasty_text, inner, max_size=4),
                      max_leaves=15)
KEYWORDS = ["type", "properties", "required", "enum", "items", "prefixItems", "additionalProperties",
            "patternProperties", "nullable", "$ref", "$defs", "anyOf", "oneOf", "allOf", "not", "if", "$id"]
TYPES = ["string", "integer", "number", "boolean", "array", "object", "null", "dict"]
schemas = st.recursive(
    values | st.sampled_from([{"type": t} for t in TYPES]) | st.sampled_from(["#", "#/$defs/a", "#/properties/x"]),
    lambda inner: st.dictionaries(st.sampled_from(KEYWORDS) | nasty_text,
                                  inner | st.lists(inner, max_size=3) | st.dictionaries(nasty_text | st.just("a"),
                                                                                          inner, max_size=3),
                                  max_size=6),
    max_leaves=30)


def assert_clean(verdict) -> None:
    assert len(verdict.mismatches) <= 10
    assert not verdict.truncated or len(verdict.mismatches) == 10
    for mismatch in verdict.mismatches:
        assert len(mismatch.message) <= 200 and mismatch.message.endswith(".")
        assert one_clean_line(mismatch.message), mismatch.message


def assert_answer_lines(text: str, verdict) -> None:
    lines = text.split("\n")
    assert len(lines) == 1 + len(verdict.mismatches) + verdict.truncated
    assert lines[0].startswith("Refused: ") and all(line.startswith("- ") for line in lines[1:])
    assert all(one_clean_line(line) for line in lines)


@settings(deadline=None, suppress_health_check=list(HealthCheck))
@given(schema=schemas, arguments=values, table=st.sampled_from(TABLES), tool=nasty_text)
def test_check_cast_and_refusal_never_raise_and_never_forge_a_line(schema, arguments, table, tool):
    compiled = turngate.compile_schema(schema, table, casts=True)
    verdict = compiled.check(arguments)
    assert_clean(verdict)
    assert compiled.check(arguments) == verdict
    if verdict.ok:
        compiled.cast(arguments)
    else:
        assert_answer_lines(compiled.refusal(tool, verdict), verdict)


def as_json(value: object) -> str:
    try:
        return json.dumps(value)
    except ValueError:  # an integer too long for Python's text conversion
        return "null"


raw_text = st.one_of(values.map(as_json), values.map(as_json).map(lambda text: text[: len(text) // 2 + 1]),
                     nasty_text)


@settings(deadline=None, suppress_health_check=list(HealthCheck))
@given(turn=st.lists(st.tuples(nasty_text | st.integers(0, 3), st.sampled_from(["a", "b", "c"]) | nasty_text,
                               raw_text | values), max_size=5),
       schema=schemas, table=st.sampled_from(TABLES))
def test_a_turn_of_anything_gets_one_clean_answer_per_call_id(turn, schema, table):
    calls = [Call(call_id, tool, arguments) for call_id, tool, arguments in turn]
    verdict = check_turn(calls, {"a": schema, "b": {"type": "object"}}, table)
    if verdict.ok:
        return
    ids = list(dict.fromkeys(call.id for call in calls))
    assert [answer.call_id for answer in verdict.answers] == ids
    for answer in verdict.answers:
        first, *rest = answer.text.split("\n")
        assert first.startswith(("Refused: ", "Not run: ")) and one_clean_line(first)
        assert all(line.startswith("- ") and one_clean_line(line) for line in rest)


@settings(deadline=None, suppress_health_check=list(HealthCheck))
@given(data=values | schemas)
def test_reading_a_turn_of_any_shape_raises_only_a_format_error(data):
    for format_name in ("auto", "openai", "responses", "anthropic", "mcp"):
        try:
            read_turn(data, format_name)
        except FormatError as error:
            assert one_clean_line(str(error)) and "\n" not in str(error)


table_lines = st.lists(st.sampled_from([
    "table t extends adr246", "table t", 'skip keyword "$ref"', "skip unknown-type", 'value list "a list"',
    'type integer "an integer" is number also text', "rule kind uses kind stops", "rule x uses enum after kind",
    'message kind "{argument} is wrong."', 'message kind with sent "{argument} {sent}."', "limit depth 3",
    "drop rule enum", 'answer cut "- cut {limit}"', "# comment", "", "rule", '"', "{", "limit mismatches 0",
]) | nasty_text, max_size=8)


@settings(deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=table_lines)
def test_any_table_text_loads_or_fails_with_a_table_error(lines, tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "t.rules"
    path.write_text("\n".join(lines), encoding="utf-8")
    try:
        table = turngate.load_table(path)
    except turngate.TableError as error:
        assert error.file and str(error).count("\n") == 0
        return
    assert_clean(turngate.compile_schema({"type": "object", "required": ["x"]}, table).check({"y": [1]}))
