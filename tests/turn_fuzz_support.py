"""What the turn fuzzer's tests share: the tables and their limits, the survey, the CI and
long profiles of each test, and how a failure and a text are told."""

from __future__ import annotations

from hypothesis import settings

import turngate
from differential_cases import message_problems
from differential_json import shown, strict_loads
from differential_survey import Survey
from turn_fuzz_shapes import TurnCase

TABLES = tuple(sorted(turngate.shipped_tables()))
LIMITS = {table: turngate.load_table(table).limit["message-length"] for table in TABLES}
SURVEY = Survey.from_environment()
#: Examples per test in the long run (the main test's is the profile's own, which
#: TURNGATE_LONG_EXAMPLES may set): a replay starts a process per batch of turns, and the
#: command one per turn.
LONG_BUDGETS = {"turn-fuzz-ci": 20_000, "turn-fuzz-replay-ci": 200, "turn-fuzz-command-ci": 300}


def fuzz_settings(name: str) -> settings:
    """The long profile's budget for this test when the run loaded it, else this test's CI
    profile (both in conftest.py)."""
    long_run = settings.get_profile("turn-fuzz-long")
    if settings.default is long_run:
        return long_run if name == "turn-fuzz-ci" else settings(long_run, max_examples=LONG_BUDGETS[name])
    return settings.get_profile(name)


def describe(what: str, case: TurnCase, **more: object) -> str:
    """A failure's message: what went wrong, and everything needed to replay it."""
    lines = [what, f"  format:   {case.format}", f"  table:    {case.table}", f"  casts:    {case.casts}",
             f"  tools:    {shown(case.tools)}", f"  turn:     {shown(case.turn)}",
             f"  shaped:   {case.well_formed}"]
    return "\n".join(lines + [f"  {name}: {value}" for name, value in more.items()])


def clean_sentence(text: str, limit: int | None = None) -> list[str]:
    """What makes a text other than one clean sentence (within `limit`, where given)."""
    return message_problems(text, limit if limit is not None else len(text))


def problem_kinds(problems: list[str]) -> str:
    """The kinds of problem, to tell failures apart: "holds raw", "does not"."""
    return ",".join(sorted({" ".join(problem.split(" ")[:2]) for problem in problems}))


def strict_reads(line: str) -> bool:
    """Whether a line is one JSON text a strict reader reads (no NaN, no line break)."""
    try:
        strict_loads(line)
    except (ValueError, RecursionError):
        return False
    return "\n" not in line
