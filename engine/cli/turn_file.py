"""`turngate check-turn TURN.json`: a turn file in a tool-calling format's own shapes, gated.

Exit codes as for `check`: 0 the turn may run, 1 it is refused, 2 unusable input.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping
from typing import Any

from ..formats import FORMATS, FormatError, read_turn
from ..turn.calls import Call, CallAnswer, TurnVerdict
from ..table.entries import Table
from ..turn.gate import check_turn
from ..values.quoting import escaped, quote_any
from .io import FITS, REFUSED, InputError, dump, read_json_file, source_name, warn, write_line
from .plugins import add_table_options, table_of
from .schema_file import unjudged_note


def shown(text: object) -> str:
    """A call id or tool name from the model's turn, for a line of text: anything that would
    break or colour a terminal line escaped, so that a hostile name cannot forge a line; an
    id that is not text as the JSON value it is (`null`, `true`, an integer of any size)."""
    return escaped(text) if type(text) is str else quote_any(text)


def call_line(call: Call) -> str:
    """A call as one line: its id, its tool and its arguments as JSON."""
    return escaped(f"[{shown(call.id)}] {call.tool} {dump(call.arguments)}")


def answer_lines(answer: CallAnswer) -> list[str]:
    """A call's answer: which call and what became of it, then the text the model gets."""
    status = "refused" if answer.status == "refused" else "not run"
    return [f"[{shown(answer.call_id)}] {shown(answer.tool)}: {status}",
            *("  " + line for line in answer.text.split("\n"))]


def verdict_lines(verdict: TurnVerdict, format_name: str) -> list[str]:
    count = f"{len(verdict.calls)} call{'' if len(verdict.calls) == 1 else 's'}"
    if verdict.ok:
        return [f"OK: the turn may run ({format_name}, {count}).", *map(call_line, verdict.calls)]
    lines = [f"Refused: nothing of the turn runs ({format_name}, {count}); each call is answered."]
    for answer in verdict.answers:
        lines.extend(answer_lines(answer))
    return lines


def verdict_data(verdict: TurnVerdict, format_name: str) -> dict[str, Any]:
    """With --json: a turn that may run with its calls decoded, or a refused turn with the
    reply the host sends back, in the format's own shape."""
    if verdict.ok:
        calls = [{"id": call.id, "tool": call.tool, "arguments": call.arguments} for call in verdict.calls]
        return {"format": format_name, "ok": True, "calls": calls}
    return {"format": format_name, "ok": False, "reply": FORMATS[format_name].reply(verdict)}


def unjudged_notes(calls: Iterable[Call], tools: Mapping[str, object], table: Table) -> list[str]:
    """A note for each tool the turn calls whose schema the table does not judge all of."""
    called = dict.fromkeys(call.tool for call in calls if isinstance(call.tool, str) and call.tool in tools)
    notes = (unjudged_note(tool, tools[tool], table) for tool in called)
    return [note for note in notes if note]


def run_check_turn(args: argparse.Namespace) -> int:
    table = table_of(args)
    data = read_json_file(args.turn, "turn")
    try:
        turn = read_turn(data, args.format)
    except FormatError as error:
        what = "a turn of a known format" if args.format == "auto" else FORMATS[args.format].TITLE
        raise InputError(f"{source_name(args.turn, 'turn')} is not {what}: {error}") from None
    verdict = check_turn(turn.calls, turn.tools, table)
    for note in unjudged_notes(turn.calls, turn.tools, table):
        warn(note)
    if args.json:
        write_line(dump(verdict_data(verdict, turn.format)))
    else:
        for line in verdict_lines(verdict, turn.format):
            write_line(line)
    return FITS if verdict.ok else REFUSED


def add_turn_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`check-turn`, added to the command line's subcommands."""
    turn = commands.add_parser(
        "check-turn", help="check a model's turn in OpenAI, Anthropic or MCP shapes",
        description="Check every call of a model's turn, given with the tools offered in a format's own "
                    "shapes: the turn runs whole (exit 0) or each call id gets one answer (exit 1).")
    turn.add_argument("turn", help="the tools offered and the model's turn, in the format's shapes "
                                   "(a JSON file, or - for standard input)")
    turn.add_argument("--format", choices=(*FORMATS, "auto"), default="auto",
                      help="the turn file's format (default: told by its shape)")
    turn.add_argument("--json", action="store_true",
                      help="print the calls of a turn that may run, or the reply to a refused turn in the "
                           "format's own shape, as JSON")
    add_table_options(turn)
    turn.set_defaults(run=run_check_turn)
