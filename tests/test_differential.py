"""Differential test: turngate against python-jsonschema, on generated schemas of every draft
(draft-03, -04, -06, -07, 2019-09, 2020-12, no `$schema`, an unknown one), each also holding
keywords its draft does not define, and instances aimed at each (numbers of any size, texts
that look like numbers), under every shipped table, with and without casts.

jsonschema is the judge: where it says an instance is valid, turngate must not refuse it.
Where jsonschema raises, the case's validity is unknown and only "nothing raises" is held.
Every message must be one clean sentence within the table's length; a cast must leave a
valid instance exactly as sent, must not add an error where it changes something, and must
never change the caller's object; `check_turn` on the raw JSON text must agree with `check`.

Short by default (the CI profile "differential-ci", about half a minute with coverage off).
The long run:

    python3 -m pytest tests/test_differential.py --hypothesis-profile=differential-long --no-cov -n 0 -p no:cacheprovider

With TURNGATE_SURVEY=FILE, a run records every broken promise in FILE and goes on (see
differential_survey.py), to find every kind of failure in one long run.

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
from differential_cases import Case, Judge, Tally, at_or_below, cases, describe, message_problems
from differential_json import any_digits, dumps, same_json, shown
from differential_survey import RAISED, Survey

# hypothesis writes out a recursive strategy once, to check it: these are long to write.
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:Generating overly large repr")]

TABLES = sorted(turngate.shipped_tables())
LIMITS = {table: turngate.load_table(table).limit["message-length"] for table in TABLES}
STATS_FILE = Path(__file__).resolve().parent.parent / ".cache" / "differential-stats.json"
TALLY = Tally()
SURVEY = Survey.from_environment()


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


def write_stats() -> None:
    STATS_FILE.parent.mkdir(parents=True, exist_ok=True)
    STATS_FILE.write_text(json.dumps(TALLY.as_json(), indent=2) + "\n", encoding="utf-8")


@pytest.fixture(scope="module", autouse=True)
def stats_report(request):
    yield
    write_stats()
    SURVEY.flush_counts("differential")
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
    TALLY.keywords(case.schema)
    made = lambda: describe("compiling raised", case, None, table)  # noqa: E731
    compiled = SURVEY.call(lambda: turngate.compile_schema(case.schema, table), f"compile [{table}]", made)
    casting = SURVEY.call(lambda: turngate.compile_schema(case.schema, table, casts=True), f"compile [{table}]",
                          made)
    judge, verdicts = judged(case, table)
    if TALLY.schemas_tried % 500 == 0:
        write_stats()  # as it goes: a long run stopped by a time limit keeps its counts
    if compiled is RAISED or casting is RAISED:
        return
    for instance, valid in verdicts:
        hold_every_promise(compiled, casting, judge, valid, case, instance, table)


def hold_every_promise(compiled, casting, judge: Judge, valid: bool | None, case: Case, instance: object,
                       table: str) -> None:
    sent = copy.deepcopy(instance)
    verdict = SURVEY.call(lambda: compiled.check(instance), f"check [{table}]",
                          lambda: describe("check raised", case, instance, table))
    if verdict is RAISED:
        return
    if valid:
        refused = lambda: describe("refused, but valid under JSON Schema", case, instance, table, verdict)  # noqa: E731
        assert SURVEY.held(verdict.ok, f"refused valid [{table}, {case.draft}] {codes(verdict)}", refused), refused()
    assert_clean_messages(compiled, verdict, case, instance, table)
    assert_raw_text_agrees(verdict, case, instance, table)
    passed = SURVEY.call(lambda: casting.check(instance), f"check with casts [{table}]",
                         lambda: describe("check (casts) raised", case, instance, table))
    if passed is not RAISED and passed.ok:  # a host casts only a call that passed
        assert_cast_is_exact(casting, passed, judge, valid, case, instance, table)
    changed = lambda: describe("the caller's object was changed", case, sent, table, verdict, now=shown(instance))  # noqa: E731
    assert SURVEY.held(same_json(instance, sent), f"changed the caller's object [{table}]", changed), changed()


def codes(verdict) -> str:
    return ",".join(sorted({m.code for m in verdict.mismatches}))


def assert_clean_messages(compiled, verdict, case: Case, instance: object, table: str) -> None:
    """Every mismatch's message is one clean sentence within the table's length, and so is
    every line of the refusal."""
    for message in [m.message for m in verdict.mismatches]:
        problems = message_problems(message, LIMITS[table])
        unclean = lambda: describe("a message " + "; ".join(problems), case, instance, table, message=repr(message))  # noqa: E731
        assert SURVEY.held(not problems, f"unclean message [{table}] {problems_kind(problems)}", unclean), unclean()
    if not verdict.ok:
        text = SURVEY.call(lambda: compiled.refusal("t", verdict), f"refusal [{table}]",
                           lambda: describe("refusal raised", case, instance, table, verdict))
        if text is not RAISED:
            assert_clean_answer(text, case, instance, table)


def problems_kind(problems: list[str]) -> str:
    return ",".join(problem.split(" ")[0] + " " + problem.split(" ")[1] for problem in problems)


def assert_clean_answer(text: str, case: Case, instance: object, table: str) -> None:
    """An answer: a first line, then one "- " line per message; every line one sentence."""
    for line in text.split("\n"):
        problems = message_problems(line, LIMITS[table] + len("- "))
        unclean = lambda: describe("an answer line " + "; ".join(problems), case, instance, table, line=repr(line))  # noqa: E731
        assert SURVEY.held(not problems, f"unclean answer line [{table}] {problems_kind(problems)}", unclean), \
            unclean()


def assert_raw_text_agrees(verdict, case: Case, instance: object, table: str) -> None:
    """The OpenAI shape: the arguments as raw JSON text, decoded by check_turn, get the
    verdict the decoded arguments get, and clean answers."""
    text = dumps(instance)
    turn = SURVEY.call(lambda: turngate.check_turn([{"id": "c1", "tool": "t", "arguments": text}], {"t": case.schema},
                                                   table=table),
                       f"check_turn [{table}]", lambda: describe("check_turn on JSON text raised", case, instance, table))
    if turn is RAISED:
        return
    with any_digits():
        decoded = json.loads(text)
    if same_json(decoded, instance):
        differs = lambda: describe("check_turn on the JSON text disagrees with check", case, instance, table,  # noqa: E731
                                   verdict, check_turn=turn.answers)
        assert SURVEY.held(turn.ok == verdict.ok, f"check_turn disagrees with check [{table}]", differs), differs()
    for answer in turn.answers:
        for message in [m.message for m in answer.mismatches]:
            problems = message_problems(message, LIMITS[table])
            unclean = lambda: describe("a turn's message " + "; ".join(problems), case, instance, table,  # noqa: E731
                                       message=repr(message))
            assert SURVEY.held(not problems, f"unclean turn message [{table}] {problems_kind(problems)}", unclean), \
                unclean()
        assert_clean_answer(answer.text, case, instance, table)


def assert_cast_is_exact(casting, verdict, judge: Judge, valid: bool | None, case: Case, instance: object,
                         table: str) -> None:
    """A cast leaves an instance that is valid as sent exactly as sent; where it changes
    something, it adds no error (a cast applies only where the cast value fits)."""
    sent = copy.deepcopy(instance)
    cast = SURVEY.call(lambda: casting.cast(instance), f"cast [{table}]",
                       lambda: describe("cast raised", case, instance, table, verdict))
    if cast is RAISED:
        return
    what = {"cast": shown(cast.arguments), "changed": cast.changed, "not_cast": cast.not_cast}
    changed = lambda: describe("the cast changed the caller's object", case, sent, table, verdict,  # noqa: E731
                               now=shown(instance))
    assert SURVEY.held(same_json(instance, sent), f"cast changed the caller's object [{table}]", changed), changed()
    if valid:
        exact = same_json(cast.arguments, sent) and cast.changed == ()
        moved = lambda: describe("a cast changed an instance that is valid as sent", case, sent, table,  # noqa: E731
                                 verdict, **what)
        assert SURVEY.held(exact, f"cast a valid value [{table}, {case.draft}]", moved), moved()
    elif valid is False and (cast.changed or not same_json(cast.arguments, sent)):
        before, after = judge.error_paths(sent), judge.error_paths(cast.arguments)
        if before is None or after is None:
            return  # jsonschema could not list the errors of one of them
        new = sorted(after - before, key=repr)
        added = lambda: describe("the cast added errors at these paths", case, sent, table, verdict,  # noqa: E731
                                 paths=new, errors_before=sorted(before, key=repr), **what)
        assert SURVEY.held(not new, f"cast added errors [{table}, {case.draft}]", added), added()
        left = sorted((path for path in after if at_or_below(path, cast.changed)), key=repr)
        unfit = lambda: describe("a changed value still does not fit", case, sent, table, verdict,  # noqa: E731
                                 paths=left, **what)
        assert SURVEY.held(not left, f"cast value does not fit [{table}, {case.draft}]", unfit), unfit()
