"""The command line: `turngate check` and `turngate batch`, their output and exit codes."""

from __future__ import annotations

import io
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
                                     "message": '"uid" must be an integer, but an object was sent.',
                                     "expected": {"keyword": "type", "value": "integer"}, "sent": None}
    assert json.loads(run(capfd, "check", SCHEMA, GOOD, "--json")[1]) == {
        "ok": True, "mismatches": [], "truncated": False, "unjudged": {}}


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


# ── ADR 246's list at the root, said where it passes ──────────────────────────────────────

LIST_NOTE = ("the arguments are a list where an object is declared; ADR 246 lets a list pass there "
             "(a JSON object keyed 0, 1, 2 decodes to a PHP list), so nothing in it was checked.")


def test_a_list_passing_an_object_schema_gets_a_note(capfd, tmp_path):
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2, 3]")
    assert run(capfd, "check", SCHEMA, str(listed)) == (0, f"OK\nNote: {LIST_NOTE}\n", "")
    status, out, _ = run(capfd, "check", SCHEMA, str(listed), "--json")
    assert (status, json.loads(out)) == (0, {"ok": True, "mismatches": [], "truncated": False, "unjudged": {},
                                             "note": LIST_NOTE})


@pytest.mark.parametrize("schema, arguments, table", [
    ({"type": "object", "required": ["a"]}, {"a": 1}, "adr246"),  # an object: nothing to note
    ({"type": ["object", "array"]}, [1], "adr246"),  # a list is declared too
    ({"required": ["a"]}, [1], "adr246"),  # no object declared: JSON Schema's own reading
    ({"type": "object", "required": ["a"]}, [1], "strict"),  # refused: strict admits no list
])
def test_no_note_where_the_list_leniency_did_not_decide(capfd, tmp_path, schema, arguments, table):
    (tmp_path / "s.json").write_text(json.dumps(schema))
    (tmp_path / "a.json").write_text(json.dumps(arguments))
    status, out, _ = run(capfd, "check", str(tmp_path / "s.json"), str(tmp_path / "a.json"), "--table", table)
    assert "Note" not in out and status == (1 if table == "strict" else 0)
    status, out, _ = run(capfd, "check", str(tmp_path / "s.json"), str(tmp_path / "a.json"), "--table", table, "--json")
    assert "note" not in json.loads(out)


# ── Standard input, named "-" ──────────────────────────────────────────────────────────

def stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_check_reads_the_arguments_or_the_schema_from_standard_input(capfd, monkeypatch):
    stdin(monkeypatch, open(BAD, "rb").read())
    status, out, _ = run(capfd, "check", SCHEMA, "-")
    assert status == 1 and out.startswith('Refused: the arguments do not match the schema of tool '
                                          '"update_page_metadata"')
    stdin(monkeypatch, open(SCHEMA, "rb").read())
    status, out, _ = run(capfd, "check", "-", BAD)
    assert status == 1 and out.startswith('Refused: the arguments do not match the schema of tool "tool"')
    stdin(monkeypatch, b"[1, 2, 3]")
    assert run(capfd, "check", SCHEMA, "-")[1] == f"OK\nNote: {LIST_NOTE}\n"


def test_check_reads_at_most_one_of_its_files_from_standard_input(capfd, monkeypatch):
    stdin(monkeypatch, b"{}")
    assert run(capfd, "check", "-", "-") == (2, "", "turngate: the schema and the arguments cannot both be read "
                                                   "from standard input (-); give a file for one of them.\n")


def test_unusable_standard_input_is_named_as_such(capfd, monkeypatch):
    stdin(monkeypatch, b'{"uid": ')
    assert run(capfd, "check", SCHEMA, "-") == (
        2, "", 'turngate: the arguments file "-" (standard input) is not valid JSON: expecting value at column 9.\n')


def test_batch_reads_its_corpus_from_standard_input(capfd, monkeypatch):
    corpus = (EXAMPLES / "corpus.jsonl").read_bytes()
    stdin(monkeypatch, corpus)
    status, out, _ = run(capfd, "batch", "-")
    assert status == 2 and out == run(capfd, "batch", str(EXAMPLES / "corpus.jsonl"))[1]


def test_batch_keeps_the_line_numbers_of_a_corpus_with_blank_lines_and_crlf(capfd, tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_bytes(b'\r\n{"id": 1, "schema": {}, "arguments": {}}\r\n\r\n{"id": 2, "schema": {},\r\n')
    status, out, _ = run(capfd, "batch", str(corpus))
    lines = [json.loads(line) for line in out.splitlines()]
    assert status == 2 and lines[0]["id"] == 1 and lines[1]["line"] == 4


def test_a_text_line_separator_inside_a_corpus_string_does_not_split_the_line(capfd, tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "a\u2028b", "schema": {}, "arguments": {"t": "x\u0085y"}}\n', encoding="utf-8")
    status, out, _ = run(capfd, "batch", str(corpus))
    assert status == 0 and out.count("\n") == 1 and json.loads(out)["id"] == "a\u2028b"
