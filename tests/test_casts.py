"""Casts made explicit, opt-in: a passing call's arguments with each exact cast applied, the
paths that changed, and those no exact cast fits; the caller's object never changes."""

from __future__ import annotations

import copy

import pytest

import turngate
from turngate import Call, check_turn
from turngate.turn.loop import Loop, Tool


def cast(type_schema, value, table=None):
    schema = {"type": "object", "properties": {"v": type_schema}}
    result = turngate.compile_schema(schema, table, casts=True).cast({"v": value})
    return result.arguments["v"], result.changed, result.not_cast


@pytest.mark.parametrize("schema, sent, wanted", [
    ({"type": "integer"}, "5", 5), ({"type": "integer"}, " 7 ", 7),
    ({"type": "integer"}, "5.0", 5), ({"type": "boolean"}, "true", True), ({"type": "boolean"}, "False", False),
    ({"type": "boolean"}, 1, True), ({"type": "boolean"}, 0, False), ({"type": "string"}, 42, "42"),
    ({"type": "string"}, 2.5, "2.5"), ({"type": "number"}, "2.5", 2.5), ({"type": "number"}, "3", 3),
    ({"type": "string", "enum": ["draft", "published"]}, "Draft", "draft"),
    ({"type": "string", "enum": ["1", "2"]}, 2, "2"),
    ({"enum": [True, "x"]}, "TRUE", True),
    ({"type": ["integer", "null"]}, "5", 5),
])
def test_each_exact_cast_is_applied_and_its_path_listed(schema, sent, wanted):
    value, changed, not_cast = cast(schema, sent)
    assert value == wanted and type(value) is type(wanted)
    assert changed == (("v",),) and not_cast == ()


@pytest.mark.parametrize("schema, sent", [
    ({"type": "integer"}, "abc"), ({"type": "integer"}, 5.5), ({"type": "boolean"}, 2), ({"type": "boolean"}, "yes"),
    ({"type": "string"}, True), ({"type": "object"}, [1, 2]), ({"type": "array"}, "a,b"),
    ({"type": "array"}, '["a"]'), ({"type": "object"}, '{"a": 1}'),
])
def test_a_value_no_exact_cast_fits_stays_as_sent_and_is_listed(schema, sent):
    value, changed, not_cast = cast(schema, sent)
    assert value == sent and changed == () and not_cast == (("v",),)


@pytest.mark.parametrize("schema, sent", [
    ({"type": "integer"}, 5), ({"type": "string"}, "x"), ({"type": "integer"}, None), ({}, "5"),
    ({"type": "string", "enum": ["draft"]}, "draft"), ({"type": "dict"}, "5"), ({"$ref": "#/x"}, "5"),
])
def test_values_already_as_declared_or_unjudged_are_left_alone(schema, sent):
    assert cast(schema, sent) == (sent, (), ())


DRAFT_04 = "http://json-schema.org/draft-04/schema#"
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("draft, wanted", [(DRAFT_04, 5), (DRAFT_2020_12, 5.0), (None, 5.0)])
def test_a_whole_float_is_cast_to_an_integer_only_where_the_draft_refuses_it(draft, wanted):
    """Draft-04 calls 5.0 a number but not an integer; later drafts call it an integer, so
    there (and where no draft is named) it is valid as sent, and left alone."""
    schema = {"type": "object", "properties": {"v": {"type": ["string", "integer"]}}}
    if draft:
        schema["$schema"] = draft
    result = turngate.compile_schema(schema, casts=True).cast({"v": 5.0})
    assert result.arguments["v"] == wanted and type(result.arguments["v"]) is type(wanted)
    assert result.changed == ((("v",),) if draft == DRAFT_04 else ())


@pytest.mark.parametrize("schema, sent", [
    ({"type": "string", "enum": [1, "1"]}, "1"),    # "1" is a member itself
    ({"enum": ["a", "A"]}, "A"),                    # so is "A"
    ({"type": ["string", "integer"]}, "5"),         # text is declared
    ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, "5"),
])
def test_a_value_valid_as_sent_is_never_cast(schema, sent):
    for table in ("adr246", "extended"):
        outer = {"type": "object", "properties": {"v": schema}}
        result = turngate.compile_schema(outer, table, casts=True).cast({"v": sent})
        assert result.arguments == {"v": sent} and result.changed == (), table


