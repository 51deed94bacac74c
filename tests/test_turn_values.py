"""Every turn shape holds the promises (issue 20): numbers of any size wherever a turn holds
them, call ids told apart as JSON values, values handed to a host its own, caches keyed by
exact values, text that is not JSON refused as such, and no output that is not JSON."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

import turngate
from turngate import Call, check_turn, formats
from turngate.values.encoding import encode_json
from support import one_clean_line

BIG = 10 ** 5000  # Python writes at most 4,300 digits at once
TABLES = sorted(turngate.shipped_tables())


def strict_json(text: str) -> object:
    """JSON as JavaScript's JSON.parse reads it: no NaN, no Infinity; numbers of any size."""
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.JSONDecoder(parse_constant=refuse, parse_int=lambda digits: len(digits)).decode(text)


# ── Numbers of any size ─────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("table", TABLES)
def test_two_calls_sharing_an_id_of_thousands_of_digits_are_answered(table):
    verdict = check_turn([Call(BIG, "t", {}), Call(BIG, "t", {})], {"t": {}}, table)
    (answer,) = verdict.answers
    assert answer.codes == ("duplicate-id",) and "an integer of about 5001 digits" in answer.text
    out = io.StringIO()
    turngate.dump_steps(turngate.refused_steps(verdict, 1), out)
    assert strict_json(out.getvalue())["call_id"] == 5001  # every digit written
    assert turngate.load_steps(out.getvalue().splitlines())[0][0].call_id == BIG


def test_a_key_of_thousands_of_digits_under_additional_properties_false_is_named():
    verdict = turngate.compile_schema({"type": "object", "additionalProperties": False}).check({BIG: 1})
    (mismatch,) = verdict.mismatches
    assert mismatch.code == "additional" and one_clean_line(mismatch.message)
    assert "an integer of about 5001 digits" in mismatch.message


@pytest.mark.parametrize("shape, data", [
    ("openai", {"role": BIG, "tool_calls": []}),
    ("openai", {"role": "assistant", "tool_calls": [{"type": BIG, "id": "1", "function": {"name": "t", "arguments": "{}"}}]}),
    ("anthropic", {"role": BIG, "content": []}),
])
def test_a_role_or_a_call_type_of_thousands_of_digits_is_a_format_error(shape, data):
    with pytest.raises(formats.FormatError) as caught:
        formats.FORMATS[shape].calls(data)
    assert "an integer of about 5001 digits" in str(caught.value) and one_clean_line(str(caught.value))


def test_check_turn_writes_numbers_of_any_size_and_never_a_traceback(tmp_path):
    digits = "9" * 5000
    turns = {
        "ids": '{"tools": [{"name": "t", "inputSchema": {}}], "calls": [{"jsonrpc": "2.0", "id": %s, "method": '
               '"tools/call", "params": {"name": "t"}}, {"jsonrpc": "2.0", "id": %s, "method": "tools/call", '
               '"params": {"name": "t"}}]}' % (digits, digits),
        "role": '{"tools": [], "message": {"role": %s, "tool_calls": []}}' % digits,
        "type": '{"tools": [], "message": {"role": "assistant", "tool_calls": [{"type": %s}]}}' % digits,
        "arguments": '{"tools": [{"name": "t", "inputSchema": {}}], "calls": [{"name": "t", "arguments": {"n": %s}}]}'
                     % digits,
    }
    for name, text in turns.items():
        (tmp_path / f"{name}.json").write_text(text)
        done = subprocess.run([sys.executable, "-m", "turngate.cli", "check-turn", str(tmp_path / f"{name}.json"),
                               "--json"], capture_output=True, text=True)
        assert "Traceback" not in done.stderr and done.returncode in (0, 1, 2), (name, done.stderr)
        if done.returncode != 2:
            strict_json(done.stdout)
    ran = subprocess.run([sys.executable, "-m", "turngate.cli", "check-turn", str(tmp_path / "arguments.json"),
                          "--json"], capture_output=True, text=True)
    assert digits in ran.stdout


def test_a_number_of_thousands_of_digits_is_cast_to_its_text_in_full():
    cast = turngate.compile_schema({"properties": {"a": {"type": "string"}}}, casts=True).cast({"a": -BIG})
    assert cast.arguments == {"a": "-1" + "0" * 5000} and cast.changed == (("a",),)


# ── Call ids compare as JSON values ─────────────────────────────────────────────────────

@pytest.mark.parametrize("one, other", [(1, True), (0, False), ("1", 1), (None, "null"), (1, 2)])
def test_ids_json_tells_apart_are_different_ids(one, other):
    verdict = check_turn([Call(one, "t", {}), Call(other, "t", {})], {"t": {}})
    assert verdict.ok and len(verdict.calls) == 2


@pytest.mark.parametrize("one, other", [(1, 1.0), (0, -0.0), ([1], [1.0])])
def test_ids_that_are_one_json_value_are_one_id(one, other):
    verdict = check_turn([Call(one, "t", {}), Call(other, "t", {})], {"t": {}})
    assert not verdict.ok and [answer.codes for answer in verdict.answers] == [("duplicate-id",)]


@pytest.mark.parametrize("call_id, quoted", [(None, "null"), (True, "true"), (7, "7"), ("x", '"x"')])
def test_a_repeated_id_is_quoted_as_json(call_id, quoted):
    (answer,) = check_turn([Call(call_id, "t", {}), Call(call_id, "t", {})], {"t": {}}).answers
    assert f"has the id {quoted}, so" in answer.text


