"""`turngate coverage`: how much of real schemas each table judges, and why the rest not."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..check.schema import resolve_table
from ..compile.coverage import Coverage, combined, coverage, tool_schemas
from .io import FITS, STDIN, InputError, dump, read_json_file, write_line
from .plugins import add_table_options, check_table_file, import_plugins
from .reports import aligned_rows

DEFAULT_TABLES = ("adr246", "extended")


def measure(documents: dict[str, object], table_names: list[str]) -> dict[str, Any]:
    """Per file and in all: tools, nodes, and per table judged nodes and skips by trigger."""
    tables = {name: resolve_table(name) for name in table_names}
    files: list[dict[str, Any]] = []
    totals: dict[str, list[Any]] = {name: [] for name in tables}
    for file, document in documents.items():
        schemas = tool_schemas(document)
        row: dict[str, Any] = {"file": file, "tools": len(schemas), "tables": {}}
        for name, table in tables.items():
            part = combined([coverage(schema, table) for _, schema in schemas])
            totals[name].append(part)
            row["tables"][name] = _figures(part)
        row["nodes"] = next(iter(row["tables"].values()))["nodes"] if tables else 0
        files.append(row)
    total = {"tools": sum(f["tools"] for f in files),
             "tables": {name: _figures(combined(parts)) for name, parts in totals.items()}}
    total["nodes"] = next(iter(total["tables"].values()))["nodes"] if tables else 0
    return {"files": files, "total": total}


def _figures(part: Coverage) -> dict[str, Any]:
    return {"nodes": part.nodes, "judged": part.judged, "share": round(part.share, 4), "skipped": part.skipped}


def coverage_lines(result: dict[str, Any]) -> list[str]:
    names = list(result["total"]["tables"])
    rows = [["schema file", "tools", "nodes", *(f"judged under {n}" for n in names)]]
    for row in [*result["files"], {"file": "all", **result["total"]}]:
        rows.append([Path(row["file"]).name, str(row["tools"]), str(row["nodes"]),
                     *(_judged(row["tables"][n]) for n in names)])
    triggers = sorted({t for n in names for t in result["total"]["tables"][n]["skipped"]})
    skips = [["skipped nodes, by trigger", *names]]
    skips += [[trigger, *(str(result["total"]["tables"][n]["skipped"].get(trigger, 0)) for n in names)]
              for trigger in triggers]
    return [*aligned_rows(rows), "", *aligned_rows(skips)]


def _judged(figures: dict[str, Any]) -> str:
    return f"{figures['judged']} ({figures['share'] * 100:.1f} %)"


def run_coverage(args: argparse.Namespace) -> int:
    if args.schemas.count(STDIN) > 1:
        raise InputError("standard input (-) can be read only once; name it once among the schema files.")
    documents = {path: read_json_file(path, "schema") for path in args.schemas}
    import_plugins(args.plugin)
    for table in args.table or ():
        check_table_file(table)
    result = measure(documents, args.table or list(DEFAULT_TABLES))
    for line in [dump(result)] if args.json else coverage_lines(result):
        write_line(line)
    return FITS


def add_coverage_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`coverage`, added to the command line's subcommands."""
    cover = commands.add_parser(
        "coverage", help="the share of schema nodes each table judges, and why the rest not",
        description="Measure, per schema file and in all, the share of schema nodes each table judges, "
                    "and count the skipped nodes by the trigger that skipped them.")
    cover.add_argument("schemas", nargs="+", metavar="schema",
                       help="schema files: a schema, or tools as MCP, OpenAI or Anthropic list them "
                            "(- for standard input, once)")
    add_table_options(cover, "a table to measure: a shipped table's name or a .rules file (repeatable; "
                             "default: adr246 and extended)", action="append")
    cover.add_argument("--json", action="store_true",
                       help='print the figures as one JSON object: {"files", "total"}')
    cover.set_defaults(run=run_coverage)
