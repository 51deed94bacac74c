"""Loading rule tables: by name or path, extending and overriding, and every load error
naming its file, line and column with a sentence."""

from __future__ import annotations

import json
import re
from pathlib import Path

import attrs
import pytest

import turngate
from turngate.check.convert import from_data, to_data
from support import codes_and_paths, verdict

ROOT = Path(__file__).resolve().parent.parent


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_default_table_is_adr246_and_loads_by_name_or_path():
    by_name = turngate.load_table()
    assert by_name.name == "adr246"
    assert turngate.load_table("adr246") is by_name
    assert turngate.load_table(ROOT / "rules" / "adr246.rules") == by_name
    assert "adr246" in turngate.shipped_tables()


def test_the_default_table_reads_like_the_decision():
    table = turngate.load_table()
    assert [r.name for r in table.rules] == ["kind", "enum", "required", "members", "elements"]
    assert sorted(table.skip_keywords) == sorted(["$ref", "oneOf", "anyOf", "allOf", "not", "if"])
    assert table.type_by_name["object"].admits == ("object", "list", "number", "boolean", "null")
    assert table.type_by_name["integer"].admits == ("number", "text", "boolean", "null")
    assert table.limit == {"mismatches": 10, "depth": 64, "message-length": 200}
    assert {m.code for m in table.messages} == {"missing", "null", "kind", "enum", "additional"}


def test_a_table_is_frozen_and_round_trips_through_the_converter():
    table = turngate.load_table()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        table.name = "other"  # type: ignore[misc]
    data = json.loads(json.dumps(to_data(table)))
    assert from_data(data, turngate.Table) == table


def test_a_verdict_round_trips_through_the_converter():
    result = verdict({"type": "array", "items": {"required": ["a"]}}, [{}, {"a": 1}, {}])
    data = json.loads(json.dumps(to_data(result)))
    assert data["mismatches"][1]["path"] == [2, "a"]
    assert from_data(data, turngate.Verdict) == result


def test_a_child_table_overrides_adds_and_drops_entries(tmp_path):
    path = write(tmp_path, "host.rules", '''
table host extends adr246
# BFCL's names, judged like their standard ones
type dict   "an object"   is object  also list number boolean null
type float  "a number"    is number  also text boolean null
message kind "{argument} has the wrong kind: {expected} expected."
drop rule enum
drop skip keyword "not"
''')
    table = turngate.load_table(path)
    assert table.name == "host"
    schema = {"type": "dict", "properties": {"x": {"type": "float"}, "e": {"enum": ["a"]}}, "not": {}}
    assert codes_and_paths(schema, {"x": [1], "e": "b"}, table) == [("kind", ("x",))]
    assert verdict(schema, {"x": [1]}, table).mismatches[0].message == (
        '"x" has the wrong kind: a number expected.')
    assert [r.name for r in table.rules] == ["kind", "required", "members", "elements"]
    # the parent is untouched
    assert codes_and_paths({"enum": ["a"]}, "b") == [("enum", ())]


def test_a_table_extends_another_by_relative_path_and_places_rules(tmp_path):
    write(tmp_path, "base.rules", "table base extends adr246\nrule enum uses enum stops before kind\n")
    (tmp_path / "sub").mkdir()
    child = write(tmp_path / "sub", "child.rules", 'table child extends "../base.rules"\nlimit mismatches 2\n')
    table = turngate.load_table(child)
    assert [r.name for r in table.rules][:2] == ["enum", "kind"]
    assert table.limit["mismatches"] == 2
    result = verdict({"items": {"type": "string"}}, [[1], [2], [3]], table)
    assert len(result.mismatches) == 2 and result.truncated


