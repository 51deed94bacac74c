"""Host-defined rule kinds: a host registers a small class and writes a few table lines, and
`engine/` is not touched. Proven with kinds for minLength/maxLength, minimum/maximum,
pattern and const, all defined here."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from typing import ClassVar

import pytest
from attrs import frozen

import turngate
from conftest import EXAMPLES, ROOT
from turngate.values.kinds import json_equal, kind_of

SHIPPED_KINDS = ("kind", "enum", "required", "members", "members-and-extra", "elements", "ref", "union")


@frozen
class LengthRule:
    codes: ClassVar = ("too-short", "too-long")
    facts: ClassVar = ("limit", "length")
    shortest: int | None
    longest: int | None

    @classmethod
    def from_node(cls, node, context):
        shortest, longest = node.get("minLength"), node.get("maxLength")
        shortest = shortest if type(shortest) is int else None
        longest = longest if type(longest) is int else None
        return None if shortest is None and longest is None else cls(shortest, longest)

    def fits(self, value):
        if type(value) is not str:
            return True
        return (self.shortest is None or len(value) >= self.shortest) and (self.longest is None or len(value) <= self.longest)

    def findings(self, value, walk):
        if self.shortest is not None and len(value) < self.shortest:
            yield turngate.Finding("too-short", {"limit": self.shortest, "length": len(value)})
        else:
            yield turngate.Finding("too-long", {"limit": self.longest, "length": len(value)})


@frozen
class RangeRule:
    codes: ClassVar = ("too-small", "too-large")
    facts: ClassVar = ("limit",)
    lowest: float | None
    highest: float | None

    @classmethod
    def from_node(cls, node, context):
        lowest, highest = node.get("minimum"), node.get("maximum")
        numbers = [v if kind_of(v) == "number" else None for v in (lowest, highest)]
        return None if numbers == [None, None] else cls(*numbers)

    def _number(self, value):
        if kind_of(value) == "number" and not (isinstance(value, float) and not math.isfinite(value)):
            return value
        return None

    def fits(self, value):
        number = self._number(value)
        return number is None or ((self.lowest is None or number >= self.lowest)
                                  and (self.highest is None or number <= self.highest))

    def findings(self, value, walk):
        if self.lowest is not None and self._number(value) < self.lowest:
            yield turngate.Finding("too-small", {"limit": self.lowest, "value": value})
        else:
            yield turngate.Finding("too-large", {"limit": self.highest, "value": value})


@frozen
class PatternRule:
    codes: ClassVar = ("pattern",)
    facts: ClassVar = ("pattern",)
    source: str
    compiled: re.Pattern

    @classmethod
    def from_node(cls, node, context):
        pattern = node.get("pattern")
        try:
            return cls(pattern, re.compile(pattern)) if type(pattern) is str else None
        except re.error:
            return None  # what cannot be judged is not refused

    def fits(self, value):
        return type(value) is not str or self.compiled.search(value) is not None

    def findings(self, value, walk):
        yield turngate.Finding("pattern", {"pattern": self.source, "value": value})


@frozen
class ConstRule:
    codes: ClassVar = ("const",)
    facts: ClassVar = ("wanted",)
    wanted: object

    @classmethod
    def from_node(cls, node, context):
        return cls(node["const"]) if "const" in node else None

    def fits(self, value):
        return value is None or json_equal(value, self.wanted)

    def findings(self, value, walk):
        yield turngate.Finding("const", {"wanted": self.wanted, "value": value})


HOST_TABLE = """\
table host extends adr246

rule length   uses test-length   after enum
rule range    uses test-range    after length
rule pattern  uses test-pattern  after range
rule const    uses test-const    after pattern

