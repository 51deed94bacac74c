"""A keyword is judged, and cast through, only under the drafts that define it; casts are
judged by python-jsonschema itself (issue 20: draft-03 has no anyOf, `if` is draft-07's, a
draft-03 property's `"required": true`, a `-0.0` valid as sent)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import jsonschema
import pytest

import turngate
from turngate.compile.drafts import ANY_DRAFT, DRAFTS, JUDGED_BY_SOME_DRAFT

DRAFT_03 = "http://json-schema.org/draft-03/schema#"
DRAFT_04 = "http://json-schema.org/draft-04/schema#"
DRAFT_06 = "http://json-schema.org/draft-06/schema#"
DRAFT_07 = "http://json-schema.org/draft-07/schema#"
DRAFT_2019_09 = "https://json-schema.org/draft/2019-09/schema"
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
TABLES = sorted(turngate.shipped_tables())
VALIDATORS = {"draft-03": jsonschema.Draft3Validator, "draft-04": jsonschema.Draft4Validator,
              "draft-06": jsonschema.Draft6Validator, "draft-07": jsonschema.Draft7Validator,
              "2019-09": jsonschema.Draft201909Validator, "2020-12": jsonschema.Draft202012Validator}
#: Keywords python-jsonschema reads beside another one (`then` by `if`, ...), per draft.
READ_BESIDE = {"draft-03": {"exclusiveMinimum", "exclusiveMaximum"}, "draft-04": {"exclusiveMinimum", "exclusiveMaximum"},
               "draft-07": {"then", "else"}, "2019-09": {"then", "else", "minContains", "maxContains"},
               "2020-12": {"then", "else", "minContains", "maxContains"}}


def valid(schema, instance) -> bool:
    return jsonschema.validators.validator_for(schema)(schema).is_valid(instance)


def refused(schema, instance, table) -> bool:
    return not turngate.compile_schema(schema, table).check(instance).ok


def cast(schema, instance, table="extended"):
    return turngate.compile_schema(schema, table, casts=True).cast(instance)


@pytest.mark.parametrize("draft", DRAFTS, ids=lambda draft: draft.name)
def test_each_draft_defines_the_keywords_python_jsonschema_judges_by(draft):
    assert draft.keywords == set(VALIDATORS[draft.name].VALIDATORS) | READ_BESIDE.get(draft.name, set())
    assert draft.keywords <= JUDGED_BY_SOME_DRAFT
    if draft.name != "draft-03":
        assert draft.keywords <= ANY_DRAFT.keywords


#: A node with a keyword its draft does not define, the instance valid under its draft, and
#: one its other keywords refuse (the node is judged by them).
UNDEFINED = [
    ({"$schema": DRAFT_03, "anyOf": [{"type": "integer"}]}, {}, None),
    ({"$schema": DRAFT_03, "oneOf": [{"type": "integer"}], "type": "object"}, {}, "x"),
    ({"$schema": DRAFT_03, "allOf": [{"type": "integer"}], "type": "string"}, "x", []),
    ({"$schema": DRAFT_03, "not": {"type": "object"}, "type": "object"}, {}, "x"),
    ({"$schema": DRAFT_04, "if": {"type": "object"}, "then": False, "type": "object"}, {}, "x"),
    ({"$schema": DRAFT_06, "if": {"type": "object"}, "then": False, "type": "object"}, {}, "x"),
    ({"$schema": DRAFT_03, "properties": {"p": {"anyOf": [{"type": "string"}], "type": "integer"}}}, {"p": 1}, {"p": []}),
]


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("schema, sent, refusable", UNDEFINED, ids=[
    "03-anyOf", "03-oneOf", "03-allOf", "03-not", "04-if", "06-if", "03-anyOf-in-a-property"])
def test_a_keyword_its_draft_does_not_define_neither_judges_nor_skips(schema, sent, refusable, table):
    assert valid(schema, sent) and not refused(schema, sent, table)
    if refusable is not None:  # the node is still judged by the keywords its draft defines
        assert not valid(schema, refusable) and refused(schema, refusable, table)


@pytest.mark.parametrize("keyword", ["anyOf", "oneOf"])
def test_draft_03_casts_nothing_through_a_union_it_does_not_define(keyword):
    schema = {"$schema": DRAFT_03, keyword: [{"type": "integer"}]}
    assert valid(schema, "5")
    assert cast(schema, "5") == turngate.Cast("5")


def test_a_draft_03_required_true_is_honoured_by_the_judge_of_casts():
    schema = {"$schema": DRAFT_03, "properties": {"a": {"type": "object", "properties": {
        "x": {"type": "integer", "required": True}}}}}
    assert cast(schema, {"a": '{"y": 1}'}).arguments == {"a": '{"y": 1}'}  # {"y": 1} lacks x
    assert cast(schema, {"a": '{"x": 1}'}).arguments == {"a": {"x": 1}}


LEAVES = [{"type": "integer"}, {"type": "number"}, {"type": "string"}, {"type": "boolean"}, {"enum": [0]},
          {"const": 0}, {"type": "integer", "minimum": 0}, {"type": ["integer", "string"]},
          {"type": "integer", "enum": [0, "0"]}]
SHAPES = [lambda leaf: (leaf, -0.0), lambda leaf: ({"anyOf": [leaf, {"type": "null"}]}, -0.0),
          lambda leaf: ({"oneOf": [leaf, {"type": "string"}]}, -0.0),
          lambda leaf: ({"properties": {"a": leaf}}, {"a": -0.0}), lambda leaf: ({"items": leaf}, [-0.0])]
DRAFT_URIS = [None, DRAFT_03, DRAFT_04, DRAFT_06, DRAFT_07, DRAFT_2019_09, DRAFT_2020_12]


@pytest.mark.parametrize("draft", DRAFT_URIS)
def test_minus_zero_valid_as_sent_is_never_cast(draft):
    for leaf, shape, table in itertools.product(LEAVES, SHAPES, TABLES):
        schema, sent = shape(dict(leaf))
        schema = {"$schema": draft, **schema} if draft else schema
        if valid(schema, sent):
            made = cast(schema, sent, table)
            assert json.dumps(made.arguments) == json.dumps(sent) and made.changed == (), (schema, table, made)


def test_casts_through_what_each_draft_defines_still_happen():
    assert cast({"$schema": DRAFT_04, "anyOf": [{"type": "integer"}, {"type": "null"}]}, "5").arguments == 5
    assert cast({"$schema": DRAFT_07, "properties": {"n": {"type": "integer", "const": 5}}}, {"n": "5"}).arguments == {"n": 5}
    # draft-04 calls 5.0 a number only; draft-06 on, an integer too (valid as sent)
    assert cast({"$schema": DRAFT_04, "type": "integer"}, 5.0).arguments == 5
    assert cast({"$schema": DRAFT_06, "type": "integer"}, 5.0).arguments == 5.0


def test_the_judge_of_casts_runs_no_pattern_and_follows_no_reference():
    catastrophic = {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string",
                                                                                  "pattern": "^(a+)+$"}}}
    made = cast(catastrophic, {"n": "5", "s": "a" * 40 + "!"}, "adr246")  # "s" is judged by no one
    assert made.arguments == {"n": 5, "s": "a" * 40 + "!"}


def test_python_jsonschema_is_imported_only_when_a_cast_is_judged():
    code = ("import sys, turngate\n"
            "c = turngate.compile_schema({'properties': {'n': {'type': 'integer'}}}, casts=True)\n"
            "c.check({'n': 'x'}); c.check({'n': 5}); turngate.check_turn([], {})\n"
            "assert 'jsonschema' not in sys.modules, 'checking imported jsonschema'\n"
            "assert c.cast({'n': '5'}).arguments == {'n': 5}\n"
            "assert 'jsonschema' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)
