"""The `turngate` command line.

Exit codes: 0 the arguments fit (the call may run), 1 refused, 2 unusable input, which is
told in one sentence on standard error, never as a traceback. `timeline` and `stats` exit 1
when some lines of the record file are not steps (each is reported; the rest is counted).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..check.convert import to_data
from ..check.schema import SchemaCache, resolve_table
from ..table.errors import TableError
from ..turn.steps import load_steps
from .coverage_report import DEFAULT_TABLES, coverage_lines, measure
from .demo import run_demo
from .io import (
    FITS,
    PARTIAL,
    REFUSED,
    UNUSABLE,
    InputError,
    dump,
    parse_json,
    read_json_file,
    require_object,
    write_line,
)
from .reports import stats_by_code, stats_by_tool, stats_table, timeline
from .turn_file import add_turn_command


def run_check(args: argparse.Namespace) -> int:
    table = resolve_table(args.table)
    schema = require_object(read_json_file(args.schema, "schema"), f'the schema file "{args.schema}"')
    arguments = read_json_file(args.arguments, "arguments")
    compiled = SchemaCache().compile(schema, table)
    verdict = compiled.check(arguments)
    tool = args.tool or Path(args.schema).name.split(".")[0]
    if args.json:
        write_line(dump(to_data(verdict)))
    else:
        write_line("OK" if verdict.ok else compiled.refusal(tool, verdict))
    return FITS if verdict.ok else REFUSED


def _batch_line(line: str, number: int, cache: SchemaCache, table) -> tuple[dict, int]:
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
        verdict = cache.compile(schema, table).check(record["arguments"])
    except InputError as error:
        return {"id": call_id, "line": number, "error": str(error)}, UNUSABLE
    result = {"id": call_id, **to_data(verdict)}
    return {key: result[key] for key in ("id", "ok", "truncated", "mismatches")}, \
        FITS if verdict.ok else REFUSED


def run_batch(args: argparse.Namespace) -> int:
    table = resolve_table(args.table)
    try:
        with open(args.corpus, encoding="utf-8") as corpus:
            lines = list(corpus)
    except FileNotFoundError:
        raise InputError(f'the corpus file "{args.corpus}" does not exist.') from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f'the corpus file "{args.corpus}" cannot be read as UTF-8 text ({error.__class__.__name__}).') from None
    cache, worst = SchemaCache(), FITS
    for number, line in enumerate(lines, 1):
        if line.strip():
            result, status = _batch_line(line.rstrip("\r\n"), number, cache, table)
            write_line(dump(result))
            worst = max(worst, status)
    return worst


def read_steps_file(path: str) -> tuple[list, list]:
    try:
        with open(path, encoding="utf-8") as records:
            steps, broken = load_steps(records)
    except FileNotFoundError:
        raise InputError(f'the steps file "{path}" does not exist.') from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f'the steps file "{path}" cannot be read as UTF-8 text ({error.__class__.__name__}).') from None
    for _, sentence in broken:
        sys.stderr.write(f"turngate: {path}: {sentence}\n")
    return steps, broken


def run_timeline(args: argparse.Namespace) -> int:
    steps, broken = read_steps_file(args.steps)
    for line in timeline(steps):
        write_line(line)
    return PARTIAL if broken else FITS


def run_stats(args: argparse.Namespace) -> int:
    steps, broken = read_steps_file(args.steps)
    stats = stats_by_code(steps) if args.by == "code" else stats_by_tool(steps)
    if args.json:
        write_line(dump({**stats, "unreadable_lines": [number for number, _ in broken]}))
    else:
        for line in stats_table(stats):
            write_line(line)
    return PARTIAL if broken else FITS


def run_coverage(args: argparse.Namespace) -> int:
    documents = {path: read_json_file(path, "schema") for path in args.schemas}
    result = measure(documents, args.table or list(DEFAULT_TABLES))
    for line in [dump(result)] if args.json else coverage_lines(result):
        write_line(line)
    return FITS


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="turngate", description=__doc__.splitlines()[0])
    commands = top.add_subparsers(dest="command", required=True)

    check = commands.add_parser("check", help="check one call's arguments against a schema")
    check.add_argument("schema", help="the tool's JSON Schema (a JSON file)")
    check.add_argument("arguments", help="the arguments the model sent (a JSON file)")
    check.add_argument("--tool", help="the tool's name in the refusal (default: the schema file's name)")
    check.set_defaults(run=run_check)

    batch = commands.add_parser("batch", help='check a JSON-lines corpus of {"id", "schema", "arguments"}')
    batch.add_argument("corpus")
    batch.set_defaults(run=run_batch)

    for sub in (check, batch):
        sub.add_argument("--table", help="a shipped table's name or a .rules file (default: adr246)")
    check.add_argument("--json", action="store_true", help="print the verdict as JSON")

    steps_help = "run steps as JSON lines (either privacy level)"
    line = commands.add_parser("timeline", help="list a run's steps in order, with status and refusal code")
    line.add_argument("steps", help=steps_help)
    line.set_defaults(run=run_timeline)
    stats = commands.add_parser("stats", help="count calls, failures and refusals per tool or per code")
    stats.add_argument("steps", help=steps_help)
    stats.add_argument("--by", choices=("tool", "code"), default="tool")
    stats.add_argument("--json", action="store_true", help="print the counts as JSON")
    stats.set_defaults(run=run_stats)
    cover = commands.add_parser("coverage", help="the share of schema nodes each table judges, and why the rest not")
    cover.add_argument("schemas", nargs="+", help="schema files: a schema, or tools as MCP, OpenAI or Anthropic list them")
    cover.add_argument("--table", action="append", help="a table to measure (repeatable; default: adr246 and extended)")
    cover.add_argument("--json", action="store_true")
    cover.set_defaults(run=run_coverage)
    add_turn_command(commands)
    demo = commands.add_parser("demo", help="replay a recorded model turn against the example MCP server")
    demo.set_defaults(run=run_demo)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except (InputError, TableError) as error:
        text = str(error)
        sys.stderr.write(f"turngate: {text[:1].lower() + text[1:] if isinstance(error, InputError) else text}\n")
        return UNUSABLE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
