"""Timing one operation the same way for every validator: repeated until a round takes about
a target time, the per-call mean of the best of a few rounds, with the garbage collector
off during a round as `timeit` does (it would otherwise charge one peer for another's
garbage)."""

from __future__ import annotations

import gc
import itertools
import math
import time
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Budget:
    """How long one round of repetitions should take, and how many rounds are run."""

    round_ns: int = 1_000_000
    rounds: int = 3
    max_repetitions: int = 1_000_000


FULL = Budget()
SMOKE = Budget(round_ns=50_000, rounds=1)


Clock = Callable[[], int]


def _round_ns(operation: Callable[[], object], repetitions: int, clock: Clock = time.perf_counter_ns) -> int:
    # The loop every validator is timed in: one call of a zero-argument callable per
    # repetition, so the loop's own cost is the same for all of them.
    repeat = itertools.repeat(None, repetitions)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = clock()
        for _ in repeat:
            operation()
        return clock() - start
    finally:
        if was_enabled:
            gc.enable()


def repetitions_for(operation: Callable[[], object], budget: Budget, clock: Clock = time.perf_counter_ns) -> int:
    """How many calls make a round of about `budget.round_ns` (after one warm-up call)."""
    operation()
    repetitions = 1
    while True:
        elapsed = _round_ns(operation, repetitions, clock)
        if elapsed * 10 >= budget.round_ns or repetitions >= budget.max_repetitions:
            break
        repetitions *= 10
    wanted = repetitions * budget.round_ns / max(elapsed, 1)
    return max(1, min(budget.max_repetitions, math.ceil(wanted)))


def per_call_ns(operation: Callable[[], object], budget: Budget = FULL, clock: Clock = time.perf_counter_ns) -> float:
    """Nanoseconds per call: the mean over the best of `budget.rounds` rounds, by `clock`
    (the wall clock; `time.process_time_ns` counts only this process's own work)."""
    repetitions = repetitions_for(operation, budget, clock)
    best = min(_round_ns(operation, repetitions, clock) for _ in range(budget.rounds))
    return best / repetitions


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (`share` in 0..100)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(share / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class Summary:
    """Per-call times of one validator over a set of calls."""

    count: int
    p50_ns: float
    p99_ns: float
    total_ns: float

    @property
    def calls_per_second(self) -> float:
        # Throughput over the corpus: every call of the set once, back to back.
        return self.count / (self.total_ns / 1e9) if self.total_ns else math.inf


def summarize(times_ns: list[float]) -> Summary:
    return Summary(len(times_ns), median(times_ns), percentile(times_ns, 99), sum(times_ns))