@pytest.mark.parametrize("schema, sent", [
    ({"type": "integer", "minimum": 10}, "5"),      # 5 is below the minimum
    ({"type": "string", "enum": ["7"]}, 5),         # "5" is no member
    ({"type": "string", "maxLength": 1}, 42),       # "42" is too long
])
def test_a_cast_is_made_only_to_a_value_the_schema_then_accepts(schema, sent):
    result = turngate.compile_schema({"type": "object", "properties": {"v": schema}}, casts=True).cast({"v": sent})
    assert result.arguments == {"v": sent} and result.changed == ()


def test_nothing_is_cast_below_a_node_a_cast_there_could_break():
    """`uniqueItems` reads what the elements hold: casting "1" to 1 beside a 1 would break it."""
    schema = {"type": "array", "uniqueItems": True, "items": {"type": "integer"}}
    result = turngate.compile_schema(schema, casts=True).cast([1, "1"])
    assert result.arguments == [1, "1"] and result.changed == ()
    without = {"type": "array", "items": {"type": "integer"}}
    assert turngate.compile_schema(without, casts=True).cast([1, "1"]).arguments == [1, 1]


def test_json_text_is_cast_to_the_list_or_object_where_the_table_admits_it():
    assert cast({"type": "array", "items": {"type": "integer"}}, '["1", 2]', "extended") == ([1, 2], (("v",), ("v", 0)), ())
    assert cast({"type": "object"}, '{"a": 1}', "extended") == ({"a": 1}, (("v",),), ())


def test_casts_reach_nested_arguments_refs_and_unions():
    schema = {"$defs": {"N": {"type": "integer"}}, "type": "object", "properties": {
        "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}}},
        "maybe": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
        "extra": {"type": "object", "additionalProperties": {"type": "number"}}}}
    sent = {"items": [{"n": "1"}, {"n": 2}, {"n": "x"}], "maybe": "true", "extra": {"a": "1.5"}}
    result = turngate.compile_schema(schema, "extended", casts=True).cast(sent)
    assert result.arguments == {"items": [{"n": 1}, {"n": 2}, {"n": "x"}], "maybe": True, "extra": {"a": 1.5}}
    assert result.changed == (("items", 0, "n"), ("maybe",), ("extra", "a"))
    assert result.not_cast == (("items", 2, "n"),)


def test_the_callers_object_is_never_changed_and_unchanged_parts_are_shared():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "object"}}}
    sent = {"a": "5", "b": {"deep": ["x"]}}
    before = copy.deepcopy(sent)
    result = turngate.compile_schema(schema, casts=True).cast(sent)
    assert sent == before and result.arguments is not sent and result.arguments["a"] == 5
    assert result.arguments["b"] is sent["b"]
    unchanged = {"a": 5}
    assert turngate.compile_schema(schema, casts=True).cast(unchanged).arguments is unchanged


def test_casting_a_schema_compiled_without_casts_is_an_error():
    with pytest.raises(ValueError, match="compiled without casts"):
        turngate.compile_schema({"type": "integer"}).cast("5")
    with pytest.raises(ValueError, match=r"casts are asked for where the Toolset is made: Toolset\(tools, casts=True\)"):
        check_turn([Call("a", "count", {"n": 1})], turngate.Toolset(TOOLS), casts=True)


TOOLS = {"count": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}


def test_the_turn_gate_casts_only_when_asked():
    plain = check_turn([Call("a", "count", {"n": "5"})], TOOLS)
    assert plain.calls[0].arguments == {"n": "5"} and plain.casts == ()
    cast_turn = check_turn([Call("a", "count", '{"n": "5"}')], TOOLS, casts=True)
    assert cast_turn.ok and cast_turn.calls[0].arguments == {"n": 5}
    assert cast_turn.casts[0].changed == (("n",),)


def test_the_loop_records_the_changed_paths_on_the_run_step():
    class Hooks:
        def approve(self, calls): return True
        def ask(self, calls): return {}
        def charge(self, call): pass
        def execute(self, call, given): return call.arguments
        def remember(self, call, result): pass

    loop = Loop([Tool("count", TOOLS["count"])], Hooks(), casts=True)
    outcome = loop.run_turn([Call("a", "count", {"n": "5"})])
    assert outcome.answers == (("a", {"n": 5}),)
    assert (loop.steps[0].casts, loop.steps[0].cast_count) == (("n",), 1)
    private = Loop([Tool("count", TOOLS["count"])], Hooks(), casts=True, privacy="metadata-only")
    private.run_turn([Call("a", "count", {"n": "5"})])
    assert (private.steps[0].casts, private.steps[0].cast_count) == ((), 1)
