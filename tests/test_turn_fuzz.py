"""The turn fuzzer: whole turns in every format (OpenAI Chat Completions, OpenAI Responses,
Anthropic Messages, MCP, and calls handed to `check_turn` directly), with odd ids, names,
roles, types, arguments and numbers of any size (tests/turn_fuzz_shapes.py), under every
shipped table, with and without casts. The promises held, against what the case put in
the turn and python-jsonschema's judgement of each call (tests/turn_fuzz_oracle.py):

- a valid turn (every call names a tool offered, its arguments are valid for the tool's
  schema's own draft, every id is its own) runs, and each call is handed its arguments as
  sent (a cast changes only what is invalid, and adds no error); arguments decoded from
  text never hold NaN or an infinity (JSON has neither);
- nothing raises, but a turn not in its format's shape, with one sentence (`FormatError`);
- a refused turn answers every distinct call id exactly once, in the order of the turn,
  every line one clean sentence, and its reply is JSON a strict reader reads (no NaN);
- its run steps are JSON lines a strict reader reads, that `load_steps` reads back equal;
- nothing the host gave is changed; what a host is handed is its own (changing it changes
  no later answer), and the same turn is answered alike twice (in a fresh process, in any
  order, and by `turngate check-turn`: tests/test_turn_fuzz_processes.py).

Short by default (the CI profile "turn-fuzz-ci"); the long run (both files):

    python3 -m pytest tests/test_turn_fuzz.py tests/test_turn_fuzz_processes.py \
        --hypothesis-profile=turn-fuzz-long --no-cov -n 0 -p no:cacheprovider

TURNGATE_SURVEY=FILE records every broken promise in FILE and goes on (differential_survey.py).
Each run writes how many turns were tried per format, table and casts to
.cache/turn-fuzz-stats.json and to the terminal summary.
"""

from __future__ import annotations

import io
import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from hypothesis import given, settings

import turngate
from differential_cases import Judge, at_or_below
from differential_json import holds_no_nan, same_data, same_json, shown, unshared
from differential_survey import RAISED
from turn_fuzz_oracle import UNKNOWN, Expected, Outcome, allowed_error, canonical, expect, run, strict_json_problem
from turn_fuzz_shapes import MISSING, TurnCase, turn_cases
from turn_fuzz_support import (
    LIMITS,
    SURVEY,
    TABLES,
    clean_sentence,
    describe,
    fuzz_settings,
    problem_kinds,
    strict_reads,
)

pytestmark = pytest.mark.slow

STATS_FILE = Path(__file__).resolve().parent.parent / ".cache" / "turn-fuzz-stats.json"
TALLY: dict = defaultdict(Counter)
REPLY_IDS = {"openai": "tool_call_id", "responses": "call_id", "anthropic": "tool_use_id"}


class StatsSummary:
    def __init__(self, lines: list[str]):
        self.lines = lines

    def pytest_terminal_summary(self, terminalreporter) -> None:
        terminalreporter.write_sep("-", f"turn fuzz: turns tried (also in {STATS_FILE.name})")
        for line in self.lines:
            terminalreporter.write_line(line)


def write_stats() -> Counter:
    rows = {f"{fmt} {table} casts={casts}": dict(counts) for (fmt, table, casts), counts in sorted(TALLY.items())}
    total = sum(TALLY.values(), Counter())
    STATS_FILE.parent.mkdir(parents=True, exist_ok=True)
    STATS_FILE.write_text(json.dumps({"turns": rows, "total": dict(total)}, indent=2) + "\n", encoding="utf-8")
    return total


@pytest.fixture(scope="module", autouse=True)
def stats_report(request):
    yield
    total = write_stats()
    SURVEY.flush_counts("turn fuzz")
    lines = [f"{'format':<10} {'table':<9} {'casts':<6} {'turns':>7} {'valid':>7} {'ran':>7} {'refused':>8} "
             f"{'errors':>7}"]
    for (fmt, table, casts), counts in sorted(TALLY.items()) + [(("all", "", ""), total)]:
        lines.append(f"{fmt:<10} {table:<9} {str(casts):<6} {counts['turns']:>7} {counts['valid']:>7} "
                     f"{counts['ran']:>7} {counts['refused']:>8} {counts['format errors']:>7}")
    if not request.config.pluginmanager.has_plugin("turn-fuzz-stats"):
        request.config.pluginmanager.register(StatsSummary(lines), name="turn-fuzz-stats")


