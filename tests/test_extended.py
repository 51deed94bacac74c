"""The `extended` table: local $ref, plain unions, additionalProperties as a schema, JSON
sent as text; anything else still skipped."""

from __future__ import annotations

import pytest

import turngate
from support import codes_and_paths, verdict

DEFS = {
    "Color": {"type": "string", "enum": ["red", "green"]},
    "Item": {"type": "object", "properties": {"n": {"type": "integer"}, "color": {"$ref": "#/$defs/Color"}},
             "required": ["n"], "additionalProperties": False},
}


def ext(schema, value):
    return codes_and_paths(schema, value, "extended")


@pytest.mark.parametrize("keyword", ["$defs", "definitions"])
def test_a_local_ref_is_resolved_and_judged(keyword):
    schema = {"type": "object", keyword: {"Item": {"type": "object", "required": ["n"]}},
              "properties": {"item": {"$ref": f"#/{keyword}/Item"}}}
    assert ext(schema, {"item": {}}) == [("missing", ("item", "n"))]
    assert codes_and_paths(schema, {"item": {}}) == []  # the default skips it


def test_a_ref_to_the_root_and_a_cycle_are_followed_to_the_depth_limit():
    tree = {"type": "object", "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#"}}}}
    assert ext(tree, {"kids": [{"kids": [{"v": [1]}]}]}) == [("kind", ("kids", 0, "kids", 0, "v"))]
    deep = {"v": 1}
    for _ in range(200):
        deep = {"kids": [deep]}
    assert verdict(tree, deep, "extended").ok  # nodes past the depth limit are skipped
    shallow = {"v": []}
    for _ in range(20):
        shallow = {"kids": [shallow]}
    assert not verdict(tree, shallow, "extended").ok


def test_refs_that_cannot_be_resolved_are_skipped():
    for ref in ["#/$defs/missing", "https://example.com/s.json", "#anchor", "other.json#/a"]:
        schema = {"type": "object", "properties": {"a": {"$ref": ref}}, "$defs": {}}
        assert ext(schema, {"a": [1, {}]}) == []
    loop = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "properties": {"x": {"$ref": "#/$defs/a"}}}
    assert ext(loop, {"x": 1}) == []
    beside = {"$defs": {"s": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/s", "type": "integer"}}}
    assert ext(beside, {"x": []}) == []


def test_a_ref_with_annotations_beside_it_is_resolved():
    schema = {"$defs": DEFS, "properties": {"c": {"$ref": "#/$defs/Color", "description": "a colour", "default": "red"}}}
    assert ext(schema, {"c": "blue"}) == [("enum", ("c",))]


def test_a_required_argument_behind_a_ref_refuses_null_as_its_type_says():
    schema = {"$defs": DEFS, "type": "object", "required": ["c"], "properties": {"c": {"$ref": "#/$defs/Color"}}}
    assert ext(schema, {"c": None}) == [("null", ("c",))]


def test_an_optional_union_is_judged_and_named():
    schema = {"type": "object", "properties": {"title": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}}}
    result = verdict(schema, {"title": ["x"]}, "extended")
    assert [(m.code, m.path) for m in result.mismatches] == [("kind", ("title",))]
    assert result.mismatches[0].message == '"title" must be text or null, but a list was sent.'
    assert verdict(schema, {"title": None}, "extended").ok and verdict(schema, {"title": 5}, "extended").ok


def test_a_value_only_one_branch_can_hold_is_judged_by_that_branch():
    schema = {"$defs": DEFS, "type": "object",
              "properties": {"item": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]},
                             "pick": {"oneOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "integer"}]}}}
    assert ext(schema, {"item": {"color": "blue", "x": 1}, "pick": "c"}) == [
        ("missing", ("item", "n")), ("enum", ("item", "color")), ("additional", ("item", "x")), ("enum", ("pick",))]
    assert ext(schema, {"item": None, "pick": 7}) == []


def test_a_union_with_a_branch_that_is_not_plain_is_skipped():
    for branches in ([{"type": "string"}, {"minLength": 1}], [{"type": "string"}, {"anyOf": [{"type": "null"}]}],
                     [{"type": "dict"}], [], "nope", [{"type": "string"}, {"$ref": "#/nowhere"}]):
        schema = {"type": "object", "properties": {"a": {"anyOf": branches}}}
        assert ext(schema, {"a": [[1]]}) == [], branches


@pytest.mark.parametrize("keyword, value", [("allOf", [{"type": "string"}]), ("not", {"type": "string"}),
                                            ("if", {"type": "string"})])
def test_anything_else_is_still_skipped(keyword, value):
    schema = {"type": "object", "properties": {"a": {"type": "integer", keyword: value}}}
    assert ext(schema, {"a": [1]}) == []


def test_additional_properties_given_as_a_schema_checks_the_arguments_it_covers():
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}}
    assert ext(schema, {"a": "x", "b": 1, "c": [2], "d": "3"}) == [("kind", ("c",))]
    assert codes_and_paths(schema, {"c": [2]}) == []
    with_patterns = {**schema, "patternProperties": {"^c": {}}}
    assert ext(with_patterns, {"c": [2]}) == []


def test_json_sent_as_text_for_an_object_is_admitted_but_not_other_text():
    schema = {"type": "object", "properties": {"f": {"type": "object"}}}
    assert ext(schema, {"f": '{"title": "x"}'}) == []
    assert ext(schema, {"f": "title=x"}) == [("kind", ("f",))]
    assert ext(schema, {"f": '["not an object"]'}) == [("kind", ("f",))]


def test_under_the_default_json_text_for_an_object_says_to_send_the_object():
    schema = {"type": "object", "properties": {"fields": {"type": "object"}}}
    (message,) = [m.message for m in verdict(schema, {"fields": '{"title": "x"}'}).mismatches]
    assert message == '"fields" must be an object; the text sent holds an object as JSON, so send an object itself.'


def test_extended_messages(snapshot):
    schema = {"$defs": DEFS, "type": "object", "properties": {
        "title": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "count": {"oneOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]},
        "item": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]},
        "meta": {"type": "object", "additionalProperties": {"type": "boolean"}},
        "fields": {"type": "object"}}}
    sent = {"title": {"a": 1}, "count": {"n": 1}, "item": {"n": [1], "color": "Blue"}, "meta": {"x": [True]},
            "fields": '["a", "b"]'}
    assert [m.message for m in verdict(schema, sent, "extended").mismatches] == snapshot


def test_the_parsed_strict_and_extended_tables(snapshot):
    from turngate.check.convert import to_data
    assert {name: to_data(turngate.load_table(name)) for name in ("strict", "extended")} == snapshot


def test_a_node_with_many_rules_runs_them_in_table_order():
    schema = {"type": "object", "anyOf": [{"type": "object"}], "enum": [{"id": 1}], "required": ["id"],
              "properties": {"id": {"type": "integer"}}, "additionalProperties": False}
    compiled = turngate.compile_schema(schema, "extended")
    assert len(compiled.root.entries) == 5
    assert compiled.check({"id": 1}).ok
    assert ext(schema, {"id": 2}) == [("enum", ())]
    assert ext(schema, "x") == [("kind", ())]
