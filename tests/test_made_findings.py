"""Findings worded at compile time: at the root, a missing required argument and an argument
refused by its type alone (a list or an object where its property admits neither) are
worded when the schema is compiled, and the check hands out those findings. They must be
exactly what the walk would have found and said, under every table."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import turngate
from turngate.check.refusal import _CapReached, mismatch_list_class
from turngate.compile.compiled_table import compiled_table
from turngate.compile.node import walk, walk_steps
from turngate.kinds.required import RequiredRule
from turngate.kinds.verdict import PASSED, Verdict

TABLES = ("adr246", "strict", "extended")
TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")
SCHEMA = {
    "type": "object",
    "properties": {f"{name}_arg": {"type": name} for name in TYPES} | {
        "either": {"type": ["string", "integer"]}, "open": {}, "listed": {"type": "string", "enum": ["a"]},
        "nested": {"type": "object", "properties": {"inner": {"type": "string"}}, "required": ["deep"]},
    },
    "required": ["string_arg", "integer_arg", "undeclared", "nested"],
}
SENT = [[], [1, "x"], [[{}]], {}, {"k": [1]}, {"a": {"b": None}}, "text", '{"k": 1}', "[1]", 5, 2.5, True, None]


def walked(compiled, value) -> Verdict:
    """The verdict of a walk of every root rule, each finding worded as it is found."""
    passed = Verdict(True, unjudged=compiled.unjudged)
    if compiled.root.fits(value):
        return passed
    found = mismatch_list_class(compiled_table(compiled.table))()
    try:
        walk(walk_steps(compiled.root.entries), value, (), found)
    except _CapReached:
        return Verdict(False, tuple(found), True, compiled.unjudged)
    return Verdict(False, tuple(found), False, compiled.unjudged) if found else passed


@pytest.mark.parametrize("table", TABLES)
def test_every_argument_sent_as_anything_gets_what_the_walk_says(table):
    compiled = turngate.compile_schema(SCHEMA, table)
    for name in SCHEMA["properties"]:
        for sent in SENT:
            arguments = {"string_arg": "s", "nested": {"deep": 1}, name: sent}
            assert compiled.check(arguments) == walked(compiled, arguments), (name, sent)
            nested = {"string_arg": "s", "integer_arg": 1, "nested": {"inner": sent}}
            assert compiled.check(nested) == walked(compiled, nested), sent


@pytest.mark.parametrize("table", TABLES)
def test_missing_arguments_past_the_cap_are_cut_as_the_walk_cuts_them(table):
    names = [f"n{index}" for index in range(14)]
    schema = {"type": "object", "properties": {name: {"type": "integer"} for name in names[::2]},
              "required": names}
    compiled = turngate.compile_schema(schema, table)
    for arguments in ({}, {"n0": [], "n1": {}}, {name: [] for name in names[:4]}):
        verdict = compiled.check(arguments)
        assert verdict == walked(compiled, arguments)
        assert len(verdict.mismatches) == 10 and verdict.truncated


def test_a_finding_made_at_compile_time_is_handed_out_again_and_only_at_the_root():
    compiled = turngate.compile_schema(SCHEMA)
    first = compiled.check({"string_arg": [1], "nested": {"deep": 1, "inner": [1]}})
    again = compiled.check({"string_arg": ["other", {}], "nested": {"deep": 1, "inner": [2]}})
    assert first == again
    (missing, _, root_kind, nested_kind), (missing_again, _, root_again, nested_again) = first.mismatches, again.mismatches
    assert (missing.path, root_kind.path, nested_kind.path) == (("integer_arg",), ("string_arg",), ("nested", "inner"))
    assert root_kind is root_again and missing is missing_again
    assert nested_kind is not nested_again  # below the root, the path is not fixed: worded per check


class HintedRule:
    """A host's rule kind that reports findings of an engine's code with a fact of its own."""

    codes: tuple = ()
    facts = ("hint",)

    @classmethod
    def from_node(cls, node, context):
        return None

    fits = staticmethod(lambda value: True)

    def collect(self, value, path, found):  # pragma: no cover - never compiled from a node
        found.add(path, self.codes[0], {"hint": "h"})


@pytest.mark.parametrize("hinted", ["kind", "missing"])
def test_a_code_a_hosts_rule_kind_declares_facts_for_is_worded_at_every_check(tmp_path, hinted):
    turngate.register_rule_kind("test-hinted", type("Hinted", (HintedRule,), {"codes": (hinted,)}))
    try:
        (tmp_path / "hinted.rules").write_text(
            f'table hinted extends adr246\n\nmessage {hinted} with hint  "{{argument}}: {{hint}}."\n')
        compiled = turngate.compile_schema(SCHEMA, turngate.load_table(tmp_path / "hinted.rules"))
        first, again = (compiled.check({"string_arg": sent, "nested": {"deep": 1}}) for sent in ([1], [2]))
        assert first == again == walked(compiled, {"string_arg": [1], "nested": {"deep": 1}})
        by_code = {m.code: (m, m_again) for m, m_again in zip(first.mismatches, again.mismatches)}
        assert set(by_code) == {"kind", "missing"}
        for code, (mismatch, mismatch_again) in by_code.items():
            # What no host's fact can change is made once; the rest is worded at each check.
            assert (mismatch is mismatch_again) == (code != hinted), code
    finally:
        del turngate.kinds.registry.RULE_KINDS["test-hinted"]


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=6)
NAMES = st.sampled_from(["a", "b", "c", "d", "e"])


@settings(max_examples=100, deadline=None)
@given(table=st.sampled_from(TABLES),
       types=st.dictionaries(NAMES, st.sampled_from(TYPES) | st.lists(st.sampled_from(TYPES), max_size=2)),
       required=st.lists(NAMES, unique=True), closed=st.booleans(),
       arguments=st.dictionaries(NAMES | st.text(max_size=3), JSON, max_size=6))
def test_any_flat_schema_and_arguments_get_what_the_walk_says(table, types, required, closed, arguments):
    schema = {"type": "object", "properties": {name: {"type": kind} for name, kind in types.items()},
              "required": required, "additionalProperties": not closed}
    compiled = turngate.compile_schema(schema, table)
    assert compiled.check(arguments) == walked(compiled, arguments)


@pytest.mark.parametrize("table", TABLES)
def test_a_required_plain_property_has_the_facts_a_walk_through_the_skips_gives(table):
    """A plain property (a declared type and annotations) skips no skip trigger when its
    null facts are read; coverage's compilation, which has no plain leaves, tries them all."""
    properties = {"s": {"type": "string"}, "sn": {"type": ["string", "null"]}, "none": {"title": "x"},
                  "odd": {"type": "nonsense"}, "empty": {"type": []}, "null": {"type": "null"},
                  "nullable": {"type": "string", "nullable": True}, "dated": {"type": "string", "format": "date"}}
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    resolved = turngate.check.schema.resolve_table(table)

    def required_names(visits):
        root = turngate.compile.compiler.compile_node(schema, resolved, visits=visits)
        return next(rule.names for rule, _ in root.entries if isinstance(rule, RequiredRule))
    assert required_names(None) == required_names([])
    assert ("odd", False, ()) in required_names(None)


@pytest.mark.parametrize("table", TABLES)
def test_a_sentence_the_schema_decides_is_what_the_wording_makes_for_any_argument(table):
    """`Wording.decided` makes all but the argument's name once per kind of finding: the
    sentence must still be the one `wording(facts, path)` makes, cut and capitalised for the
    argument it names."""
    words = compiled_table(turngate.load_table(table)).words
    paths = [("uid",), ("a" * 300,), (), ("two words",), ("elements", 2, "x"), ("ünïcode",)]
    type_lists = [(name,) for name in TYPES] + [("string", "integer"), ("array", "null"), ()]
    for code, facts_of in (("kind", lambda types: [{"types": types, "value": []}, {"types": types, "value": {}}]),
                           ("missing", lambda types: [{"types": types}])):
        wording = words.wording(code)
        for types in type_lists:
            for facts in facts_of(types):
                for path in paths * 2:  # the second time from what was made the first
                    assert wording.decided(facts, path) == wording(facts, path), (code, facts, path)