@settings(parent=fuzz_settings("turn-fuzz-ci"))
@given(case=turn_cases(TABLES))
def test_a_turn_in_any_format_keeps_every_promise(case):
    tally = TALLY[case.format, case.table, case.casts]
    tally["turns"] += 1
    if sum(counts["turns"] for counts in TALLY.values()) % 1000 == 0:
        write_stats()  # as it goes: a long run stopped by a time limit keeps its counts
    tools, turn = unshared(case.tools), unshared(case.turn)
    outcome = run(case, tools, turn)
    given_back = describe("the host's tools or turn were changed", case)
    assert SURVEY.held(same_data(tools, case.tools) and same_data(turn, case.turn), "changed what the host gave",
                       lambda: given_back), given_back
    if outcome.error is not None:
        tally["format errors"] += 1
        hold_error_promises(case, outcome.error)
        return
    expected = expect(case)
    tally["valid"] += expected.valid
    tally["ran" if outcome.verdict.ok else "refused"] += 1
    if expected.valid:
        refused = lambda: describe("a valid turn was refused", case,  # noqa: E731
                                   answers=[answer.text for answer in outcome.verdict.answers])
        kind = f"refused a valid turn [{case.format}, {case.table}] {codes_of(outcome.verdict)}"
        assert SURVEY.held(outcome.verdict.ok, kind, refused), refused()
    if outcome.verdict.ok:
        hold_run_promises(case, expected, outcome.verdict)
    else:
        hold_refusal_promises(case, expected, outcome)
    hold_own_values_promise(case, outcome)


def codes_of(verdict) -> str:
    return ",".join(sorted({code for answer in verdict.answers for code in answer.codes}))


def hold_error_promises(case: TurnCase, error: BaseException) -> None:
    """A turn in its format's shape is read; one that is not gets one sentence."""
    raised = lambda: describe(f"raised {type(error).__name__}: {shown(str(error))[:400]}", case)  # noqa: E731
    where = error.__traceback__
    while where is not None and where.tb_next is not None:
        where = where.tb_next
    line = f"{Path(where.tb_frame.f_code.co_filename).name}:{where.tb_lineno}" if where else "?"
    kind = f"raised {type(error).__name__} at {line} [{case.format}]"
    assert SURVEY.held(allowed_error(case, error), kind, raised), raised()
    if not allowed_error(case, error):
        return
    problems = clean_sentence(str(error))
    unclean = lambda: describe(f"the error's text {'; '.join(problems)}: {str(error)!r}"[:600], case)  # noqa: E731
    kind = f"unclean error text [{case.format}] {type(error).__name__} {problem_kinds(problems)}"
    assert SURVEY.held(not problems, kind, unclean), unclean()


def hold_run_promises(case: TurnCase, expected: Expected, verdict) -> None:
    """A turn that runs hands on every call, with its id and tool, and its arguments as sent
    (decoded), or cast where casts are on and the value was invalid as sent."""
    calls = verdict.calls
    handed = lambda: describe("the calls handed on are not the turn's", case, calls=shown(calls))  # noqa: E731
    same = len(calls) == len(case.calls) and all(
        same_json(call.id, None if given.id is MISSING else given.id) and call.tool == given.name
        for call, given in zip(calls, case.calls))
    assert SURVEY.held(same, f"ran other calls [{case.format}]", handed), handed()
    for index, (call, given, sent, valid) in enumerate(zip(calls, case.calls, expected.arguments, expected.fits)):
        if same and isinstance(given.arguments, str):
            infinite = lambda: describe("arguments decoded from text hold NaN or an infinity", case,  # noqa: E731
                                        call=index, handed=shown(call.arguments))
            kind = f"decoded NaN or infinity [{case.format}]"
            assert SURVEY.held(holds_no_nan(call.arguments), kind, infinite), infinite()
        if sent is UNKNOWN or not same:
            continue
        cast = verdict.casts[index] if case.casts and verdict.casts else None
        if not case.casts or valid:
            moved = lambda: describe("a call was handed other arguments than it sent", case, call=index,  # noqa: E731
                                     sent=shown(sent), handed=shown(call.arguments))
            kind = f"handed other arguments [{case.format}, casts={case.casts}, valid={valid}]"
            assert SURVEY.held(same_json(call.arguments, sent), kind, moved), moved()
        elif valid is False and cast is not None and cast.changed:
            hold_cast_promise(case, case.schemas[given.name], sent, call.arguments, cast.changed)


def hold_cast_promise(case: TurnCase, schema: object, sent: object, cast: object, changed: tuple) -> None:
    judge = Judge(schema)
    before, after = judge.error_paths(sent), judge.error_paths(cast)
    if before is None or after is None:
        return
    worse = sorted(after - before, key=repr) + sorted((p for p in after if at_or_below(p, changed)), key=repr)
    broke = lambda: describe("a cast added an error or left a changed value unfit", case, sent=shown(sent),  # noqa: E731
                             cast=shown(cast), paths=worse)
    assert SURVEY.held(not worse, f"cast made an invalid value [{case.format}, {case.table}]", broke), broke()


def hold_refusal_promises(case: TurnCase, expected: Expected, outcome: Outcome) -> None:
    verdict = outcome.verdict
    answered = [answer.call_id for answer in verdict.answers]
    if expected.ids is not None:
        once = len(answered) == len(expected.ids) and all(map(same_json, answered, expected.ids))
        missed = lambda: describe("the call ids were not each answered once, in order", case,  # noqa: E731
                                  ids=shown(expected.ids), answered=shown(answered))
        assert SURVEY.held(once, f"answered ids wrongly [{case.format}]", missed), missed()
    for answer in verdict.answers:
        hold_clean_answer(case, answer)
    hold_reply_promises(case, verdict, outcome.reply)
    for privacy in ("full", "metadata-only"):
        hold_steps_promises(case, verdict, privacy)


