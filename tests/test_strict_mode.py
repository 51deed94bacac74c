"""`benchmarks/strict_mode.py`: OpenAI's documented strict-mode subset, checked on hand-made
schemas, and the count docs/constrained-decoding.md gives for the MCP schemas."""

from __future__ import annotations

import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from strict_mode import MCP_SCHEMAS, measure, problems  # noqa: E402

STRICT = {"type": "object", "additionalProperties": False, "required": ["city", "unit"],
          "properties": {"city": {"type": "string", "format": "email"},
                         "unit": {"type": ["string", "null"], "enum": ["C", "F", None]}}}


def closed(properties: dict, **more: object) -> dict:
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False, **more}


@pytest.mark.parametrize("schema", [
    STRICT,
    closed({}),
    closed({"rows": {"type": "array", "items": closed({"n": {"type": "integer", "minimum": 0}})}}),
    closed({"v": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/Point"}]}},
           **{"$defs": {"Point": closed({"x": {"type": "number"}})}}),
    closed({"next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}),
], ids=["optional as nullable", "no properties", "nested closed objects", "anyOf and $defs", "recursive"])
def test_a_schema_within_the_subset_is_accepted(schema):
    assert problems(schema) == []


@pytest.mark.parametrize("schema, problem", [
    ({**STRICT, "required": ["city"]}, "an optional property (strict mode requires every one)"),
    ({k: v for k, v in STRICT.items() if k != "additionalProperties"}, "an object without additionalProperties: false"),
    (closed({"inner": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}),
     "an object without additionalProperties: false"),
    (closed({"meta": {"type": "object", "additionalProperties": {"type": "string"}}}),
     "an object without additionalProperties: false"),
    ({"anyOf": [STRICT]}, "the root is not an object schema"),
    (closed({"a": {"allOf": [{"type": "string"}]}}), "allOf is not supported"),
    (closed({"a": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}), "oneOf (only anyOf is supported)"),
    (closed({"a": {"type": "string", "format": "uri"}}), "a format outside the subset"),
    (closed({"a": {"type": "date"}}), "a type outside the subset"),
    (closed({"a": {"$ref": "other.json#/a"}}), "a $ref outside the schema's definitions"),
    (closed({"a": {"enum": list(range(1001))}}), "more than 1,000 enum values"),
    (closed({"a": {"enum": [f"{i:060d}" for i in range(300)]}}),
     "an enum of more than 250 texts longer than 15,000 characters"),
])
def test_a_schema_outside_the_subset_is_refused_saying_why(schema, problem):
    assert problem in problems(schema)


def test_objects_nested_past_ten_levels_are_refused():
    schema: dict = closed({"leaf": {"type": "string"}})
    for _ in range(9):
        schema = closed({"inner": schema})
    assert problems(schema) == []
    assert problems(closed({"inner": schema})) == ["more than 10 levels of nested objects"]


def test_the_count_the_docs_give_for_the_mcp_schemas():
    result = measure(MCP_SCHEMAS)
    assert result["total"] == {"tools": 122, "accepted": 14}
    page = (ROOT / "docs" / "constrained-decoding.md").read_text()
    assert "Strict mode accepts 14 of the 122 tools as they are" in page
