"""`turngate check` (one call's arguments against a schema) and `turngate batch` (a JSON-lines
corpus of calls, each with its schema)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..check.convert import to_data
from ..check.schema import SchemaCache
from ..compile.compiled_table import compiled_table
from ..table.entries import Table
from ..turn.calls import Call, CallAnswer
from ..turn.gate import decode_arguments
from .io import (
    FITS,
    REFUSED,
    STDIN,
    UNUSABLE,
    InputError,
    dump,
    json_lines,
    parse_json,
    read_json_file,
    require_object,
    source_name,
    warn,
    write_line,
)
from .plugins import add_table_options, table_of
from .schema_file import tool_schema, unjudged_note

LIST_NOTE = ("the arguments are a list where an object is declared; ADR 246 lets a list pass there "
             "(a JSON object keyed 0, 1, 2 decodes to a PHP list), so nothing in it was checked.")


def list_note(schema: dict[str, Any], arguments: object, table: Table) -> str | None:
    """The note for arguments that passed only because the table lets a list stand for an
    object at the root (ADR 246); None for any other passing call."""
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
    object_type = table.type_by_name.get("object")
    lenient = object_type is not None and "list" in object_type.admits
    if type(arguments) is list and "object" in types and "array" not in types and lenient:
        return LIST_NOTE
    return None


def run_check(args: argparse.Namespace) -> int:
    if args.schema == STDIN and args.arguments == STDIN:
        raise InputError("the schema and the arguments cannot both be read from standard input (-); "
                         "give a file for one of them.")
    table = table_of(args)
    schema, defined = tool_schema(read_json_file(args.schema, "schema"), source_name(args.schema, "schema"),
                                  args.tool)
    arguments = read_json_file(args.arguments, "arguments")
    compiled = SchemaCache().compile(schema, table)
    verdict = compiled.check(arguments)
    tool = args.tool or defined or ("tool" if args.schema == STDIN else Path(args.schema).name.split(".")[0])
    note = list_note(schema, arguments, table) if verdict.ok else None
    unjudged = unjudged_note(tool, schema, table) if verdict.unjudged else None
    if unjudged:
        warn(unjudged)
    if args.json:
        write_line(dump({**to_data(verdict), **({"note": note} if note else {})}))
    elif verdict.ok:
        write_line("OK")
        if note:
            write_line(f"Note: {note}")
    else:
        write_line(compiled.refusal(tool, verdict))
    return FITS if verdict.ok else REFUSED


def _batch_line(line: str, number: int, cache: SchemaCache, table: Table) -> tuple[dict[str, Any], int]:
    call_id = None
    try:
        record = parse_json(line, f"line {number}")
        if not isinstance(record, dict):
            raise InputError(f"line {number} is not a JSON object with an id, a schema and arguments.")
        call_id = record.get("id")
        for field in ("schema", "arguments"):
            if field not in record:
                raise InputError(f'line {number} has no "{field}".')
        schema = require_object(record["schema"], f"the schema of line {number}")
        arguments = _decoded(record, table)
        if isinstance(arguments, CallAnswer):
            return _undecodable(call_id, arguments), REFUSED
        verdict = cache.compile(schema, table).check(arguments)
    except InputError as error:
        return {"id": call_id, "line": number, "error": str(error)}, UNUSABLE
    result = {"id": call_id, **to_data(verdict)}
    return {key: result[key] for key in ("id", "ok", "truncated", "mismatches")}, \
        FITS if verdict.ok else REFUSED


def _decoded(record: dict[str, Any], table: Table) -> object:
    """The line's arguments: a JSON value as it is, and text as `check_turn` reads it, as the
    JSON text of the arguments (OpenAI's calls, and the logs that keep them, hold them so);
    the call's answer where that text is not JSON."""
    arguments = record["arguments"]
    if type(arguments) is not str:
        return arguments
    tool = record.get("tool")
    call = Call(record.get("id"), tool if type(tool) is str else "tool", arguments)
    return decode_arguments(call, compiled_table(table).words)


def _undecodable(call_id: object, answer: CallAnswer) -> dict[str, Any]:
    """A line whose arguments are text that is not JSON: refused, the answer's sentence its one
    mismatch, at the root."""
    return {"id": call_id, "ok": False, "truncated": False,
            "mismatches": [{"path": [], "code": answer.codes[0], "message": answer.text, "expected": None,
                            "sent": None}]}


def run_batch(args: argparse.Namespace) -> int:
    table = table_of(args)
    cache, worst = SchemaCache(), FITS
    as_they_come = args.corpus == STDIN  # each answer is written as its line is read
    for number, line in json_lines(args.corpus, "corpus"):
        result, status = _batch_line(line, number, cache, table)
        write_line(dump(result), flush=as_they_come)
        worst = max(worst, status)
    return worst


def add_check_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`check` and `batch`, added to the command line's subcommands."""
    check = commands.add_parser(
        "check", help="check one call's arguments against a schema",
        description="Check one call's arguments against the tool's JSON Schema: print OK (exit 0) or "
                    "the refusal the model is answered with (exit 1). Where the table does not judge every "
                    "node of the schema, a note on standard error says how many, why, and which table "
                    "would judge them.")
    check.add_argument("schema", help="the tool's JSON Schema, or its definition as OpenAI, Anthropic or MCP "
                                      "give it, or a list of tools (a JSON file, or - for standard input)")
    check.add_argument("arguments", help="the arguments the model sent (a JSON file, or - for standard input)")
    check.add_argument("--tool", help="the tool to check the arguments of, where the file lists tools; and its "
                                      "name in the refusal (default: the tool's own name, else the schema "
                                      'file\'s name, or "tool" when the schema is read from standard input)')
    check.add_argument("--json", action="store_true",
                       help='print the verdict as JSON: {"ok", "mismatches", "truncated", "unjudged"}, and a '
                            '"note" where a list passed an object schema')
    add_table_options(check)
    check.set_defaults(run=run_check)

    batch = commands.add_parser(
        "batch", help='check a JSON-lines corpus of {"id", "schema", "arguments"}',
        description='Check each line {"id", "schema", "arguments"} of a JSON-lines corpus; print one line '
                    '{"id", "ok", "truncated", "mismatches"} per call, or {"id", "line", "error"} for a '
                    "line that cannot be checked, and go on. Arguments given as text are read as the "
                    "JSON text of the arguments, as check_turn reads them (OpenAI's calls and their logs "
                    "hold them so); an optional \"tool\" names the tool in a refusal of that text. Exit 0 "
                    "all fit, 1 some refused, 2 some line unusable.")
    batch.add_argument("corpus", help="the corpus, one JSON object per line (a file, or - for standard "
                                      "input, answered line by line)")
    add_table_options(batch)
    batch.set_defaults(run=run_batch)
