"""One regression test per class of broken promise the differential test found against
python-jsonschema: `$ref` base URIs, draft mixing, casts of valid values, raises, unbounded
work from small inputs, and the smaller ones (reading a call's tool, table text, privacy)."""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema
import pytest

import turngate
from turngate import Call, check_turn
from turngate.turn.loop import Loop, Tool
from turngate.compile.refs import RefScope
from turngate.values.suggest import BUDGET, suggester
from turngate.values.kinds import decode_json
from support import one_clean_line

DRAFT_04 = "http://json-schema.org/draft-04/schema#"
DRAFT_07 = "http://json-schema.org/draft-07/schema#"
DRAFT_2019_09 = "https://json-schema.org/draft/2019-09/schema"
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
TABLES = sorted(turngate.shipped_tables())


def valid(schema, instance) -> bool:
    return jsonschema.validators.validator_for(schema)(schema).is_valid(instance)


def refused(schema, instance, table="extended") -> bool:
    return not turngate.compile_schema(schema, table).check(instance).ok


# ── $ref as the specification resolves it ──────────────────────────────────────────────

ID_IN_A_REF_CHAIN = {"$defs": {"a": {"$id": "http://x.test/a", "$defs": {"b": {"type": "string"}}, "$ref": "#/$defs/b"},
                               "b": {"type": "object"}},
                     "properties": {"p": {"$ref": "#/$defs/a"}}}


@pytest.mark.parametrize("draft", [DRAFT_2019_09, DRAFT_2020_12, None])
def test_an_id_inside_a_ref_chain_sets_the_base_of_the_refs_below_it(draft):
    schema = {**ID_IN_A_REF_CHAIN, **({"$schema": draft} if draft else {})}
    assert valid(schema, {"p": "x"}) and not refused(schema, {"p": "x"})
    if draft:  # read as the named draft, the chain is judged: by the string schema, not the object one
        assert not valid(schema, {"p": [1]}) and refused(schema, {"p": [1]})


def test_a_pointer_into_a_subschema_with_its_own_id_resolves_against_that_id():
    schema = {"$schema": DRAFT_2020_12, "$defs": {"inner": {"$id": "http://x.test/inner", "$defs": {
        "s": {"type": "string"}}, "properties": {"q": {"$ref": "#/$defs/s"}}}, "s": {"type": "object"}},
        "properties": {"p": {"$ref": "http://x.test/inner"}}}
    assert valid(schema, {"p": {"q": "x"}}) and not refused(schema, {"p": {"q": "x"}})
    assert refused(schema, {"p": {"q": [1]}})


def test_draft_04_id_sets_the_base_and_dollar_id_does_not_there():
    schema = {"$schema": DRAFT_04, "definitions": {"a": {"id": "http://x.test/a", "definitions": {
        "b": {"type": "string"}}, "properties": {"q": {"$ref": "#/definitions/b"}}}, "b": {"type": "object"}},
        "properties": {"p": {"$ref": "#/definitions/a"}}}
    assert valid(schema, {"p": {"q": "x"}}) and not refused(schema, {"p": {"q": "x"}})
    as_if_07 = json.loads(json.dumps(schema).replace('"id"', '"$id"').replace(DRAFT_04, DRAFT_07))
    assert valid(as_if_07, {"p": {"q": "x"}}) and not refused(as_if_07, {"p": {"q": "x"}})


def test_percent_encoded_pointers_are_decoded_before_they_are_split():
    schema = {"$schema": DRAFT_2020_12, "$defs": {"a": {"b": {"type": "string"}}, "a/b": {"type": "object"},
                                                  "c d": {"type": "integer"}, "e~f": {"type": "boolean"}},
              "properties": {"p": {"$ref": "#/$defs/a%2Fb"}, "q": {"$ref": "#/$defs/c%20d"},
                             "r": {"$ref": "#/$defs/e~0f"}}}
    sent = {"p": "x", "q": 1, "r": True}
    assert valid(schema, sent) and not refused(schema, sent)
    assert refused(schema, {"p": {}}) and refused(schema, {"q": []}) and refused(schema, {"r": []})


@pytest.mark.parametrize("reference", ["#/items/²", "#/items/-1", "#/items/ 0", "#/nowhere", "http://elsewhere/x",
                                       "#anchor-nowhere", "#/%zz"])
def test_a_reference_that_leads_nowhere_here_is_skipped_never_raises(reference):
    schema = {"items": [{"type": "string"}], "properties": {"x": {"$ref": reference}}}
    for table in TABLES:
        compiled = turngate.compile_schema(schema, table)
        assert compiled.check({"x": [1]}).ok or table == "extended"


