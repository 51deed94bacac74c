"""How the generated tests hold a promise: by an assertion (every run, CI included), or, in a
long run asked to survey (TURNGATE_SURVEY=FILE), by recording each broken promise in FILE
and going on, so that one run finds every kind of failure rather than the first.

    TURNGATE_SURVEY=.cache/survey.jsonl python3 -m pytest tests/test_differential.py \
        --hypothesis-profile=differential-long --no-cov -n 0 -p no:cacheprovider

Each line of FILE is one broken promise: what broke, its kind (the promise, and for a raise
the exception and the engine's line that raised it), and the case to replay it. A survey
passes whatever it finds: FILE is its result (tests/survey_report.py sums it up). A run
that is not a survey fails at the first broken promise, which hypothesis then shrinks.
"""

from __future__ import annotations

import json
import os
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from differential_json import shown

T = TypeVar("T")

#: The value a step that raised gives, in a survey: later steps that need it are skipped.
RAISED = object()
#: Cases kept per kind of failure (the rest are counted): the shortest replay best.
KEPT_PER_KIND = 20


class Survey:
    def __init__(self, path: str | None):
        self.path = Path(path) if path else None
        self.counts: Counter = Counter()

    @classmethod
    def from_environment(cls) -> Survey:
        return cls(os.environ.get("TURNGATE_SURVEY"))

    def held(self, held: object, kind: str, details: Callable[[], str]) -> bool:
        """Whether the test goes on: the promise `kind` is held when `held` is true, and in
        a survey a broken one is recorded (`details()` says what broke) and passes. Used as
        `assert SURVEY.held(ok, kind, details), details()`, so that outside a survey each
        promise fails on a line of its own, which hypothesis reports and shrinks apart."""
        if held:
            return True
        if self.path is None:
            return False
        self.record(kind, details())
        return True

    def call(self, step: Callable[[], T], kind: str, details: Callable[[], str]) -> T:
        """`step()`, which must not raise: in a survey, a raise is recorded (by the engine's
        line that raised it) and RAISED is returned."""
        if self.path is None:
            return step()
        try:
            return step()
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # noqa: BLE001 - every raise is a finding here
            where = raised_at(error)
            self.record(f"{kind} raised {type(error).__name__} at {where}",
                        f"{details()}\n  raised:   {type(error).__name__}: {shown(str(error))[:300]}")
            return RAISED  # type: ignore[return-value]

    def record(self, kind: str, details: str) -> None:
        self.counts[kind] += 1
        if self.counts[kind] > KEPT_PER_KIND:
            return
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"kind": kind, "details": details}, ensure_ascii=True) + "\n")

    def flush_counts(self, name: str) -> None:
        """The count of every kind found since the last flush (beyond the cases kept)."""
        if self.path is None or not self.counts:
            return
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"counts": name, "kinds": dict(self.counts)}, ensure_ascii=True) + "\n")
        self.counts.clear()


def raised_at(error: BaseException) -> str:
    """The last line of turngate's own code in the traceback (else the last line), as
    file:line: what tells one kind of raise from another."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [frame for frame in frames if "/engine/" in frame.filename or "/turngate/" in frame.filename]
    frame = (ours or frames or [None])[-1]
    if frame is None:
        return "?"
    return f"{Path(frame.filename).parent.name}/{Path(frame.filename).name}:{frame.lineno}"
