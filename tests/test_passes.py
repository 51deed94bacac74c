"""ADR 246, "What a tool commonly reads after a cast passes": one test per pass."""

from __future__ import annotations

from support import verdict


def passes(schema, arguments) -> bool:
    return verdict(schema, arguments).ok


def obj(**properties):
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


def test_text_5_passes_for_an_integer():
    assert passes(obj(uid={"type": "integer"}), {"uid": "5"})


def test_float_5_0_passes_for_an_integer():
    assert passes(obj(uid={"type": "integer"}), {"uid": 5.0})


def test_a_number_passes_for_text():
    assert passes(obj(title={"type": "string"}), {"title": 42})
    assert passes(obj(title={"type": "string"}), {"title": 4.2})


def test_text_true_passes_for_a_boolean():
    assert passes(obj(hidden={"type": "boolean"}), {"hidden": "true"})


def test_1_passes_for_a_boolean():
    assert passes(obj(hidden={"type": "boolean"}), {"hidden": 1})


def test_0_passes_for_a_boolean():
    assert passes(obj(hidden={"type": "boolean"}), {"hidden": 0})


def test_null_passes_for_an_optional_argument():
    schema = {"type": "object", "properties": {"title": {"type": "string"}}}
    assert passes(schema, {"title": None})


def test_null_passes_for_a_required_argument_whose_type_lists_null():
    assert passes(obj(after={"type": ["integer", "null"]}), {"after": None})


def test_null_passes_for_a_required_nullable_mcp_parameter():
    assert passes(obj(after={"type": "integer", "nullable": True}), {"after": None})


def test_null_passes_for_a_required_argument_with_an_untyped_schema():
    assert passes(obj(after={"description": "anything"}), {"after": None})


def test_2_passes_for_an_enum_of_text_2():
    assert passes(obj(level={"type": "string", "enum": ["1", "2", "3"]}), {"level": 2})


def test_an_enum_value_in_another_letter_case_passes():
    assert passes(obj(status={"type": "string", "enum": ["draft", "published"]}), {"status": "Draft"})


def test_a_list_passes_where_an_object_is_declared():
    # A JSON object keyed 0, 1, 2 (a map keyed by language uid) decodes to a PHP list.
    schema = obj(titles={"type": "object", "properties": {"0": {"type": "integer"}}})
    assert passes(schema, {"titles": ["Start", "Anfang"]})


def test_a_list_passed_for_an_object_is_not_looked_into():
    closed = {"type": "object", "required": ["x"], "additionalProperties": False,
              "properties": {"x": {"type": "integer"}}}
    assert passes(obj(titles=closed), {"titles": [{"y": [1]}, "text"]})