def hold_clean_answer(case: TurnCase, answer) -> None:
    first, *rest = answer.text.split("\n")
    shaped = first.startswith(("Refused: ", "Not run: ")) and all(line.startswith("- ") for line in rest)
    problems = [problem for line in answer.text.split("\n") for problem in clean_sentence(line)]
    for mismatch in answer.mismatches:
        problems += clean_sentence(mismatch.message, LIMITS[case.table])
    unclean = lambda: describe(f"an answer {'; '.join(problems) or 'is not shaped'}", case,  # noqa: E731
                               text=repr(answer.text))
    kind = f"unclean answer [{case.format}] {problem_kinds(problems)}"
    assert SURVEY.held(shaped and not problems, kind, unclean), unclean()


def hold_reply_promises(case: TurnCase, verdict, reply: object) -> None:
    """The reply (formats): one item per answer, naming its call id, and strict JSON."""
    if case.format == "direct":
        return
    items = reply["content"] if case.format == "anthropic" else reply
    key = REPLY_IDS.get(case.format)
    matches = len(items) == len(verdict.answers) and (key is None or all(
        same_json(item[key], answer.call_id) for item, answer in zip(items, verdict.answers)))
    wrong = lambda: describe("the reply does not answer each call id", case, reply=shown(reply))  # noqa: E731
    assert SURVEY.held(matches, f"reply does not match answers [{case.format}]", wrong), wrong()
    problem = strict_json_problem(reply)
    not_json = lambda: describe(f"the reply is not JSON: {problem}", case, reply=shown(reply))  # noqa: E731
    assert SURVEY.held(problem is None, f"reply not JSON [{case.format}]", not_json), not_json()


def hold_steps_promises(case: TurnCase, verdict, privacy: str) -> None:
    """A refused turn's run steps, written to a UTF-8 file as JSON lines, read back equal."""
    steps = SURVEY.call(lambda: turngate.refused_steps(verdict, 1, privacy), f"refused_steps [{case.format}]",
                        lambda: describe("refused_steps raised", case))
    if steps is RAISED:
        return
    buffer = io.BytesIO()
    out = io.TextIOWrapper(buffer, encoding="utf-8", newline="\n")
    written = SURVEY.call(lambda: (turngate.dump_steps(steps, out), out.flush()), f"dump_steps [{privacy}]",
                          lambda: describe("dump_steps to a UTF-8 file raised", case, steps=shown(steps)[:500]))
    if written is RAISED:
        return
    lines = buffer.getvalue().decode("utf-8").split("\n")[:-1]
    bad = [line for line in lines if not strict_reads(line)]
    not_json = lambda: describe("a step line is not strict JSON", case, lines=bad[:2])  # noqa: E731
    assert SURVEY.held(not bad, f"step line not strict JSON [{privacy}]", not_json), not_json()
    loaded, broken = turngate.load_steps(lines)
    differs = lambda: describe("the steps read back differ", case, written=shown(steps)[:600],  # noqa: E731
                               read=shown(loaded)[:600], broken=broken)
    same = not broken and tuple(loaded) == tuple(steps)
    assert SURVEY.held(same, f"steps read back differ [{privacy}]", differs), differs()


def hold_own_values_promise(case: TurnCase, first: Outcome) -> None:
    """What a host is handed is its own: changing every list and object it was handed (the
    calls' arguments, the reply) changes no later answer to the same turn, which must be
    answered as the first time."""
    before = canonical(first)
    handed = handed_values(first)
    for value in handed:
        if isinstance(value, dict):
            value[CHANGE] = [1]
        else:
            value.append(CHANGE)
    again = run(case, unshared(case.tools), unshared(case.turn))
    after = canonical(again)
    for value in handed:  # undone, so that a value wrongly shared does not spoil later cases
        if isinstance(value, dict):
            value.pop(CHANGE, None)
        elif value and value[-1] == CHANGE:
            value.pop()
    shared = lambda: describe("the same turn was answered otherwise after a host changed what it was handed",  # noqa: E731
                              case, first=before[:800], then=after[:800])
    assert SURVEY.held(before == after, f"answers depend on what a host changed [{case.format}]", shared), shared()


CHANGE = "__changed_by_host__"


def handed_values(outcome: Outcome) -> list:
    verdict = outcome.verdict
    values = [call.arguments for call in verdict.calls] if verdict.ok else []
    values += [cast.arguments for cast in verdict.casts]
    reply = outcome.reply
    values += reply if isinstance(reply, list) else [reply] if reply is not None else []
    return [value for value in values if isinstance(value, (dict, list))]
