"""ADR 246, "Decision": one test per kind of refusal, each with its code and path."""

from __future__ import annotations

import pytest

from support import codes_and_paths

PAGE = {
    "type": "object",
    "properties": {
        "uid": {"type": "integer"},
        "title": {"type": "string"},
        "hidden": {"type": "boolean"},
        "ratio": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "fields": {"type": "object", "properties": {"title": {"type": "string"}},
                   "required": ["title"], "additionalProperties": False},
        "status": {"type": "string", "enum": ["draft", "published"]},
        "elements": {"type": "array", "items": {
            "type": "object", "properties": {"uid": {"type": "integer"}}, "required": ["uid"]}},
    },
    "required": ["uid"],
    "additionalProperties": False,
}


def test_a_missing_required_argument_is_refused():
    assert codes_and_paths(PAGE, {"title": "x"}) == [("missing", ("uid",))]


def test_null_for_a_required_argument_whose_type_excludes_null_is_refused():
    assert codes_and_paths(PAGE, {"uid": None}) == [("null", ("uid",))]


@pytest.mark.parametrize("name, sent", [
    ("title", [1]), ("title", {"a": 1}),
    ("uid", ["5"]), ("uid", {"value": 5}),
    ("ratio", [0.5]), ("ratio", {}),
    ("hidden", [True]), ("hidden", {"on": True}),
], ids=lambda v: repr(v))
def test_a_list_or_object_where_text_a_number_or_a_boolean_is_declared_is_refused(name, sent):
    assert codes_and_paths(PAGE, {"uid": 1, name: sent}) == [("kind", (name,))]


def test_an_object_where_a_list_is_declared_is_refused():
    assert codes_and_paths(PAGE, {"uid": 1, "tags": {"0": "a"}}) == [("kind", ("tags",))]


def test_text_where_an_object_is_declared_is_refused():
    assert codes_and_paths(PAGE, {"uid": 1, "fields": "title=x"}) == [("kind", ("fields",))]


def test_a_value_outside_an_enum_is_refused():
    assert codes_and_paths(PAGE, {"uid": 1, "status": "archived"}) == [("enum", ("status",))]


def test_an_argument_excluded_by_additional_properties_false_is_refused():
    assert codes_and_paths(PAGE, {"uid": 1, "colour": "red"}) == [("additional", ("colour",))]


def test_refusals_are_found_in_properties_and_items():
    sent = {"uid": 1, "fields": {"title": ["x"], "sub": 1}, "elements": [{"uid": 1}, {}, {"uid": {}}],
            "tags": ["a", "b", {"c": 1}]}
    assert codes_and_paths(PAGE, sent) == [
        ("kind", ("fields", "title")),
        ("additional", ("fields", "sub")),
        ("missing", ("elements", 1, "uid")),
        ("kind", ("elements", 2, "uid")),
        ("kind", ("tags", 2)),
    ]


DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def test_items_by_position_then_the_rest_as_the_schema_s_draft_reads_them():
    schema = {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
              "items": {"type": "boolean"}}
    sent = [{}, [], {}, 1]
    assert codes_and_paths({"$schema": DRAFT_2020_12, **schema}, sent) == [
        ("kind", (0,)), ("kind", (1,)), ("kind", (2,))]
    # Before 2020-12 `prefixItems` means nothing, and `items` holds every element.
    assert codes_and_paths({"$schema": DRAFT_07, **schema}, sent) == [
        ("kind", (0,)), ("kind", (1,)), ("kind", (2,))]
    assert codes_and_paths({"$schema": DRAFT_07, **schema}, [1, "a", {}]) == [("kind", (2,))]
    # No draft named: only what every draft agrees on, the elements after the prefix.
    assert codes_and_paths(schema, sent) == [("kind", (2,))]
    old_style = {"type": "array", "items": [{"type": "integer"}]}
    assert codes_and_paths({"$schema": DRAFT_07, **old_style}, [{}, {}]) == [("kind", (0,))]
    assert codes_and_paths({"$schema": DRAFT_2020_12, **old_style}, [{}, {}]) == []
    assert codes_and_paths(old_style, [{}, {}]) == []


def test_the_arguments_themselves_are_judged_at_the_root():
    assert codes_and_paths(PAGE, "uid=1") == [("kind", ())]
    assert codes_and_paths({"type": "object", "required": ["a"]}, {}) == [("missing", ("a",))]