message too-short  "{argument} is {length} characters long; at least {limit} are needed."
message too-long   "{argument} is {length} characters long; at most {limit} are allowed."
message too-small  "{argument} must be at least {limit}, but {sent} was sent."
message too-large  "{argument} must be at most {limit}, but {sent} was sent."
message pattern    "{argument} must match the pattern {pattern}, but {sent} was sent."
message const      "{argument} must be {wanted}, but {sent_kind} was sent."
"""


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    assert set(turngate.kinds.registry.RULE_KINDS) == set(SHIPPED_KINDS)
    for name, kind in [("test-length", LengthRule), ("test-range", RangeRule),
                       ("test-pattern", PatternRule), ("test-const", ConstRule)]:
        turngate.register_rule_kind(name, kind)
    folder = tmp_path_factory.mktemp("host")
    (folder / "host.rules").write_text(HOST_TABLE)
    yield turngate.load_table(folder / "host.rules")
    for name in ("test-length", "test-range", "test-pattern", "test-const"):
        del turngate.kinds.registry.RULE_KINDS[name]  # other tests see only the shipped kinds


SCHEMA = {"type": "object", "properties": {
    "title": {"type": "string", "minLength": 3, "maxLength": 10},
    "count": {"type": "integer", "minimum": 1, "maximum": 5},
    "slug": {"type": "string", "pattern": "^[a-z-]+$"},
    "version": {"const": 2},
}}


def messages(table, arguments):
    return [(m.code, m.message) for m in turngate.compile_schema(SCHEMA, table).check(arguments).mismatches]


def test_the_host_rules_refuse_what_they_judge(table):
    assert messages(table, {"title": "ab", "count": 0, "slug": "Not A Slug", "version": 3}) == [
        ("too-short", '"title" is 2 characters long; at least 3 are needed.'),
        ("too-small", '"count" must be at least 1, but 0 was sent.'),
        ("pattern", '"slug" must match the pattern "^[a-z-]+$", but "Not A Slug" was sent.'),
        ("const", '"version" must be 2, but a number was sent.'),
    ]
    assert [code for code, _ in messages(table, {"title": "x" * 11, "count": 6})] == ["too-long", "too-large"]


def test_the_host_rules_pass_what_fits_and_keep_the_defaults_leniency(table):
    assert messages(table, {"title": "abc", "count": "5", "slug": "a-slug", "version": 2.0}) == []
    assert messages(table, {"title": None, "count": None}) == []


def test_the_default_checks_still_run_first_and_stop_the_node(table):
    assert messages(table, {"title": ["ab"]}) == [("kind", '"title" must be text, but a list was sent.')]


def test_the_default_table_is_untouched_by_host_kinds(table):
    assert [m.code for m in turngate.compile_schema(SCHEMA).check({"title": "ab"}).mismatches] == []


def test_a_host_kind_must_be_registered_before_a_table_uses_it(tmp_path):
    path = tmp_path / "late.rules"
    path.write_text("table late extends adr246\nrule x uses not-registered-yet\n")
    with pytest.raises(turngate.TableError, match='there is no rule kind "not-registered-yet"'):
        turngate.load_table(path)


def test_a_class_without_the_protocol_cannot_be_registered():
    class NotARule:
        codes = ()
    with pytest.raises(TypeError, match="a rule kind needs 'facts'"):
        turngate.register_rule_kind("broken", NotARule)


def test_the_host_messages_are_bounded_sentences(table):
    long_value = {"title": "x" * 5000, "count": 10 ** 400, "slug": "\n" * 300, "version": {"a": [1] * 100}}
    for _, message in messages(table, long_value):
        assert len(message) <= 200 and message.endswith(".") and "\n" not in message


def test_the_writing_a_rule_example_of_the_tables_page_runs_as_shown():
    page = (ROOT / "docs" / "tables.md").read_text()
    for name in ("max_length.py", "host.rules"):
        assert (EXAMPLES / "writing_a_rule" / name).read_text() in page
    done = subprocess.run([sys.executable, "examples/writing_a_rule/check_title.py"], capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout == '"title" is 34 characters long; at most 20 are allowed.\n'


def test_engine_ships_no_host_code():
    """The host's rule kinds stay the host's: no refusal of the engine reads these keywords.
    (`exact` and `validators` read them only to be sure a cast value fits, and `drafts` lists
    which draft defines them; none refuses anything. `union` reads `const` only to tell which
    branch an object can belong to, and refuses nothing by it.)"""
    shipped = [path for path in (ROOT / "engine").rglob("*.py")
               if path.name not in ("exact.py", "validators.py", "drafts.py")]
    for path in shipped:
        text = path.read_text().replace('"const", ', "")
        for keyword in ("minLength", "maxLength", "minimum", "maximum", '"pattern"', '"const"'):
            assert keyword not in text or (path.name, keyword) == ("union.py", '"const"'), (path.name, keyword)


@frozen
class EachValueRule:
    """A host kind that looks below: every value of an object against `x-each-value`, and
    the object itself against `x-also` (walk.descend and walk.visit)."""

    codes: ClassVar = ()
    facts: ClassVar = ()
    each: object
    also: object

    @classmethod
    def from_node(cls, node, context):
        if "x-each-value" not in node:
            return None
        return cls(context.child(node["x-each-value"], "x-each-value"), context.child(node.get("x-also", {}), "x-also"))

    def fits(self, value):
        return not isinstance(value, dict) or (all(self.each.fits(v) for v in value.values()) and self.also.fits(value))

    def findings(self, value, walk):
        for key, item in value.items():
            walk.descend(key, self.each, item)
        walk.visit(self.also, value)
        return ()


def test_a_host_kind_can_look_below_and_beside_with_the_walk(tmp_path):
    turngate.register_rule_kind("test-each-value", EachValueRule)
    try:
        path = tmp_path / "each.rules"
        path.write_text("table each extends adr246\nrule each uses test-each-value\n")
        schema = {"x-each-value": {"type": "integer"}, "x-also": {"required": ["id"]}}
        verdict = turngate.compile_schema(schema, turngate.load_table(path)).check({"a": 1, "b": [2], "c": {}})
        assert [(m.code, m.path) for m in verdict.mismatches] == [
            ("kind", ("b",)), ("kind", ("c",)), ("missing", ("id",))]
    finally:
        del turngate.kinds.registry.RULE_KINDS["test-each-value"]


@frozen
class ChoicesRule:
    """A kind whose facts are a list, a guard, and a fact named like an engine text."""

    codes: ClassVar = ("not-listed",)
    facts: ClassVar = ("choices", "hint", "expected")
    choices: tuple
    reported: tuple  # which optional facts it reports

    @classmethod
    def from_node(cls, node, context):
        choices = node.get("x-choices")
        return cls(tuple(choices), tuple(node.get("x-report", ()))) if isinstance(choices, list) else None

    def fits(self, value):
        return value in self.choices

    def findings(self, value, walk):
        facts = {"choices": self.choices, "value": value}
        facts.update({name: given for name, given in (("hint", "ask the user"), ("expected", "a listed name"),
                                                      ("types", ("string",))) if name in self.reported})
        yield turngate.Finding("not-listed", facts)


CHOICES_TABLE = """\
table choices extends adr246

