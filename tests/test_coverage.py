"""Measured coverage: the share of schema nodes a table judges, and why the rest are not."""

from __future__ import annotations

import json

import turngate
from conftest import ROOT
from turngate.cli import main
from turngate.compile.coverage import coverage, schema_nodes, tool_schemas

PYDANTIC_LIKE = {
    "type": "object",
    "$defs": {
        "Color": {"type": "string", "enum": ["red", "green"]},
        "Item": {"type": "object", "properties": {"n": {"type": "integer"}, "color": {"$ref": "#/$defs/Color"}}},
        "Unused": {"type": "string"},
    },
    "properties": {
        "title": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        "item": {"$ref": "#/$defs/Item"},
        "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
        "meta": {"type": "object", "additionalProperties": {"type": "integer"}},
        "odd": {"allOf": [{"type": "string"}]},
    },
}


def test_the_nodes_of_a_schema_are_those_an_argument_can_meet_each_once():
    nodes = schema_nodes(PYDANTIC_LIKE)
    assert sorted(nodes) == sorted([
        "#", "#/properties/title", "#/properties/title/anyOf/0", "#/properties/title/anyOf/1",
        "#/properties/item", "#/$defs/Item", "#/$defs/Item/properties/n", "#/$defs/Item/properties/color",
        "#/$defs/Color", "#/properties/items", "#/properties/items/items", "#/properties/meta",
        "#/properties/meta/additionalProperties", "#/properties/odd", "#/properties/odd/allOf/0"])
    assert nodes["#/$defs/Item"] == "#/properties/item"


def test_the_default_skips_refs_and_unions_that_extended_judges():
    default = coverage(PYDANTIC_LIKE, turngate.load_table("adr246"))
    extended = coverage(PYDANTIC_LIKE, turngate.load_table("extended"))
    assert (default.nodes, default.judged) == (15, 3)
    assert default.skipped == {"$ref": 6, "allOf": 2, "anyOf": 3, "not read": 1}
    assert (extended.nodes, extended.judged) == (15, 13)
    assert extended.skipped == {"allOf": 2}
    assert round(extended.share, 4) == round(13 / 15, 4)


def test_an_additional_properties_schema_is_not_read_by_the_default():
    schema = {"type": "object", "additionalProperties": {"type": "integer"}}
    assert coverage(schema, turngate.load_table("adr246")).skipped == {"not read": 1}
    assert coverage(schema, turngate.load_table("extended")).skipped == {}


def test_files_hold_a_schema_or_tools_in_any_format():
    schema = {"type": "object"}
    assert tool_schemas(schema) == [("schema", schema)]
    assert tool_schemas({"tools": [{"name": "a", "inputSchema": schema}]}) == [("a", schema)]
    assert tool_schemas([{"name": "b", "input_schema": schema}, "junk"]) == [("b", schema)]
    assert tool_schemas([{"type": "function", "function": {"name": "c", "parameters": schema}}]) == [("c", schema)]


def test_the_coverage_command(capfd, tmp_path, snapshot):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [{"name": "t", "inputSchema": PYDANTIC_LIKE}]}))
    assert main(["coverage", str(path), str(ROOT / "examples" / "get_page.schema.json")]) == 0
    out = capfd.readouterr().out
    assert out.splitlines()[-5:] == ["skipped nodes, by trigger  adr246  extended",
                                     "$ref                       6       0",
                                     "allOf                      2       2",
                                     "anyOf                      3       0",
                                     "not read                   1       0"]
    assert out.replace(str(tmp_path), "<tmp>") == snapshot
    assert main(["coverage", str(path), "--table", "strict", "--json"]) == 0
    data = json.loads(capfd.readouterr().out)
    assert data["total"]["tables"]["strict"]["judged"] == 3 and data["files"][0]["tools"] == 1


def test_the_coverage_command_refuses_a_missing_file(capfd, tmp_path):
    assert main(["coverage", str(tmp_path / "none.json")]) == 2
    assert "does not exist" in capfd.readouterr().err


def _prefix_positions(node) -> int:
    """How many `prefixItems` entries a schema holds, anywhere."""
    if isinstance(node, dict):
        own = len(node["prefixItems"]) if isinstance(node.get("prefixItems"), list) else 0
        return own + sum(_prefix_positions(child) for child in node.values())
    return sum(_prefix_positions(child) for child in node) if isinstance(node, list) else 0


def test_the_real_schemas_of_the_readme_table_are_judged_fully_under_extended():
    """Read as 2020-12 (which they are written in), every node is judged; with no `$schema`,
    only the positions of `prefixItems` are not, since the drafts disagree on them."""
    folder = ROOT / "benchmarks" / "schemas"
    documents = sorted(folder.glob("*.json"))
    assert len(documents) >= 10
    extended = turngate.load_table("extended")
    positions = 0
    for path in documents:
        for name, schema in tool_schemas(json.loads(path.read_text())):
            named = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
            assert coverage(named, extended).skipped == {}, (path.name, name)
            unread = _prefix_positions(schema)
            assert coverage(schema, extended).skipped == ({"not read": unread} if unread else {}), (path.name, name)
            positions += unread
    assert positions == 2