# ── Values handed to a host are its own; caches keyed by exact values ───────────────────

def test_each_call_that_sent_no_arguments_gets_a_dict_of_its_own():
    turn = [{"id": "a", "tool": "t"}, {"id": "b", "tool": "t", "arguments": "{}"}]
    first = check_turn(turn, {"t": {}})
    first.calls[0].arguments["added"] = True
    again = check_turn([{"id": "c", "tool": "t"}, {"id": "d", "tool": "t", "arguments": "{}"}], {"t": {}})
    assert again.calls[0].arguments == {} and first.calls[0].arguments is not first.calls[1].arguments


@pytest.mark.parametrize("table", TABLES)
def test_the_members_of_an_enum_are_worded_whatever_was_worded_before(table):
    said = [turngate.compile_schema({"enum": members}, table).check(5).mismatches[0].message
            for members in ([1, 2], [True, 2], [1.0, 2], [0.0], [-0.0])]
    assert [text.split(" one of ")[1].split(", but")[0] for text in said] == ["1, 2", "true, 2", "1.0, 2", "0.0", "-0.0"]


@pytest.mark.parametrize("tools", [{"tools": [{"type": "object"}], "b": {"type": "object"}},
                                   {"tools": [], "b": {"type": "object"}}, {"tools": True, "b": {"type": "object"}}])
def test_a_tool_named_tools_is_a_tool_not_a_tools_list_result(tools):
    toolset = turngate.Toolset(tools)
    assert set(toolset.names) == {"tools", "b"}
    assert check_turn([Call("1", "b", {}), Call("2", "tools", {})], toolset).ok
    assert not check_turn([Call("1", "b", '"text"')], toolset).ok  # "b" is judged by its own schema


def test_an_mcp_tools_list_result_is_still_read_as_one():
    result = {"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "nextCursor": "n", "ttlMs": 0}
    assert turngate.Toolset(result).names == ("a",)


# ── Text that is not JSON ───────────────────────────────────────────────────────────────

@pytest.mark.parametrize("text, name, column", [('{"x": NaN}', "NaN", 7), ('{"x": Infinity}', "Infinity", 7),
                                               ("[-Infinity]", "-Infinity", 2), ('{"a": "NaN", "b": NaN}', "NaN", 19)])
def test_arguments_text_holding_nan_or_infinity_is_refused_as_not_json(text, name, column):
    (answer,) = check_turn([Call("1", "t", text)], {"t": {}}).answers
    assert answer.codes == ("invalid-json",)
    assert answer.text == (f'Refused: the arguments of tool "t" are not valid JSON (expecting value, not {name} at '
                           f"line 1, column {column}), so nothing was run.")


def test_no_output_of_the_command_line_holds_nan(tmp_path):
    (tmp_path / "s.json").write_text('{"type": "object"}')
    (tmp_path / "a.json").write_text('{"x": NaN}')
    done = subprocess.run([sys.executable, "-m", "turngate.cli", "check", str(tmp_path / "s.json"),
                           str(tmp_path / "a.json"), "--json"], capture_output=True, text=True)
    assert done.returncode == 2 and "not valid JSON: expecting value, not NaN" in done.stderr
    assert encode_json([float("nan"), float("-inf"), BIG]).startswith("[null, null, 1000")


@pytest.mark.parametrize("text, number", [('{"x": 1e400}', 10 ** 400), ('{"x": -1.5e400}', -15 * 10 ** 399),
                                          ('{"x": 2.5E+999}', 25 * 10 ** 998)])
def test_a_number_too_large_for_a_float_is_handed_on_as_the_integer_it_is(text, number):
    verdict = check_turn([Call("1", "t", text)], {"t": {"type": "object", "properties": {"x": {"type": "integer"}}}})
    assert verdict.ok and verdict.calls[0].arguments == {"x": number} and type(verdict.calls[0].arguments["x"]) is int


@pytest.mark.parametrize("text", ['{"x": 1e1000}', '{"x": 1e999999999}', '{"x": -' + "1" * 4400 + '.5}'])
def test_a_number_no_float_holds_and_no_short_integer_is_refused_as_too_large(text):
    (answer,) = check_turn([Call("1", "t", text)], {"t": {}}).answers
    assert answer.codes == ("invalid-json",)
    assert answer.text == ('Refused: the arguments of tool "t" are not valid JSON (a number too large to read at '
                           "line 1, column 7), so nothing was run.")


@pytest.mark.parametrize("privacy", ["full", "metadata-only"])
def test_steps_holding_a_lone_surrogate_are_written_to_a_utf8_file_and_read_back(privacy, tmp_path):
    verdict = check_turn([Call("\ud800", "t\udfff", "{}")], {"t\udfff": {"required": ["a"]}})
    steps = turngate.refused_steps(verdict, 1, privacy)
    with open(tmp_path / "steps.jsonl", "w", encoding="utf-8") as out:
        turngate.dump_steps(steps, out)
    text = (tmp_path / "steps.jsonl").read_text(encoding="utf-8")
    assert "\\udfff" in text and ("\\ud800" in text) == (privacy == "full")  # the id is kept in full only
    assert turngate.load_steps(text.splitlines()) == (list(steps), [])