rule choices  uses test-choices

message not-listed with hint  "{argument} is not one of {choices} ({hint})."
message not-listed            "{argument} must be {expected}, one of {choices}."
"""


@pytest.fixture()
def choices_table(tmp_path):
    turngate.register_rule_kind("test-choices", ChoicesRule)
    (tmp_path / "choices.rules").write_text(CHOICES_TABLE)
    yield turngate.load_table(tmp_path / "choices.rules")
    del turngate.kinds.registry.RULE_KINDS["test-choices"]


@pytest.mark.parametrize(("reported", "message"), [
    (["hint"], '"pick" is not one of "a", "b" ("ask the user").'),
    (["expected", "types"], '"pick" must be "a listed name", one of "a", "b".'),
    (["types"], '"pick" must be text, one of "a", "b".'),
    ([], '"pick" must be …, one of "a", "b".'),
])
def test_a_host_kinds_facts_are_worded_by_the_table(choices_table, reported, message):
    """A list fact is quoted as a list; a guard on a host fact picks its message; a host
    fact named like an engine text is the host's where reported, else the engine's (from
    `types`); a fact no one reported is marked, not guessed."""
    schema = {"type": "object", "properties": {"pick": {"x-choices": ["a", "b"], "x-report": reported}}}
    verdict = turngate.compile_schema(schema, choices_table).check({"pick": "c"})
    assert [m.message for m in verdict.mismatches] == [message]


@frozen
class DateFormatRule:
    """A host kind that reads an annotation keyword of the default table (`format`)."""

    codes: ClassVar = ("not-a-date",)
    facts: ClassVar = ()

    @classmethod
    def from_node(cls, node, context):
        return cls() if node.get("format") == "date" else None

    def fits(self, value):
        return type(value) is not str or re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) is not None

    def findings(self, value, walk):
        yield turngate.Finding("not-a-date", {"value": value})


def test_a_host_kind_reading_an_annotation_sees_every_property_that_has_it(tmp_path):
    """Plain properties share one compiled node per type only under the engine's own rule
    kinds; a host's kind may read any keyword, so each property is compiled for itself."""
    turngate.register_rule_kind("test-date", DateFormatRule)
    try:
        (tmp_path / "dates.rules").write_text(
            'table dates extends adr246\nrule date uses test-date\nmessage not-a-date "{argument} must be a date."\n')
        table = turngate.load_table(tmp_path / "dates.rules")
        turngate.compile_schema({"type": "object", "properties": {"plain": {"type": "string"}}}, table)
        schema = {"type": "object", "properties": {"when": {"type": "string", "format": "date"}}}
        assert [m.message for m in turngate.compile_schema(schema, table).check({"when": "soon"}).mismatches] == [
            '"when" must be a date.']
    finally:
        del turngate.kinds.registry.RULE_KINDS["test-date"]
