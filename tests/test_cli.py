"""The command line: `turngate check` and `turngate batch`, their output and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import EXAMPLES, ROOT
from turngate.cli import main

SCHEMA = str(EXAMPLES / "update_page_metadata.schema.json")
GOOD = str(EXAMPLES / "update_page_metadata.ok.json")
BAD = str(EXAMPLES / "update_page_metadata.bad.json")


def run(capfd, *argv):
    status = main(list(argv))
    out, err = capfd.readouterr()
    return status, out, err


def test_check_prints_ok_and_exits_0_when_the_arguments_fit(capfd):
    assert run(capfd, "check", SCHEMA, GOOD) == (0, "OK\n", "")


def test_check_prints_the_refusal_and_exits_1(capfd, snapshot):
    status, out, err = run(capfd, "check", SCHEMA, BAD)
    assert (status, err) == (1, "")
    assert out.startswith('Refused: the arguments do not match the schema of tool "update_page_metadata"')
    assert out == snapshot


def test_check_json_prints_the_verdict(capfd):
    status, out, _ = run(capfd, "check", SCHEMA, BAD, "--json", "--tool", "x")
    data = json.loads(out)
    assert status == 1 and data["ok"] is False and data["truncated"] is False
    assert data["mismatches"][0] == {"path": ["uid"], "code": "kind",
                                     "message": '"uid" must be an integer, but an object was sent.'}
    assert json.loads(run(capfd, "check", SCHEMA, GOOD, "--json")[1]) == {
        "ok": True, "mismatches": [], "truncated": False}


def test_check_takes_another_table(capfd, tmp_path):
    table = tmp_path / "t.rules"
    table.write_text('table t extends adr246\nmessage kind "{argument} is of the wrong kind."\n')
    status, out, _ = run(capfd, "check", SCHEMA, BAD, "--table", str(table))
    assert status == 1 and '- "uid" is of the wrong kind.' in out


@pytest.mark.parametrize("files, error", [
    (("missing.json", GOOD), 'the schema file "missing.json" does not exist.'),
    ((SCHEMA, "missing.json"), 'the arguments file "missing.json" does not exist.'),
])
def test_a_missing_file_is_one_sentence_and_exit_2(capfd, files, error):
    assert run(capfd, "check", *files) == (2, "", f"turngate: {error}\n")


def test_invalid_json_names_the_file_and_position(capfd, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"uid": 5,\n  "title": }\n')
    status, out, err = run(capfd, "check", SCHEMA, str(broken))
    assert (status, out) == (2, "")
    assert err == f'turngate: the arguments file "{broken}" is not valid JSON: expecting value at line 2, column 12.\n'


def test_a_schema_that_is_not_an_object_is_refused_as_input(capfd, tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text("[1, 2]")
    assert run(capfd, "check", str(schema), GOOD) == (
        2, "", f'turngate: the schema file "{schema}" holds a list, not a JSON object, so it is not a schema.\n')


def test_a_file_that_is_not_utf8_or_is_a_folder_is_unusable(capfd, tmp_path):
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"a": "\xe9"}')
    assert run(capfd, "check", SCHEMA, str(latin))[0] == 2
    status, _, err = run(capfd, "check", SCHEMA, str(tmp_path))
    assert status == 2 and err.startswith("turngate: the arguments file") and err.count("\n") == 1


def test_a_broken_table_is_unusable_input(capfd, tmp_path):
    table = tmp_path / "t.rules"
    table.write_text("table t extends adr246\nrule x uses nothing\n")
    status, out, err = run(capfd, "check", SCHEMA, GOOD, "--table", str(table))
    assert (status, out) == (2, "")
    assert err.startswith("turngate: ") and 't.rules:2:1: there is no rule kind "nothing"' in err


def test_batch_answers_each_line_and_goes_on_after_a_bad_one(capfd, snapshot):
    status, out, err = run(capfd, "batch", str(EXAMPLES / "corpus.jsonl"))
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["id"] for line in lines] == ["call_1", "call_2", "call_3", "call_4", None]
    assert [line.get("ok") for line in lines] == [True, False, True, False, None]
    assert lines[-1] == {"id": None, "line": 5, "error": "line 5 is not valid JSON: expecting value at column 61."}
    assert status == 2 and err == ""
    assert out == snapshot


def test_batch_reports_a_line_without_schema_under_its_id(capfd, tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": 7, "arguments": {}}\n\n{"id": 8, "schema": true, "arguments": 1}\n'
                      '{"id": 9, "schema": {"required": ["a"]}, "arguments": {}}\n')
    status, out, _ = run(capfd, "batch", str(corpus))
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0] == {"id": 7, "line": 1, "error": 'line 1 has no "schema".'}
    assert lines[1]["id"] == 8 and "not a JSON object" in lines[1]["error"]
    assert lines[2]["id"] == 9 and lines[2]["mismatches"][0]["code"] == "missing"
    assert status == 2


def test_batch_exit_codes(capfd, tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": 1, "schema": {}, "arguments": {}}\n')
    assert run(capfd, "batch", str(corpus))[0] == 0
    corpus.write_text('{"id": 1, "schema": {"required": ["a"]}, "arguments": {}}\n')
    assert run(capfd, "batch", str(corpus))[0] == 1
    assert run(capfd, "batch", str(tmp_path / "none.jsonl"))[0] == 2


def test_the_installed_command_runs_as_a_program():
    done = subprocess.run([sys.executable, "-m", "turngate.cli", "check", SCHEMA, BAD],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 1 and done.stdout.startswith("Refused:") and done.stderr == ""
