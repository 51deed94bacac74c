"""Saying what was not judged: a verdict carries how many schema nodes the table does not
judge and why, measured once when first read; `check` and `check-turn` note it on
standard error and name the table that would judge them; `check` reads tool definitions."""

from __future__ import annotations

import copy
import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import turngate
from conftest import ROOT
from turngate.check.schema import resolve_table
from turngate.cli import main
from turngate.compile import coverage as coverage_module
from turngate.compile.compiled_table import compiled_table
from turngate.compile.coverage import coverage, not_judged, schema_nodes, surely_judged
from turngate.kinds.verdict import ALL_JUDGED, PASSED

TABLES = ("adr246", "strict", "extended")
#: A pydantic model's schema: `Optional[str]` as anyOf, a nested model as $ref.
PYDANTIC = {
    "type": "object", "required": ["name"],
    "properties": {"name": {"type": "string"},
                   "nick": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                   "address": {"$ref": "#/$defs/Address"}},
    "$defs": {"Address": {"type": "object", "properties": {
        "city": {"type": "string"}, "zip": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}},
}
PLAIN = {"type": "object", "required": ["q"], "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}}
NOTE = ('turngate: note: 9 of 11 schema nodes of tool "{tool}" are not judged under adr246 ($ref 6, anyOf 3); '
        "--table extended judges 9 of them.\n")


def run(capfd, *argv):
    status = main([str(arg) for arg in argv])
    out, err = capfd.readouterr()
    return status, out, err


# ── The verdict ──────────────────────────────────────────────────────────────────────────

def test_every_verdict_on_a_schema_carries_what_its_table_does_not_judge():
    compiled = turngate.compile_schema(PYDANTIC)
    assert dict(compiled.unjudged) == {"$ref": 6, "anyOf": 3} == coverage(PYDANTIC, compiled.table).skipped
    passed, refused = compiled.check({"name": "x"}), compiled.check({})
    assert passed.ok and passed.unjudged == compiled.unjudged
    assert not refused.ok and refused.unjudged == compiled.unjudged
    assert turngate.compile_schema(PYDANTIC, "extended").check({}).unjudged == {}


def test_a_schema_judged_whole_answers_with_the_shared_passing_verdict():
    compiled = turngate.compile_schema(PLAIN)
    assert compiled.unjudged is ALL_JUDGED and compiled.check({"q": "x"}) is PASSED
    assert compiled.check({}).unjudged is ALL_JUDGED


def test_a_verdict_carrying_it_pickles_and_copies_as_its_counts():
    verdict = turngate.compile_schema(PYDANTIC).check({})
    for again in (pickle.loads(pickle.dumps(verdict)), copy.deepcopy(verdict)):
        assert again == verdict and dict(again.unjudged) == {"$ref": 6, "anyOf": 3}


def test_the_json_of_a_verdict_carries_it_and_reads_back():
    verdict = turngate.compile_schema(PYDANTIC).check({})
    data = json.loads(json.dumps(turngate.to_data(verdict)))
    assert data["unjudged"] == {"$ref": 6, "anyOf": 3}
    assert turngate.from_data(data, turngate.Verdict) == verdict


def test_it_is_measured_once_when_first_read_never_while_compiling_or_checking(monkeypatch):
    measured = []
    real = coverage_module.coverage
    monkeypatch.setattr(coverage_module, "coverage", lambda *a: measured.append(1) or real(*a))
    compiled, plain = turngate.compile_schema(PYDANTIC), turngate.compile_schema(PLAIN)
    verdicts = [checked.check(value) for checked in (compiled, plain)
                for value in ({}, {"name": 1}, {"name": []}, [], "x", None)]
    assert measured == []  # the plain schema is told by one look at each node
    assert all(dict(verdict.unjudged) == {"$ref": 6, "anyOf": 3} for verdict in verdicts[:6])
    assert all(verdict.unjudged == {} for verdict in verdicts[6:])
    assert len(measured) == 1


# ── The quick look is only ever too careful, the measure exact ───────────────────────────

SCHEMA_FILES = sorted((ROOT / "benchmarks" / "schemas").glob("*.json"))


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: p.name)
def test_what_a_verdict_carries_is_what_coverage_measures_for_real_schemas(path):
    for _, schema in coverage_module.tool_schemas(json.loads(path.read_text())):
        for name in TABLES:
            table = resolve_table(name)
            skipped = coverage(schema, table).skipped
            assert dict(not_judged(schema, table)) == skipped
            assert not (surely_judged(schema, compiled_table(table)) and skipped)


KEYWORDS = st.sampled_from(["type", "properties", "items", "required", "enum", "anyOf", "oneOf", "allOf",
                            "$ref", "additionalProperties", "not", "description", "prefixItems", "if",
                            "patternProperties", "const", "format"])
TYPES = st.sampled_from(["string", "integer", "object", "array", "null", "float", "dict"]) | st.lists(
    st.sampled_from(["string", "object", "array", "null"]), max_size=2)


def schemas(depth: int = 3) -> st.SearchStrategy:
    leaf = st.fixed_dictionaries({}, optional={"type": TYPES, "description": st.text(max_size=2)}) | st.booleans()
    if depth == 0:
        return leaf
    child = st.deferred(lambda: schemas(depth - 1))
    values = {
        "type": TYPES, "properties": st.dictionaries(st.sampled_from("abc"), child, max_size=3),
        "items": child | st.lists(child, max_size=2), "required": st.lists(st.sampled_from("abc"), max_size=2),
        "enum": st.lists(st.integers(), min_size=1, max_size=2), "anyOf": st.lists(child, min_size=1, max_size=2),
        "oneOf": st.lists(child, min_size=1, max_size=2), "allOf": st.lists(child, max_size=2),
        "$ref": st.sampled_from(["#", "#/$defs/d", "#/properties/a", "#/nowhere"]),
        "additionalProperties": st.booleans() | child, "not": child, "if": child,
        "description": st.text(max_size=3), "prefixItems": st.lists(child, max_size=2),
        "patternProperties": st.dictionaries(st.sampled_from(["^a"]), child, max_size=1),
        "const": st.integers(), "format": st.just("date"),
    }
    node = st.lists(KEYWORDS, unique=True, max_size=4).flatmap(
        lambda keys: st.fixed_dictionaries({key: values[key] for key in keys}))
    return leaf | node | st.builds(lambda n, d: {**n, "$defs": {"d": d}} if isinstance(n, dict) else n, node, child)


@settings(max_examples=300, deadline=None)
@given(schema=schemas(), table=st.sampled_from(TABLES))
def test_what_a_verdict_carries_is_what_coverage_measures_for_any_schema(schema, table):
    compiled = turngate.compile_schema(schema, table)
    skipped = coverage(schema, compiled.table).skipped
    assert dict(compiled.unjudged) == skipped
    assert not (surely_judged(schema, compiled_table(compiled.table)) and skipped)


def test_a_schema_nested_past_the_depth_limit_is_counted_alike_in_less_work():
    deep: object = {"type": "string"}
    for _ in range(300):
        deep = {"type": "object", "properties": {"a": deep}}
    table = resolve_table("adr246")
    assert coverage(deep, table) == coverage_module.Coverage(301, 65, {"depth": 236})
    bounded = schema_nodes(deep, 66)
    assert len(bounded) == len(schema_nodes(deep)) == 301
    assert sum(isinstance(key, str) for key in bounded) == 67  # the rest are numbered, not written


# ── The notes of `check` and `check-turn` ─────────────────────────────────────────────────

@pytest.fixture
def files(tmp_path):
    def write(name: str, data: object):
        path = tmp_path / name
        path.write_text(json.dumps(data))
        return path
    return write


def test_check_notes_unjudged_nodes_and_the_table_that_judges_them(capfd, files):
    schema, arguments = files("save.json", PYDANTIC), files("a.json", {"name": "x"})
    assert run(capfd, "check", schema, arguments) == (0, "OK\n", NOTE.format(tool="save"))
    status, out, err = run(capfd, "check", schema, arguments, "--json")
    assert (status, json.loads(out)["unjudged"], err) == (0, {"$ref": 6, "anyOf": 3}, NOTE.format(tool="save"))
    assert run(capfd, "check", schema, arguments, "--table", "extended") == (0, "OK\n", "")
    assert run(capfd, "check", files("plain.json", PLAIN), arguments)[2] == ""


def test_a_note_says_so_where_no_shipped_table_judges_them(capfd, files):
    schema = {"type": "object", "properties": {"a": {"not": {"type": "string"}}}}
    status, _, err = run(capfd, "check", files("s.json", schema), files("a.json", {}), "--table", "extended")
    assert (status, err) == (0, 'turngate: note: 2 of 3 schema nodes of tool "s" are not judged under extended '
                                '(not 2); no shipped table judges them.\n')


def test_check_turn_notes_each_tool_the_turn_calls(capfd, files):
    turn = {"tools": {"tools": [{"name": "save", "inputSchema": PYDANTIC}, {"name": "find", "inputSchema": PLAIN},
                                {"name": "idle", "inputSchema": PYDANTIC}]},
            "calls": [{"name": "save", "arguments": {"name": "x"}}, {"name": "find", "arguments": {"q": "y"}},
                      {"name": "save", "arguments": {"name": "z"}}]}
    status, out, err = run(capfd, "check-turn", files("turn.json", turn))
    assert (status, err) == (0, NOTE.format(tool="save"))
    assert run(capfd, "check-turn", files("turn.json", turn), "--table", "extended")[2] == ""


# ── `check` reads tool definitions ───────────────────────────────────────────────────────

DEFINITIONS = {
    "OpenAI Chat": {"type": "function", "function": {"name": "save", "parameters": PYDANTIC}},
    "OpenAI Responses": {"type": "function", "name": "save", "parameters": PYDANTIC},
    "Anthropic": {"name": "save", "input_schema": PYDANTIC},
    "MCP": {"name": "save", "inputSchema": PYDANTIC},
    "MCP tools/list": {"tools": [{"name": "save", "inputSchema": PYDANTIC}]},
    "a list": [{"name": "save", "input_schema": PYDANTIC}],
    "OpenAI Chat request tools": {"tools": [{"type": "function", "function": {"name": "save", "parameters": PYDANTIC}}]},
}


@pytest.mark.parametrize("shape", DEFINITIONS)
def test_check_reads_a_tool_definition_in_each_shape(capfd, files, shape):
    definition, refused = files("tool.json", DEFINITIONS[shape]), files("a.json", {"nick": 1})
    status, out, err = run(capfd, "check", definition, refused)
    assert (status, err) == (1, NOTE.format(tool="save"))
    assert out.startswith('Refused: the arguments do not match the schema of tool "save"') and '"name" is missing' in out
    assert run(capfd, "check", definition, files("b.json", {"name": "x"}))[:2] == (0, "OK\n")


def test_check_picks_a_tool_from_a_list_by_name(capfd, files):
    tools = files("tools.json", [{"name": "save", "input_schema": PYDANTIC}, {"name": "find", "input_schema": PLAIN}])
    arguments = files("a.json", {})
    status, out, err = run(capfd, "check", tools, arguments, "--tool", "find")
    assert (status, err) == (1, "") and '"q" is missing' in out and 'tool "find"' in out
    assert run(capfd, "check", tools, arguments) == (
        2, "", f'turngate: the schema file "{tools}" lists 2 tools ("save", "find"); name one with --tool.\n')
    assert run(capfd, "check", tools, arguments, "--tool", "nope") == (
        2, "", f'turngate: the schema file "{tools}" lists no tool "nope"; it lists "save", "find".\n')


@pytest.mark.parametrize("definition, problem", [
    ({"type": "function", "function": {"parameters": PLAIN}}, 'tools[0].function has no "name"'),
    ({"name": 5, "input_schema": PLAIN}, 'tools[0].name is a number, not text'),
    ([{"name": "a", "inputSchema": PLAIN}, {"name": "a", "inputSchema": PLAIN}],
     'tools[1] offers the tool "a" again, after tools[0]'),
    ([{"title": "not a tool"}], "a toolset is made of"),
])
def test_a_file_that_looks_like_a_tool_it_cannot_read_is_one_sentence(capfd, files, definition, problem):
    path = files("tool.json", definition)
    status, out, err = run(capfd, "check", path, files("a.json", {}))
    assert (status, out) == (2, "") and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f'turngate: the schema file "{path}" looks like a tool definition, but cannot be read '
                          f"as one: {problem}")