# ── Drafts ─────────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("draft", [DRAFT_04, DRAFT_07, DRAFT_2019_09, None])
def test_prefix_items_mean_nothing_before_2020_12(table, draft):
    schema = {"type": "array", "prefixItems": [{"type": "string"}], **({"$schema": draft} if draft else {})}
    # With no draft named, python-jsonschema reads 2020-12, but the check reads only what
    # every draft agrees on: it refuses nothing any of them accepts.
    assert (valid(schema, [[1]]) or not draft) and not refused(schema, [[1]], table)


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("draft", [DRAFT_2020_12, None])
def test_a_list_of_items_means_nothing_in_2020_12(table, draft):
    schema = {"type": "array", "items": [{"type": "string"}], **({"$schema": draft} if draft else {})}
    assert not refused(schema, [[1]], table)


def test_a_list_of_items_beside_prefix_items_is_not_mixed_with_them():
    schema = {"$schema": DRAFT_07, "type": "array", "items": [{"type": "string"}], "prefixItems": [{"type": "object"}]}
    assert valid(schema, ["x"]) and not refused(schema, ["x"], "adr246")
    assert refused(schema, [[1]], "adr246")  # the list `items` is draft-07's tuple


def test_draft_03_reads_no_list_of_required_names():
    schema = {"$schema": "http://json-schema.org/draft-03/schema#", "type": "object", "required": ["a"]}
    assert valid(schema, {}) and not refused(schema, {}, "adr246")
    assert refused({**schema, "$schema": DRAFT_04}, {}, "adr246")


def test_a_subschema_read_as_another_draft_is_not_judged():
    schema = {"$schema": DRAFT_07, "properties": {"p": {"$schema": DRAFT_2020_12, "type": "array",
                                                        "prefixItems": [{"type": "string"}]}}}
    assert not refused(schema, {"p": [[1]]}, "adr246")


# ── Casts ──────────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("schema, sent", [
    ({"type": "string", "enum": [1, "1"]}, "1"),
    ({"enum": ["a", "A"]}, "A"),
    ({"type": ["string", "integer"]}, 5.0),
])
def test_the_casts_of_the_issue_leave_valid_values_as_sent(schema, sent):
    for table in TABLES:
        outer = {"type": "object", "properties": {"v": schema}}
        result = turngate.compile_schema(outer, table, casts=True).cast({"v": sent})
        assert valid(outer, {"v": sent})
        assert result.arguments == {"v": sent} and type(result.arguments["v"]) is type(sent)
        assert result.changed == ()


def test_a_one_of_with_equal_branches_casts_nothing_into_both():
    """Found by the long differential run: equal branches share one compiled node, and a
    cast that both would hold leaves the `oneOf` invalid."""
    schema = {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}, {"type": "string"}]}}}
    assert not valid(schema, {"a": "0"})
    for table in TABLES:
        result = turngate.compile_schema(schema, table, casts=True).cast({"a": 0})
        assert result.arguments == {"a": 0} and result.changed == ()
    other = {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}, {"type": "boolean"}]}}}
    assert turngate.compile_schema(other, "extended", casts=True).cast({"a": 0}).arguments == {"a": "0"}


# ── Never raises ───────────────────────────────────────────────────────────────────────

HUGE = "9" * 5000


def test_raw_json_text_with_an_integer_of_thousands_of_digits_is_decoded():
    tools = {"t": {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}}
    verdict = check_turn([Call("a", "t", '{"n": ' + HUGE + "}")], tools)
    assert verdict.ok and verdict.calls[0].arguments["n"] == int("9" * 4000) * 10 ** 1000 + int("9" * 1000)
    (answer,) = check_turn([Call("a", "t", '{"s": [' + HUGE + "]}")], tools).answers
    assert answer.codes == ("kind",) and one_clean_line(answer.text.split("\n")[1])


def run_cli(*arguments, cwd=None):
    return subprocess.run([sys.executable, "-m", "turngate.cli", *map(str, arguments)], capture_output=True,
                          text=True, cwd=cwd)


def test_the_command_line_reads_and_writes_integers_of_thousands_of_digits(tmp_path):
    (tmp_path / "s.json").write_text('{"type": "object", "properties": {"n": {"type": "string"}}}')
    (tmp_path / "a.json").write_text('{"n": ' + HUGE + "}")
    done = run_cli("check", tmp_path / "s.json", tmp_path / "a.json")
    assert done.returncode == 0 and done.stdout == "OK\n" and done.stderr == ""
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": ' + HUGE + ', "schema": {"type": "object"}, "arguments": {}}\n'
                      '{"id": 2, "schema": {"type": "object"}, "arguments": []}\n')
    done = run_cli("batch", corpus)
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and len(lines) == 2 and decode_json(lines[0])["id"] == decode_json(HUGE)
    turn = tmp_path / "t.json"
    turn.write_text(json.dumps({"tools": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]},
                                "calls": [{"name": "t", "arguments": {}}]}).replace("{}}]}", '{"n": ' + HUGE + "}}]}"))
    done = run_cli("check-turn", turn, "--json")
    assert done.returncode == 0 and decode_json(done.stdout)["calls"][0]["arguments"]["n"] == decode_json(HUGE)


