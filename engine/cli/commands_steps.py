"""`turngate timeline` and `turngate stats`: what a run's recorded steps say.

Both exit 0 when every line of the record file is a step, 1 when some are not (the first few
are told on standard error, the rest counted), 2 when none is or the file cannot be read.
"""

from __future__ import annotations

import argparse

from .io import FITS, PARTIAL, dump, write_line
from .reports import stats_by_code, stats_by_tool, stats_table, timeline, timeline_data
from .step_records import read_steps_file

STEPS_HELP = "run steps as JSON lines, of either privacy level (a file, or - for standard input)"
EXIT_CODES = ("exit 0 every line is a step; 1 some lines are not (the first 3 are told on standard error, "
              "the rest counted); 2 no line is a step, or the file cannot be read")


def run_timeline(args: argparse.Namespace) -> int:
    steps, broken = read_steps_file(args.steps)
    lines = map(dump, timeline_data(steps)) if args.json else timeline(steps)
    for line in lines:
        write_line(line)
    return PARTIAL if broken else FITS


def run_stats(args: argparse.Namespace) -> int:
    steps, broken = read_steps_file(args.steps)
    stats = stats_by_code(steps) if args.by == "code" else stats_by_tool(steps)
    if args.json:
        write_line(dump({**stats, "unreadable_lines": broken}))
    else:
        for line in stats_table(stats):
            write_line(line)
    return PARTIAL if broken else FITS


def add_steps_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`timeline` and `stats`, added to the command line's subcommands."""
    line = commands.add_parser(
        "timeline", help="list a run's steps in order, with status and refusal code",
        description=f"List a run's steps in order: turn, call, tool, status, refusal and codes; {EXIT_CODES}.")
    line.add_argument("steps", help=STEPS_HELP)
    line.add_argument("--json", action="store_true",
                      help='print JSON lines instead of a table: one object {"turn", "index", "tool", '
                           '"status", "tool_refusal", "codes"} per step, in the order of the run')
    line.set_defaults(run=run_timeline)

    stats = commands.add_parser(
        "stats", help="count calls, failures and refusals per tool or per code",
        description=f"Count calls, failures and refusals per tool, or mismatches per code; {EXIT_CODES}.")
    stats.add_argument("steps", help=STEPS_HELP)
    stats.add_argument("--by", choices=("tool", "code"), default="tool",
                       help="one row per tool (calls, ran, failed, failure rate, refusals) or per mismatch "
                            "code (mismatches, calls) (default: tool)")
    stats.add_argument("--json", action="store_true",
                       help='print the counts as one JSON object, with "unreadable_lines": the numbers of '
                            "the lines that are not steps")
    stats.set_defaults(run=run_stats)
