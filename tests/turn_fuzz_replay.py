"""Answers pickled turn-fuzz cases in a fresh process, in reverse order (for
test_turn_fuzz.py's determinism test): python3 turn_fuzz_replay.py CASES OUT."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from differential_json import unshared  # noqa: E402
from turn_fuzz_oracle import canonical, run  # noqa: E402


def main(cases_file: str, answers_file: str) -> None:
    cases = pickle.loads(Path(cases_file).read_bytes())
    answers = [canonical(run(case, unshared(case.tools), unshared(case.turn))) for case in reversed(cases)]
    Path(answers_file).write_bytes(pickle.dumps(answers))


if __name__ == "__main__":
    main(*sys.argv[1:3])