def test_json_output_of_a_key_holding_a_lone_surrogate_is_escaped_not_raised(tmp_path):
    turn = tmp_path / "t.json"
    turn.write_text('{"tools": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}, '
                    '"calls": [{"name": "t", "arguments": {"k\\ud800": 1}}]}')
    for extra in (["--json"], []):
        done = run_cli("check-turn", turn, *extra)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    done = run_cli("check-turn", turn, "--json")
    assert json.loads(done.stdout)["calls"][0]["arguments"] == {"k\ud800": 1}


# ── Bounded work from small inputs (work counts, not times) ──────────────────────────────

def test_a_long_ref_chain_is_followed_once_per_link(monkeypatch):
    length = 2000
    defs = {f"{i}": {"$ref": f"#/$defs/{i + 1}"} for i in range(length)}
    defs[f"{length}"] = {"type": "string"}
    schema = {"$defs": defs, "properties": {f"p{i}": {"$ref": f"#/$defs/{i}"} for i in range(0, length, 3)}}
    assert len(json.dumps(schema)) < 100_000
    looked_up = []
    resolve = RefScope._resolve
    monkeypatch.setattr(RefScope, "_resolve", lambda self, reference: looked_up.append(1) or resolve(self, reference))
    compiled = turngate.compile_schema(schema, "extended")
    assert len(looked_up) <= 2 * length
    assert not compiled.check({"p0": "x"}).mismatches and compiled.check({"p0": []}).mismatches


def test_the_did_you_mean_search_has_a_fixed_budget_per_check():
    def work(names: int) -> int:
        allowed = [f"{chr(97 + i % 26)}{i:059d}"[:60] for i in range(names)]
        schema = {"type": "object", "properties": {name: {"type": "string"} for name in allowed},
                  "additionalProperties": False}
        compiled = turngate.compile_schema(schema)
        sent = {f"{chr(97 + i % 26)}{i + 7:059d}x"[:60]: 1 for i in range(30)}
        search = suggester(tuple(allowed)).__self__
        before = search.compared
        verdict = compiled.check(sent)
        assert len(verdict.mismatches) == 10 and verdict.truncated
        return search.compared - before
    small, large = work(50), work(1400)
    assert large <= 11 * BUDGET and small <= 11 * BUDGET


class CountedId:
    """A call id that counts how often it is compared: answering a turn must not compare
    every id with every other."""

    comparisons = 0

    def __init__(self, number: int):
        self.number = number

    def __eq__(self, other):
        CountedId.comparisons += 1
        return isinstance(other, CountedId) and other.number == self.number

    def __hash__(self):
        return hash(self.number)


def test_answering_a_refused_turn_is_linear_in_its_calls():
    tools = {"t": {"type": "object", "required": ["x"]}}
    for count in (200, 2000):
        CountedId.comparisons = 0
        turn = [Call(CountedId(i), "t", {} if i == 0 else {"x": 1}) for i in range(count)]
        verdict = check_turn(turn, tools)
        assert len(verdict.answers) == count
        assert CountedId.comparisons <= 4 * count


# ── Smaller ────────────────────────────────────────────────────────────────────────────

def test_a_table_text_that_could_break_or_colour_a_line_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for char in ("\u2028", "\x1b", "\u202e", "\ue000"):
        path = tmp_path / "t.rules"
        path.write_text("table t extends adr246\n" + 'message kind "{argument} is bad' + json.dumps(char)[1:-1] + '."\n')
        with pytest.raises(turngate.TableError) as caught:
            turngate.load_table(path)
        text = str(caught.value)
        assert text.startswith("t.rules:2:14: this quoted text holds the character") and one_clean_line(text)


def test_a_number_too_large_for_a_limit_is_a_table_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for number, says in (("9" * 5000, "more than 9 digits"), ("65", "from 1 to 64"), ("0", "from 1 to 64")):
        (tmp_path / "t.rules").write_text(f"table t extends adr246\nlimit depth {number}\n")
        with pytest.raises(turngate.TableError, match=says):
            turngate.load_table(tmp_path / "t.rules")


def test_metadata_only_keeps_that_a_tool_was_unknown_not_what_the_model_called_it():
    class Hooks:
        def approve(self, calls): return True
        def ask(self, calls): return {}
        def charge(self, call): pass
        def execute(self, call, given): return "done"
        def remember(self, call, result): pass

    secret = "read_the_ssh_key_of_jane@example.com"
    for turn in ([Call("a", secret, {})], [Call("a", secret, {}), Call("a", "read", {})]):
        loop = Loop([Tool("read", {"type": "object"})], Hooks(), privacy="metadata-only")
        loop.run_turn(turn)
        assert secret not in json.dumps([turngate.check.convert.to_data(step) for step in loop.steps])
        assert loop.steps[0].tool is None and loop.steps[0].codes in (("unknown-tool",), ("duplicate-id",))
