"""The turn fuzzer, across processes: a fresh process answers the same turns alike in any
order (answers depend on the turn alone, never on what the process checked before), and
`turngate check-turn` on a sample of fuzzed turns exits 0, 1 or 2 as the library decides,
with no traceback, `--json` strict JSON, standard error one clean sentence per problem and
no line of standard output forged. The turns and the oracle are test_turn_fuzz.py's.

Short by default (the CI profiles "turn-fuzz-replay-ci" and "turn-fuzz-command-ci"); the
long run is `--hypothesis-profile=turn-fuzz-long`, as for tests/test_turn_fuzz.py.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import turngate
from differential_json import dumps, json_clean, unshared
from support import RAW_CONTROLS
from turn_fuzz_oracle import canonical, run
from turn_fuzz_shapes import TurnCase, turn_cases
from turn_fuzz_support import SURVEY, TABLES, clean_sentence, describe, fuzz_settings, problem_kinds, strict_reads

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module", autouse=True)
def survey_counts():
    yield
    SURVEY.flush_counts("turn fuzz processes")


REPLAY = Path(__file__).resolve().parent / "turn_fuzz_replay.py"


@settings(parent=fuzz_settings("turn-fuzz-replay-ci"))
@given(batch=st.lists(turn_cases(TABLES), min_size=2, max_size=12))
def test_turns_are_answered_alike_in_a_fresh_process_in_any_order(batch, tmp_path_factory):
    """Answers depend on the turn alone: a fresh process that answers the same turns in the
    reverse order (so each turn is answered after other ones than here) answers alike."""
    here = [canonical(run(case, unshared(case.tools), unshared(case.turn))) for case in batch]
    folder = tmp_path_factory.mktemp("replay")
    (folder / "cases.pickle").write_bytes(pickle.dumps(batch))
    command = [sys.executable, str(REPLAY), str(folder / "cases.pickle"), str(folder / "answers.pickle")]
    done = subprocess.run(command, capture_output=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-2000:]
    there = list(reversed(pickle.loads((folder / "answers.pickle").read_bytes())))
    for case, mine, fresh in zip(batch, here, there):
        differs = lambda: describe("answered otherwise in a fresh process, after other turns", case,  # noqa: E731
                                   here=mine[:1000], fresh=fresh[:1000])
        assert SURVEY.held(mine == fresh, f"answers depend on the process's past [{case.format}]", differs), differs()


TEXT_LINE_STARTS = ("OK: ", "Refused: ", "[", "  ")


@settings(parent=fuzz_settings("turn-fuzz-command-ci"))
@given(case=turn_cases(TABLES, formats=("openai", "responses", "anthropic", "mcp")), as_json=st.booleans(),
       named=st.booleans())
def test_the_check_turn_command_on_any_turn(case, as_json, named, tmp_path_factory):
    """Exit 0, 1 or 2 as the library decides, no traceback, `--json` strict JSON, every
    line of standard error one clean sentence, no line of standard output forged."""
    assume(json_clean(case.file()))
    path = tmp_path_factory.mktemp("turn") / "turn.json"
    path.write_text(dumps(case.file(), ensure_ascii=True), encoding="utf-8")
    command = [sys.executable, "-m", "turngate.cli", "check-turn", str(path), "--table", case.table,
               "--format", case.format if named else "auto", *(["--json"] if as_json else [])]
    done = subprocess.run(command, capture_output=True, timeout=120, cwd=path.parent)
    out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    shown_run = dict(exit=done.returncode, stdout=out[:1500], stderr=err[:1500])
    crashed = lambda: describe("check-turn crashed", case, **shown_run)  # noqa: E731
    ended = done.returncode in (0, 1, 2) and "Traceback" not in err
    if not SURVEY.held(ended, f"check-turn crashed [{case.format}]", crashed):
        raise AssertionError(crashed())
    if "Traceback" in err:
        return  # recorded by a survey: the output of a crash is not judged apart
    expected = library_exit(case, named)
    disagrees = lambda: describe(f"check-turn exits otherwise than the library decides ({expected})", case,  # noqa: E731
                                 **shown_run)
    assert SURVEY.held(expected is None or expected == done.returncode, f"check-turn disagrees [{case.format}]",
                       disagrees), disagrees()
    hold_command_output(case, done.returncode, out, err, as_json)


def library_exit(case: TurnCase, named: bool) -> int | None:
    """0, 1 or 2 as `read_turn` and `check_turn` decide the turn file (None: they raise what
    the test of the library reports)."""
    try:
        turn = turngate.formats.read_turn(unshared(case.file()), case.format if named else "auto")
    except turngate.formats.FormatError:
        return 2
    except Exception:  # noqa: BLE001 - the library's own test holds this
        return None
    try:
        return 0 if turngate.check_turn(turn.calls, turn.tools, case.table).ok else 1
    except Exception:  # noqa: BLE001
        return None


def hold_command_output(case: TurnCase, status: int, out: str, err: str, as_json: bool) -> None:
    problems = [f"stderr line {line!r}" for line in err.splitlines()
                if not line.startswith("turngate: ") or clean_sentence(line)]
    if status == 2 and not err.strip():
        problems.append("exit 2 with nothing on stderr")
    # A decided turn writes nothing on stderr but notes on what its schemas leave unjudged.
    if status in (0, 1) and any(not line.startswith("turngate: note: ") for line in err.splitlines()):
        problems.append("stderr written for a turn that was decided")
    lines = out.split("\n")[:-1]
    if as_json and status in (0, 1):
        if len(lines) != 1 or not strict_reads(lines[0]):
            problems.append("--json output is not one line of strict JSON")
    elif status in (0, 1):
        problems += [f"stdout line {line[:200]!r}" for line in lines if not line.startswith(TEXT_LINE_STARTS)
                     or any(unicodedata.category(char) in RAW_CONTROLS for char in line)]
    broken = lambda: describe("check-turn's output: " + "; ".join(problems)[:1500], case, stdout=out[:800])  # noqa: E731
    kind = f"check-turn output [{case.format}] {problem_kinds(problems)}"
    assert SURVEY.held(not problems, kind, broken), broken()
