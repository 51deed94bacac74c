"""Order, cap and determinism of the mismatch list (semantics.md, "Order, cap, determinism")."""

from __future__ import annotations

import pytest

import turngate
from turngate.check.refusal import mismatch_list_class
from turngate.compile.compiled_table import compiled_table
from turngate.compile.node import walk, walk_steps
from support import codes_and_paths, verdict

SCHEMA = {
    "type": "object",
    "properties": {
        "a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}, "z": {},
        "inner": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["y", "x"]},
    },
    "required": ["c", "a", "z"],
    "additionalProperties": False,
}


def test_required_mismatches_come_first_in_required_order_then_arguments_as_sent():
    sent = {"b": [], "extra": 1, "inner": {"x": {}}, "a": None}
    assert codes_and_paths(SCHEMA, sent) == [
        ("missing", ("c",)),
        ("null", ("a",)),
        ("missing", ("z",)),
        ("kind", ("b",)),
        ("additional", ("extra",)),
        ("missing", ("inner", "y")),
        ("kind", ("inner", "x")),
    ]


def test_a_null_required_argument_is_reported_in_required_order():
    assert codes_and_paths(SCHEMA, {"a": None, "c": None, "z": 1}) == [("null", ("c",)), ("null", ("a",))]


def test_a_kind_mismatch_ends_the_node():
    schema = {"type": "string", "enum": ["a"]}
    assert codes_and_paths(schema, ["b"]) == [("kind", ())]


def test_an_enum_mismatch_ends_the_node():
    schema = {"enum": [{"a": 1}], "required": ["b"], "properties": {"a": {"type": "string"}}}
    assert codes_and_paths(schema, {"a": [1]}) == [("enum", ())]


def test_a_kind_mismatch_of_an_object_skips_its_required_and_members():
    schema = {"type": "array", "required": ["x"], "additionalProperties": False}
    assert codes_and_paths(schema, {"y": 1}) == [("kind", ())]


def many(n):
    return {"type": "array", "items": {"type": "string"}}, [[i] for i in range(n)]


def test_at_most_ten_mismatches_and_the_list_says_it_was_cut():
    result = verdict(*many(25))
    assert len(result.mismatches) == 10 and result.truncated and not result.ok
    assert [m.path for m in result.mismatches] == [(i,) for i in range(10)]


def test_exactly_ten_mismatches_are_not_cut():
    result = verdict(*many(10))
    assert len(result.mismatches) == 10 and not result.truncated


def test_eleven_mismatches_are_cut():
    assert verdict(*many(11)).truncated


class Watched(list):
    """A list that records how far it was read."""

    def __init__(self, items):
        super().__init__(items)
        self.seen = -1

    def __iter__(self):
        for index, item in enumerate(list.__iter__(self)):
            self.seen = max(self.seen, index)
            yield item


def test_the_check_stops_looking_after_the_eleventh_mismatch():
    schema, _ = many(0)
    sent = Watched([[i] for i in range(1000)])
    result = turngate.compile_schema(schema).check(sent)
    assert result.truncated
    assert sent.seen == 10


def test_a_verdict_and_its_mismatches_are_frozen():
    result = verdict(*many(2))
    with pytest.raises(AttributeError):
        result.ok = True  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.mismatches[0].message = "changed"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.__dict__  # noqa: B018 (slotted: no attribute can be added either)


ROOTS_BY_RULE_COUNT = [  # under the strict table, whose lists and objects admit only themselves
    {},
    {"type": "integer"},
    {"type": "object", "required": ["a"]},
    {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}},
    {"type": "object", "enum": [{"a": 1}, {"a": "x"}], "required": ["a"],
     "properties": {"a": {"type": "integer"}}},
    {"type": ["object", "array"], "enum": [{"a": 1}, {"a": "x"}, ["x"], [1]], "required": ["a"],
     "properties": {"a": {"type": "integer"}}, "items": {"type": "string"}},
]
VALUES = [{}, {"a": 1}, {"a": "x"}, {"a": {}}, {"a": None}, {"b": 2}, [1], ["x"], [{}], "text", 5, None, True]


@pytest.mark.parametrize("schema", ROOTS_BY_RULE_COUNT, ids=lambda s: f"{len(s)} keywords")
def test_the_check_begins_at_the_failing_root_rule_and_finds_what_all_of_them_find(schema):
    """The check tests the root's rules one by one and collects from the one that failed;
    its verdict is the one a walk of every rule from the first gives."""
    compiled = turngate.compile_schema(schema, "strict")
    assert len(compiled.root.entries) == ROOTS_BY_RULE_COUNT.index(schema)
    for value in VALUES:
        found = mismatch_list_class(compiled_table(compiled.table))()
        if compiled.root.entries:
            walk(walk_steps(compiled.root.entries), value, (), found)
        verdict = compiled.check(value)
        assert verdict.ok == compiled.root.fits(value) == (not found)
        assert verdict.mismatches == tuple(found), value
