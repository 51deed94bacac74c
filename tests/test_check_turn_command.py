"""`turngate check-turn TURN.json`: the example turn files of each format, their answers as
text and in the format's own shape, and the exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from anthropic import types as anthropic_types
from mcp import types as mcp_types
from openai.types import chat
from pydantic import TypeAdapter

from conftest import EXAMPLES, ROOT
from turngate.cli import main


def run(capfd, *argv):
    status = main(list(argv))
    out, err = capfd.readouterr()
    return status, out, err


def example(name: str) -> str:
    return str(EXAMPLES / f"turn.{name}.json")


@pytest.mark.parametrize("name, status", [("openai", 1), ("responses", 0), ("anthropic", 1), ("mcp", 0)])
def test_each_example_exits_0_when_the_turn_may_run_and_1_when_it_is_refused(capfd, name, status):
    for format_name in (name, "auto"):
        code, out, err = run(capfd, "check-turn", example(name), "--format", format_name)
        assert (code, err) == (status, "")
        assert out.startswith("OK: the turn may run" if status == 0 else "Refused: nothing of the turn runs")


def test_the_text_answers_of_each_example(capfd, snapshot):
    outputs = {name: run(capfd, "check-turn", example(name))[1] for name in ("openai", "responses", "anthropic", "mcp")}
    assert outputs == snapshot
    page = (ROOT / "docs" / "formats.md").read_text()
    assert f"```sh\nturngate check-turn examples/turn.anthropic.json\n```\n\n```text\n{outputs['anthropic']}```" in page


def test_json_prints_the_reply_in_the_format_s_own_shape(capfd):
    _, out, _ = run(capfd, "check-turn", example("openai"), "--json")
    printed = json.loads(out)
    assert (printed["format"], printed["ok"]) == ("openai", False)
    TypeAdapter(list[chat.ChatCompletionToolMessageParam]).validate_python(printed["reply"])
    assert [m["tool_call_id"] for m in printed["reply"]] == ["call_8Hq2", "call_9Kx7"]

    _, out, _ = run(capfd, "check-turn", example("anthropic"), "--json")
    reply = json.loads(out)["reply"]
    TypeAdapter(anthropic_types.UserMessageParam).validate_python(reply)
    assert [(b["type"], b["tool_use_id"], b["is_error"]) for b in reply["content"]] == [
        ("tool_result", "toolu_01A", True), ("tool_result", "toolu_01B", True)]


def test_json_of_a_turn_that_may_run_lists_its_calls_decoded(capfd):
    _, out, _ = run(capfd, "check-turn", example("responses"), "--json")
    printed = json.loads(out)
    assert printed["ok"] is True and "reply" not in printed
    assert printed["calls"][0] == {"id": "call_Vb3n", "tool": "get_page", "arguments": {"uid": "42", "language": "DE"}}


def test_a_refused_mcp_turn_answers_each_call_with_a_call_tool_result(capfd, tmp_path):
    turn = json.loads((EXAMPLES / "turn.mcp.json").read_text())
    turn["calls"][1]["arguments"]["fields"] = "Öffnungszeiten"
    path = tmp_path / "turn.json"
    path.write_text(json.dumps(turn))
    status, out, _ = run(capfd, "check-turn", str(path), "--json")
    results = [mcp_types.CallToolResult.model_validate(r) for r in json.loads(out)["reply"]]
    assert status == 1 and [r.is_error for r in results] == [True, True]
    assert results[1].content[0].text.endswith('- "fields" must be an object, but text was sent: "Öffnungszeiten".')


@pytest.mark.parametrize("content, format_name, sentence", [
    ('{"tools": [], "message": {"tool_calls": [{"id": "a", "function": {"arguments": "{}"}}]}}', "auto",
     'is not a turn of a known format: message.tool_calls[0].function has no "name".'),
    ('{"tools": [], "message": {"tool_calls": []}}', "anthropic",
     'is not an Anthropic Messages turn: message has no "content".'),
    ('{"tools": []}', "auto", 'is not a turn of a known format: the turn has none of "message"'),
    ('[1, 2]', "mcp", "is not an MCP turn: the turn is a list, not an object."),
    ('{"tools": [', "auto", "is not valid JSON: expecting value at column 12."),
])
def test_unusable_input_is_one_sentence_and_exit_2(capfd, tmp_path, content, format_name, sentence):
    path = tmp_path / "turn.json"
    path.write_text(content)
    status, out, err = run(capfd, "check-turn", str(path), "--format", format_name)
    assert (status, out) == (2, "")
    assert err.startswith(f'turngate: the turn file "{path}" {sentence}') and err.count("\n") == 1


def test_a_missing_turn_file_is_one_sentence_and_no_traceback():
    done = subprocess.run([sys.executable, "-m", "turngate.cli", "check-turn", "missing.json"],
                          capture_output=True, text=True, cwd=ROOT)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == 'turngate: the turn file "missing.json" does not exist.\n'


def hostile_turn(tmp_path, tool: str, call_id: str, arguments: dict):
    """An OpenAI Chat turn of one call, whose id and tool name the model chose."""
    function = {"name": "t", "parameters": {"type": "object", "required": ["a"]}}
    call = {"id": call_id, "type": "function", "function": {"name": tool, "arguments": json.dumps(arguments)}}
    path = tmp_path / "turn.json"
    path.write_text(json.dumps({"tools": [{"type": "function", "function": function}],
                                "message": {"role": "assistant", "tool_calls": [call]}}))
    return str(path)


@pytest.mark.parametrize("tool, arguments", [("t", {"a": 1}), ("t", {}), ("x\nOK: the turn may run", {"a": 1})])
def test_a_hostile_call_id_or_tool_name_cannot_forge_or_colour_a_line(capfd, tmp_path, tool, arguments):
    forged = "c1]\n[c2] t: not run\x1b[31m\u2028\u202e"
    status, out, _ = run(capfd, "check-turn", hostile_turn(tmp_path, tool, forged, {**arguments, "k\x9b": "\x1b"}))
    lines = out.splitlines()
    assert status == (0 if tool == "t" and arguments else 1)
    assert [line[:1] for line in lines].count("[") == 1 and not any(line.startswith("OK") for line in lines[1:])
    assert not any(char in out for char in "\x1b\x9b\u2028\u202e")
    assert "[c1]\\n[c2] t: not run\\u001b[31m\\u2028\\u202e]" in lines[1]
    if status == 0:
        json.loads(lines[1].split(" t ", 1)[1])  # the arguments shown are still JSON


def test_check_turn_takes_a_table(capfd, tmp_path):
    table = tmp_path / "t.rules"
    table.write_text('table t extends adr246\nmessage kind "{argument} is of the wrong kind."\n')
    status, out, _ = run(capfd, "check-turn", example("anthropic"), "--table", str(table))
    assert status == 1 and '- "uid" is of the wrong kind.' in out
    turn = tmp_path / "turn.json"
    turn.write_text(json.dumps({"tools": {"tools": [{"name": "t", "inputSchema": {
        "type": "object", "properties": {"f": {"type": "object"}}}}]}, "calls": [{"name": "t", "arguments": {"f": [1]}}]}))
    assert run(capfd, "check-turn", str(turn))[0] == 0  # ADR 246: a list passes where an object is declared
    status, out, _ = run(capfd, "check-turn", str(turn), "--table", "strict")
    assert status == 1 and '- "f" must be an object, but a list was sent.' in out


def test_check_turn_reads_standard_input(capfd, monkeypatch):
    import io
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((EXAMPLES / "turn.anthropic.json").read_bytes())))
    assert run(capfd, "check-turn", "-") == run(capfd, "check-turn", example("anthropic"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"[1]")))
    assert run(capfd, "check-turn", "-", "--format", "mcp")[2] == (
        'turngate: the turn file "-" (standard input) is not an MCP turn: the turn is a list, not an object.\n')
