"""Property tests: for any JSON as schema and as arguments, compiling and checking never
raise and keep their bounds; and an instance valid under JSON Schema is never refused."""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

import turngate
from support import one_clean_line

#: Hundreds of generated schemas per table.
pytestmark = pytest.mark.slow

TABLES = sorted(turngate.shipped_tables())

names = st.text(alphabet=string.ascii_lowercase[:6] + "_", min_size=1, max_size=4)
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text(max_size=12)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(names | st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)

KEYWORDS = ["type", "properties", "required", "enum", "items", "prefixItems", "additionalProperties",
            "patternProperties", "nullable", "$ref", "anyOf", "oneOf", "allOf", "not", "if", "$defs"]
TYPE_NAMES = ["string", "integer", "number", "boolean", "array", "object", "null", "dict", "float"]
type_values = st.sampled_from(TYPE_NAMES) | st.lists(st.sampled_from(TYPE_NAMES), max_size=3)

any_schema = st.recursive(
    json_values,
    lambda inner: st.dictionaries(
        st.sampled_from(KEYWORDS) | names,
        inner | type_values | st.lists(inner | names, max_size=3)
        | st.dictionaries(names, inner, max_size=3) | st.booleans(),
        max_size=6),
    max_leaves=25,
)


def assert_bounded(verdict, limit=10):
    assert len(verdict.mismatches) <= limit
    assert verdict.ok == (not verdict.mismatches)
    assert not verdict.truncated or len(verdict.mismatches) == limit
    for mismatch in verdict.mismatches:
        message = mismatch.message
        assert message.endswith(".") and len(message) <= 200, message
        assert one_clean_line(message), message


@pytest.mark.parametrize("table", TABLES)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=any_schema, arguments=json_values)
def test_compile_and_check_never_raise_and_stay_bounded(table, schema, arguments):
    verdict = turngate.compile_schema(schema, table).check(arguments)
    assert_bounded(verdict)


leaf = st.sampled_from([{"type": t} for t in ["string", "integer", "number", "boolean", "null"]]) \
    | st.lists(st.sampled_from(["string", "integer", "boolean", "null", "array"]), min_size=1, max_size=3,
               unique=True).map(lambda ts: {"type": ts}) \
    | st.lists(json_scalars | st.lists(json_scalars, max_size=2), min_size=1, max_size=4).map(lambda es: {"enum": es}) \
    | st.just({})


@st.composite
def objects(draw, inner):
    properties = draw(st.dictionaries(names, inner, max_size=4))
    required = draw(st.lists(st.sampled_from(list(properties)), unique=True)) if properties else []
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": draw(st.booleans())}


def composite(inner):
    return (
        st.builds(lambda items: {"type": "array", "items": items}, inner)
        | st.builds(lambda items: {"type": "array", "items": items}, st.lists(inner, min_size=1, max_size=3))
        | st.builds(lambda branches: {"anyOf": branches}, st.lists(inner, min_size=1, max_size=2))
        | objects(inner)
    )


plain_schemas = st.recursive(leaf, composite, max_leaves=10)


@pytest.mark.parametrize("table", TABLES)
@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_an_instance_valid_under_json_schema_is_never_refused(table, data):
    schema = data.draw(plain_schemas, label="schema")
    instance = data.draw(from_schema(schema), label="instance")
    verdict = turngate.compile_schema(schema, table).check(instance)
    assert verdict.ok, [m.message for m in verdict.mismatches]
