"""Differential test: turngate against python-jsonschema, on generated schemas of every draft
(draft-04, -06, -07, 2019-09, 2020-12, no `$schema`, an unknown one) and instances aimed at
each, under every shipped table.

jsonschema is the judge: where it says an instance is valid, turngate must not refuse it.
Where jsonschema raises, the case's validity is unknown and only "nothing raises" is held.
Every message must be one clean sentence within the table's length; a cast must leave a
valid instance exactly as sent, must not add an error where it changes something, and must
never change the caller's object; `check_turn` on the raw JSON text must agree with `check`.

Short by default (the CI profile "differential-ci", about half a minute with coverage off).
The long run:

    python3 -m pytest tests/test_differential.py --hypothesis-profile=differential-long --no-cov -n 0 -p no:cacheprovider

Each run writes how many schemas and instances were tried, per table and draft, and how many
jsonschema judged valid, to .cache/differential-stats.json and to the terminal summary.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings

import turngate
from differential_cases import Case, Judge, Tally, at_or_below, cases, describe, message_problems, same_json

pytestmark = pytest.mark.slow

TABLES = sorted(turngate.shipped_tables())
LIMITS = {table: turngate.load_table(table).limit["message-length"] for table in TABLES}
STATS_FILE = Path(__file__).resolve().parent.parent / ".cache" / "differential-stats.json"
TALLY = Tally()


def differential_settings() -> settings:
    """The long profile when the run loaded it (--hypothesis-profile=differential-long),
    else the short CI profile; both are registered in conftest.py."""
    long_run = settings.get_profile("differential-long")
    return long_run if settings.default is long_run else settings.get_profile("differential-ci")


class StatsSummary:
    """Prints the tally in pytest's terminal summary, after the last test of the module."""

    def __init__(self, lines: list[str]):
        self.lines = lines

    def pytest_terminal_summary(self, terminalreporter) -> None:
        terminalreporter.write_sep("-", f"differential: schemas and instances tried (also in {STATS_FILE.name})")
        for line in self.lines:
            terminalreporter.write_line(line)


@pytest.fixture(scope="module", autouse=True)
def stats_report(request):
    yield
    STATS_FILE.parent.mkdir(parents=True, exist_ok=True)
    STATS_FILE.write_text(json.dumps(TALLY.as_json(), indent=2) + "\n", encoding="utf-8")
    plugins = request.config.pluginmanager
    if not plugins.has_plugin("differential-stats"):
        plugins.register(StatsSummary(TALLY.lines()), name="differential-stats")


def judged(case: Case, table: str) -> tuple[Judge, list[tuple[object, bool | None]]]:
    """jsonschema's verdict on each instance of the case (None: it could not judge), counted."""
    judge = Judge(case.schema)
    TALLY.schema(table, case.draft)
    verdicts = []
    for instance in case.instances:
        valid = judge.valid(instance)
        TALLY.instance(table, case.draft, valid)
        verdicts.append((instance, valid))
    return judge, verdicts


# One test per table, holding every promise for each instance: drawing a schema and its
# instances costs several times more than checking them, so the promises share the draw.
# Each promise asserts on lines of its own, so hypothesis reports (and shrinks) a broken
# promise apart from the others.
@pytest.mark.parametrize("table", TABLES)
@differential_settings()
@given(case=cases())
def test_turngate_agrees_with_json_schema(table, case):
    compiled = turngate.compile_schema(case.schema, table)
    casting = turngate.compile_schema(case.schema, table, casts=True)
    judge, verdicts = judged(case, table)
    for instance, valid in verdicts:
        sent = copy.deepcopy(instance)
        verdict = compiled.check(instance)
        if valid:
            assert verdict.ok, describe("refused, but valid under JSON Schema", case, instance, table, verdict)
        assert_clean_messages(compiled, verdict, case, instance, table)
        assert_raw_text_agrees(verdict, case, instance, table)
        passed = casting.check(instance)
        if passed.ok:  # a host casts only a call that passed
            assert_cast_is_exact(casting, passed, judge, valid, case, instance, table)
        assert same_json(instance, sent), describe("the caller's object was changed", case, sent, table,
                                                   verdict, now=instance)


def assert_clean_messages(compiled, verdict, case: Case, instance: object, table: str) -> None:
    """Every mismatch's message is one clean sentence within the table's length, and so is
    every line of the refusal."""
    for message in [m.message for m in verdict.mismatches]:
        problems = message_problems(message, LIMITS[table])
        assert not problems, describe("a message " + "; ".join(problems), case, instance, table, message=repr(message))
    if not verdict.ok:
        assert_clean_answer(compiled.refusal("t", verdict), case, instance, table)


def assert_clean_answer(text: str, case: Case, instance: object, table: str) -> None:
    """An answer: a first line, then one "- " line per message; every line one sentence."""
    for line in text.split("\n"):
        problems = message_problems(line, LIMITS[table] + len("- "))
        assert not problems, describe("an answer line " + "; ".join(problems), case, instance, table, line=repr(line))


def assert_raw_text_agrees(verdict, case: Case, instance: object, table: str) -> None:
    """The OpenAI shape: the arguments as raw JSON text, decoded by check_turn, get the
    verdict the decoded arguments get, and clean answers."""
    text = json.dumps(instance)
    turn = turngate.check_turn([{"id": "c1", "tool": "t", "arguments": text}], {"t": case.schema}, table=table)
    if same_json(json.loads(text), instance):
        assert turn.ok == verdict.ok, describe("check_turn on the JSON text disagrees with check", case,
                                               instance, table, verdict, check_turn=turn.answers)
    for answer in turn.answers:
        for message in [m.message for m in answer.mismatches]:
            problems = message_problems(message, LIMITS[table])
            assert not problems, describe("a turn's message " + "; ".join(problems), case, instance, table,
                                          message=repr(message))
        assert_clean_answer(answer.text, case, instance, table)


def assert_cast_is_exact(casting, verdict, judge: Judge, valid: bool | None, case: Case, instance: object,
                         table: str) -> None:
    """A cast leaves an instance that is valid as sent exactly as sent; where it changes
    something, it adds no error (a cast applies only where the cast value fits)."""
    sent = copy.deepcopy(instance)
    cast = casting.cast(instance)
    shown = {"cast": json.dumps(cast.arguments), "changed": cast.changed, "not_cast": cast.not_cast}
    assert same_json(instance, sent), describe("the cast changed the caller's object", case, sent, table, verdict,
                                               now=instance)
    if valid:
        assert same_json(cast.arguments, sent) and cast.changed == (), describe(
            "a cast changed an instance that is valid as sent", case, sent, table, verdict, **shown)
    elif valid is False and (cast.changed or not same_json(cast.arguments, sent)):
        before, after = judge.error_paths(sent), judge.error_paths(cast.arguments)
        if before is None or after is None:
            return  # jsonschema could not list the errors of one of them
        new = sorted(after - before, key=repr)
        assert not new, describe("the cast added errors at these paths", case, sent, table, verdict, paths=new,
                                 errors_before=sorted(before, key=repr), **shown)
        left = sorted((path for path in after if at_or_below(path, cast.changed)), key=repr)
        assert not left, describe("a changed value still does not fit", case, sent, table, verdict, paths=left,
                                  **shown)
