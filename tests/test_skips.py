"""What the check cannot judge it does not refuse: one test per skip trigger.

Each node below would refuse the value sent if it were judged (the control test shows so);
with the trigger, neither it nor anything below it is checked.
"""

from __future__ import annotations

import pytest

import turngate
from support import verdict

JUDGED = {"type": "object", "required": ["uid"], "additionalProperties": False,
          "properties": {"uid": {"type": "integer"}, "fields": {"type": "object", "required": ["title"]}}}
BAD = {"uid": [1], "fields": {}, "extra": True}


def with_keyword(keyword, value):
    return {**JUDGED, keyword: value}


TRIGGERS = {
    "$ref": with_keyword("$ref", "#/$defs/page"),
    "oneOf": with_keyword("oneOf", [{"type": "object"}]),
    "anyOf": with_keyword("anyOf", [{"type": "object"}]),
    "allOf": with_keyword("allOf", [{"type": "object"}]),
    "not": with_keyword("not", {"type": "string"}),
    "if": with_keyword("if", {"required": ["uid"]}),
    "unknown type name": {**JUDGED, "type": "dict"},
    "unknown name in a type list": {**JUDGED, "type": ["object", "float"]},
    "type that is not a name": {**JUDGED, "type": 7},
    "empty type list": {**JUDGED, "type": []},
}


def test_the_control_schema_refuses_the_value():
    assert len(verdict(JUDGED, BAD).mismatches) == 3


@pytest.mark.parametrize("trigger", TRIGGERS)
def test_a_node_with_the_trigger_is_skipped_with_everything_below(trigger):
    assert verdict(TRIGGERS[trigger], BAD).ok


@pytest.mark.parametrize("schema", [True, False, None, 0, "object", [JUDGED]], ids=repr)
def test_a_schema_that_is_not_an_object_is_skipped(schema):
    assert verdict(schema, BAD).ok


@pytest.mark.parametrize("trigger", ["$ref", "anyOf", "unknown type name"])
def test_a_skipped_property_schema_is_not_checked_but_its_siblings_are(trigger):
    schema = {"type": "object", "properties": {"page": TRIGGERS[trigger], "uid": {"type": "integer"}}}
    assert [m.path for m in verdict(schema, {"page": BAD, "uid": {}}).mismatches] == [("uid",)]


def test_false_as_a_property_schema_refuses_nothing():
    schema = {"type": "object", "properties": {"gone": False}}
    assert verdict(schema, {"gone": {"x": 1}}).ok


def test_a_required_argument_sent_as_null_passes_when_its_schema_is_skipped():
    schema = {"type": "object", "required": ["page"], "properties": {"page": TRIGGERS["$ref"]}}
    assert verdict(schema, {"page": None}).ok


def nested(levels: int, leaf_schema, leaf_value):
    schema, value = leaf_schema, leaf_value
    for _ in range(levels):
        schema, value = {"type": "object", "properties": {"a": schema}}, {"a": value}
    return schema, value


def test_nodes_nested_deeper_than_the_depth_limit_are_skipped():
    assert verdict(*nested(70, {"type": "integer"}, [1])).ok
    assert not verdict(*nested(60, {"type": "integer"}, [1])).ok
    # At the limit exactly, after the plain integer node was made (and shared) near the root:
    assert not verdict(*nested(1, {"type": "integer"}, [1])).ok
    assert not verdict(*nested(64, {"type": "integer"}, [1])).ok  # depth 64: judged
    assert verdict(*nested(65, {"type": "integer"}, [1])).ok  # depth 65: skipped


def test_a_table_that_skips_an_annotation_keyword_skips_plain_properties_that_have_it(tmp_path):
    """Plain properties (a type and annotations) compile to one shared node per type; a
    table that skips an annotation keyword still skips the properties that carry it."""
    (tmp_path / "t.rules").write_text('table t extends adr246\nskip keyword "format"\n')
    table = turngate.load_table(tmp_path / "t.rules")
    schema = {"type": "object", "properties": {"plain": {"type": "integer"},
                                                "dated": {"type": "integer", "format": "date"}}}
    sent = {"plain": [1], "dated": [1]}
    assert [m.path for m in turngate.compile_schema(schema, table).check(sent).mismatches] == [("plain",)]
    assert [m.path for m in turngate.compile_schema(schema).check(sent).mismatches] == [("plain",), ("dated",)]
