"""Every command that reads a file words each problem of it the same way: one sentence
`the <what> file "<path>" <problem>.` on standard error, nothing on standard output, exit 2;
and every one of them accepts a UTF-8 byte order mark and reads standard input as `-`."""

from __future__ import annotations

import io
import json
import sys

import pytest

from conftest import EXAMPLES
from turngate.cli import main

SCHEMA = str(EXAMPLES / "update_page_metadata.schema.json")
GOOD = str(EXAMPLES / "update_page_metadata.ok.json")

#: Each place a command reads a file: how it is called with PATH, what its sentences call
#: the file, whether it is JSON or JSON lines, and a good file for it.
READERS = {
    "check schema": (["check", "PATH", GOOD], "schema", "json", SCHEMA),
    "check arguments": (["check", SCHEMA, "PATH"], "arguments", "json", GOOD),
    "batch": (["batch", "PATH"], "corpus", "lines", str(EXAMPLES / "corpus.jsonl")),
    "timeline": (["timeline", "PATH"], "steps", "lines", str(EXAMPLES / "steps.jsonl")),
    "stats": (["stats", "PATH"], "steps", "lines", str(EXAMPLES / "steps.jsonl")),
    "coverage": (["coverage", "PATH"], "schema", "json", SCHEMA),
    "check-turn": (["check-turn", "PATH"], "turn", "json", str(EXAMPLES / "turn.mcp.json")),
}

PROBLEMS = {
    "missing": (None, "does not exist."),
    "folder": (None, "is a folder, not a file."),
    "not UTF-8": (b'{"a": "\xe9"}\n', "is not UTF-8 text (byte 0xe9 at offset 7)."),
    "not UTF-8 after a BOM": (b'\xef\xbb\xbf{"a": "\xe9"}\n', "is not UTF-8 text (byte 0xe9 at offset 10)."),
    "empty": (b"", "is empty."),
    "only white space": (b"\n  \r\n\n", "is empty."),
    "only a BOM": (b"\xef\xbb\xbf", "is empty."),
}


def run(capfd, argv: list[str], path: str) -> tuple[int, str, str]:
    status = main([path if item == "PATH" else item for item in argv])
    out, err = capfd.readouterr()
    return status, out, err


def stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def problem_path(tmp_path, problem: str) -> str:
    content = PROBLEMS[problem][0]
    if problem == "missing":
        return str(tmp_path / "none.json")
    if problem == "folder":
        return str(tmp_path)
    path = tmp_path / "file.json"
    path.write_bytes(content)
    return str(path)


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("problem", PROBLEMS)
def test_each_problem_of_a_file_is_one_sentence_of_one_shape_and_exit_2(capfd, tmp_path, reader, problem):
    argv, what, _, _ = READERS[reader]
    path = problem_path(tmp_path, problem)
    assert run(capfd, argv, path) == (2, "", f'turngate: the {what} file "{path}" {PROBLEMS[problem][1]}\n')


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("problem", ["not UTF-8", "empty", "only white space"])
def test_standard_input_has_the_same_problems_in_the_same_words(capfd, monkeypatch, reader, problem):
    argv, what, _, _ = READERS[reader]
    stdin(monkeypatch, PROBLEMS[problem][0])
    assert run(capfd, argv, "-") == (2, "", f'turngate: the {what} file "-" (standard input) {PROBLEMS[problem][1]}\n')


@pytest.mark.parametrize("reader", [name for name, (_, _, shape, _) in READERS.items() if shape == "json"])
def test_invalid_json_names_the_line_and_column_in_every_command(capfd, tmp_path, reader):
    argv, what, _, _ = READERS[reader]
    path = tmp_path / "broken.json"
    path.write_text('{"uid": 5,\n  "title": }\n')
    assert run(capfd, argv, str(path)) == (
        2, "", f'turngate: the {what} file "{path}" is not valid JSON: expecting value at line 2, column 12.\n')


@pytest.mark.parametrize("reader", [name for name, (_, _, shape, _) in READERS.items() if shape == "lines"])
def test_a_json_lines_file_with_only_bad_lines_says_which_line_in_the_same_words(capfd, tmp_path, reader):
    argv, what, _, _ = READERS[reader]
    path = tmp_path / "bad.jsonl"
    path.write_text("\nnot json\n")
    status, out, err = run(capfd, argv, str(path))
    said = "line 2 is not valid JSON: expecting value at column 1."
    if reader == "batch":  # each line is answered on standard output, and the run goes on
        assert (status, json.loads(out), err) == (2, {"id": None, "line": 2, "error": said}, "")
    else:
        assert (status, out) == (2, "")
        assert err == (f'turngate: {said.replace("line 2", f"line 2 of the {what} file {json.dumps(str(path))}")}\n'
                       f'turngate: the {what} file "{path}" holds no run step.\n')


@pytest.mark.parametrize("reader", READERS)
def test_a_byte_order_mark_at_the_start_is_accepted_everywhere(capfd, tmp_path, reader):
    argv, _, _, good = READERS[reader]
    path = tmp_path / "file"
    path.write_bytes(open(good, "rb").read())
    plain = run(capfd, argv, str(path))
    path.write_bytes(b"\xef\xbb\xbf" + open(good, "rb").read())
    assert run(capfd, argv, str(path)) == plain
    assert plain[0] in (0, 1) or reader == "batch"


@pytest.mark.parametrize("reader", READERS)
def test_every_file_argument_reads_standard_input_as_a_dash(capfd, monkeypatch, reader):
    argv, _, _, good = READERS[reader]
    from_file = run(capfd, argv, good)
    stdin(monkeypatch, b"\xef\xbb\xbf" + open(good, "rb").read())
    from_stdin = run(capfd, argv, "-")
    if reader == "coverage":  # the report names the file it read
        from_file = (from_file[0], from_file[1].replace("update_page_metadata.schema.json", "-"), from_file[2])
        from_stdin = (from_stdin[0], from_stdin[1], from_stdin[2])
    assert from_stdin[0] == from_file[0] and from_stdin[2] == from_file[2]
    assert from_stdin[1].split() == from_file[1].split()


def test_coverage_reads_standard_input_at_most_once(capfd, monkeypatch):
    stdin(monkeypatch, open(SCHEMA, "rb").read())
    assert run(capfd, ["coverage", "-", "PATH"], "-") == (
        2, "", "turngate: standard input (-) can be read only once; name it once among the schema files.\n")


@pytest.mark.parametrize("command", [["check", SCHEMA, GOOD], ["batch", str(EXAMPLES / "corpus.jsonl")],
                                     ["check-turn", str(EXAMPLES / "turn.mcp.json")], ["coverage", SCHEMA]])
@pytest.mark.parametrize("problem", ["folder", "not UTF-8", "empty"])
def test_a_table_file_that_is_there_has_the_same_problems_in_the_same_words(capfd, tmp_path, command, problem):
    path = problem_path(tmp_path, problem)
    assert run(capfd, [*command, "--table", "PATH"], path) == (
        2, "", f'turngate: the table file "{path}" {PROBLEMS[problem][1]}\n')