BROKEN = {
    "unknown entry": "table t extends adr246\nrules kind uses kind\n",
    "entry stops early": "table t extends adr246\nvalue list\n",
    "stray character": "table t extends adr246\nlimit depth 6%\n",
    "broken escape": 'table t extends adr246\nmessage kind "bad \\q escape."\n',
    "table line not first": "limit depth 3\ntable t extends adr246\n",
    "unknown parent": "table t extends adr999\n",
    "missing parent file": 'table t extends "nowhere.rules"\n',
    "unknown rule kind": "table t extends adr246\nrule size uses min-length\n",
    "unknown kind of value": 'table t extends adr246\nvalue date "a date"\n',
    "type names an undeclared kind": 'table t extends adr246\ntype date "a date" is date\n',
    "message for an unknown code": 'table t extends adr246\nmessage no-such-code "{argument} is too long."\n',
    "unknown placeholder": 'table t extends adr246\nmessage kind "{argument} is {colour}."\n',
    "unknown guard": 'table t extends adr246\nmessage kind with colour "{argument} is wrong."\n',
    "message without full stop": 'table t extends adr246\nmessage kind "{argument} is wrong"\n',
    "message too long": 'table t extends adr246\nmessage kind "{argument} {expected} {expected} {sent}."\n',
    "unpaired brace": 'table t extends adr246\nmessage kind "{argument is wrong."\n',
    "code without plain message": "table t extends adr246\ndrop message kind\n",
    "unknown answer": 'table t extends adr246\nanswer praise "Well done."\n',
    "answer placeholder": 'table t extends adr246\nanswer refused "Refused {message}."\n',
    "drop of nothing": "table t extends adr246\ndrop rule size\n",
    "placement anchor missing": "table t extends adr246\nrule enum uses enum after size\n",
    "unknown limit": "table t extends adr246\nlimit speed 3\n",
    "unknown skip trigger": "table t extends adr246\nskip sometimes\n",
    "keyword trigger without keyword": "table t extends adr246\nskip keyword\n",
    "no limits in a table of its own": 'table t\nvalue null "null"\n',
}


@pytest.mark.parametrize("case", BROKEN)
def test_a_broken_table_fails_with_file_line_column_and_a_sentence(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "t.rules", BROKEN[case])
    with pytest.raises(turngate.TableError) as caught:
        turngate.load_table(tmp_path / "t.rules")
    error = caught.value
    assert re.fullmatch(r"t\.rules:\d+:\d+: [^\n]+\.", str(error)), str(error)
    assert error.file == "t.rules" and error.line >= 1 and error.column >= 1


def test_the_load_errors(tmp_path, monkeypatch, snapshot):
    monkeypatch.chdir(tmp_path)
    errors = {}
    for case, text in BROKEN.items():
        write(tmp_path, "t.rules", text)
        with pytest.raises(turngate.TableError) as caught:
            turngate.load_table(tmp_path / "t.rules")
        errors[case] = str(caught.value)
    assert errors == snapshot


def test_a_cycle_of_tables_is_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "a.rules", 'table a extends "b.rules"\n')
    write(tmp_path, "b.rules", 'table b extends "a.rules"\n')
    with pytest.raises(turngate.TableError, match=r'^b\.rules:1:1: extending "a\.rules" makes a cycle'):
        turngate.load_table(tmp_path / "a.rules")


def test_a_missing_table_is_an_error_that_names_the_shipped_ones():
    with pytest.raises(turngate.TableError, match=r"no shipped table of that name \(.*adr246"):
        turngate.load_table("adr999")


def test_an_error_in_a_parent_table_names_the_parent_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "base.rules", "table base extends adr246\n\nrule x uses nothing\n")
    write(tmp_path, "child.rules", 'table child extends "base.rules"\n')
    with pytest.raises(turngate.TableError, match=r"^base\.rules:3:1: there is no rule kind"):
        turngate.load_table(tmp_path / "child.rules")


def test_a_changed_table_file_is_read_again(tmp_path):
    path = write(tmp_path, "t.rules", "table t extends adr246\nlimit mismatches 3\n")
    assert turngate.load_table(path).limit["mismatches"] == 3
    import os
    path.write_text("table t extends adr246\nlimit mismatches 4\n")
    os.utime(path, ns=(1, 10**18))
    assert turngate.load_table(path).limit["mismatches"] == 4
