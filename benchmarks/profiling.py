"""Where turngate's check time goes on the corpus: cProfile over the same loop the benchmark
times, for the valid calls and for the invalid calls.

    python benchmarks/profiling.py [--repeat N] [--top N]
"""

from __future__ import annotations

import argparse
import cProfile
import copy
import io
import pstats
import sys

import turngate

from corpus import Call, build_corpus
from peers import turngate_check, turngate_check_messages


def prepared_calls(calls: list[Call]) -> list[tuple[object, object]]:
    compiled: dict[str, object] = {}
    pairs = []
    for call in calls:
        if call.schema_key not in compiled:
            compiled[call.schema_key] = turngate.compile_schema(call.schema)
        pairs.append((compiled[call.schema_key], copy.deepcopy(call.arguments)))
    return pairs


def profile_loop(run, pairs, repeat: int, top: int) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(repeat):
        for compiled, arguments in pairs:
            run(compiled, arguments)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--top", type=int, default=15)
    options = parser.parse_args(argv)
    corpus = build_corpus()
    for label, run, calls in (("valid", turngate_check, corpus.valid),
                              ("invalid", turngate_check_messages, corpus.invalid)):
        print(f"## turngate, {label} calls ({len(calls)} calls x {options.repeat})")
        print(profile_loop(run, prepared_calls(calls), options.repeat, options.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
