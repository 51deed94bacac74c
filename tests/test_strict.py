"""The `strict` table: the default plus semantics.md's "strict" entries, and nothing more."""

from __future__ import annotations

import pytest

from support import codes_and_paths, verdict


def one(type_name, value):
    return codes_and_paths({"type": "object", "properties": {"v": {"type": type_name}}}, {"v": value}, "strict")


@pytest.mark.parametrize("type_name, value", [
    ("integer", "abc"), ("integer", "5.5"), ("number", "abc"), ("number", "1_000"),
    ("boolean", "yes"), ("boolean", "2"),
])
def test_text_that_no_cast_turns_into_the_declared_type_is_refused(type_name, value):
    assert one(type_name, value) == [("kind", ("v",))]
    assert one(type_name, value) != codes_and_paths({"properties": {"v": {"type": type_name}}}, {"v": value})


def test_a_fraction_for_an_integer_is_refused():
    assert one("integer", 5.5) == [("kind", ("v",))]


def test_a_list_for_an_object_is_refused():
    assert one("object", [1, 2]) == [("kind", ("v",))]


@pytest.mark.parametrize("type_name", ["array", "object"])
@pytest.mark.parametrize("value", [3, 2.5, True, False])
def test_a_number_or_boolean_for_a_list_or_object_is_refused(type_name, value):
    assert one(type_name, value) == [("kind", ("v",))]


def test_text_for_a_list_is_refused():
    assert one("array", "a,b") == [("kind", ("v",))]


@pytest.mark.parametrize("type_name, value", [
    ("integer", "5"), ("integer", " 5 "), ("integer", "5.0"), ("integer", 5.0), ("integer", True),
    ("number", "2.5"), ("number", "-1e3"), ("boolean", "true"), ("boolean", "False"), ("boolean", 1),
    ("boolean", 0), ("string", 42), ("array", None), ("object", None), ("integer", None),
])
def test_the_exact_casts_still_pass(type_name, value):
    assert one(type_name, value) == []


def test_everything_else_is_the_default():
    schema = {"type": "object", "required": ["a"], "additionalProperties": False,
              "properties": {"a": {"enum": ["x"]}, "b": {"$ref": "#/x", "type": "integer"}}}
    assert codes_and_paths(schema, {"b": "abc", "c": 1}, "strict") == [("missing", ("a",)), ("additional", ("c",))]


def test_strict_messages(snapshot):
    cases = {"text for an integer": one_message("integer", "abc"), "a fraction": one_message("integer", 2.5),
             "a list for an object": one_message("object", ["x"]), "text for a list": one_message("array", "a,b"),
             "a number for a list": one_message("array", 3), "JSON text for a list": one_message("array", '["a"]')}
    assert cases == snapshot


def one_message(type_name, value):
    return [m.message for m in verdict({"properties": {"v": {"type": type_name}}}, {"v": value}, "strict").mismatches]
