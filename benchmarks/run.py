"""Time turngate against jsonschema, fastjsonschema and jsonschema-rs on real tool calls
from the Berkeley Function Calling Leaderboard, in one run, and report ratios.

    python benchmarks/run.py           # the full run: writes results.md and growth.png here
    python benchmarks/run.py --smoke   # CI: a few hundred calls; checks the validators agree

Exit codes: 0 done, 1 the validators disagree on the corpus (smoke), 2 no corpus.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import bfcl
from corpus import Corpus, build_corpus, sample
from growth import bounded_work, growth, plot
from measure import (disagreements, measure_checks, measure_compiles, measure_text_turns, measure_turn,
                     memory_per_schema)
from peers import Prepared, versions
from report import (bounded_lines, check_table, compile_table, growth_lines, machine_lines, memory_lines,
                    mutation_table, target_lines, targets, text_turn_lines)
from timing import FULL, SMOKE, Budget
from worst_case import measure_all as measure_worst_cases
from worst_case import worst_case_lines

HERE = Path(__file__).resolve().parent
SMOKE_VALID, SMOKE_INVALID = 100, 200


def progress(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def corpus_line(corpus: Corpus, checked: int, disagreeing: int) -> str:
    return (f"BFCL from bfcl-eval {bfcl.VERSION} ({', '.join(bfcl.CATEGORIES)}): "
            f"{len(corpus.ground_truth)} ground-truth calls, {len(corpus.valid)} accepted by "
            f"jsonschema (the valid set), {len(corpus.invalid)} mutated invalid calls "
            f"({sum(c.clearly_invalid for c in corpus.invalid)} clearly invalid), "
            f"{len(corpus.schemas)} distinct tool schemas; agreement checked on {checked} "
            f"calls: {disagreeing} disagreements")


def measure_all(corpus: Corpus, valid, invalid, schemas, budget: Budget, sizes: dict,
                worst_cases: bool = True) -> dict:
    progress(f"the memory {len(corpus.schemas)} compiled schemas keep")
    memory = memory_per_schema(corpus.schemas)
    prepared = Prepared()
    progress(f"timing {len(valid)} valid calls")
    valid_times = measure_checks(valid, True, prepared, budget)
    progress(f"timing {len(invalid)} invalid calls")
    invalid_times = measure_checks(invalid, False, prepared, budget)
    progress(f"timing the compiling of {len(schemas)} schemas")
    compile_times = measure_compiles(schemas, budget)
    turn = measure_turn(corpus.valid, budget)
    progress(f"timing {len(valid)} one-call turns sent as JSON text")
    text_turns = measure_text_turns(valid, budget)
    progress("bounded work and growth")
    bounded, grown = bounded_work(budget, sizes["flood"]), growth(budget, sizes["properties"], sizes["lengths"])
    if worst_cases:
        progress("the worst cases")
    return {"valid": valid_times, "invalid": invalid_times, "compile": compile_times,
            "turn": turn, "text_turn": text_turns, "bounded": bounded, "growth": grown,
            "memory": memory, "schemas": len(corpus.schemas),
            "worst": measure_worst_cases() if worst_cases else None}


def found_targets_of(results: dict) -> list:
    return targets(results["valid"], results["invalid"], results["compile"], results["turn"],
                   results["text_turn"], results["memory"], results["worst"])


def document(results: dict, machine: list[str], found, invalid_calls,
             budget: Budget = FULL) -> str:
    lines = ["# turngate benchmark results", "",
             "Produced by `python benchmarks/run.py`; every figure below is from one run.", "",
             *machine, "",
             f"Per-call times: each call repeated until a round takes about "
             f"{budget.round_ns / 1e6:g} ms, the mean of the best of {budget.rounds} rounds; p50 "
             "and p99 over the corpus. calls/s: the corpus run once, back to back. Invalid "
             "calls: every validator reads each of its error messages.", "",
             "## Check time per call", "",
             *check_table({"valid": results["valid"], "invalid": results["invalid"]}), "",
             "### Invalid calls by mutation (p50 µs)", "",
             *mutation_table(invalid_calls, results["invalid"]), "",
             "## Compile time per schema", "", *compile_table(results["compile"]), "",
             "## Memory per compiled schema", "", *memory_lines(results["memory"], results["schemas"]), "",
             "## A turn whose arguments are JSON text", "", *text_turn_lines(results["text_turn"]), "",
             "## Targets (ratios of medians over the corpus)", "", *target_lines(found), "",
             "## Bounded work", "", *bounded_lines(results["bounded"]), "",
             "## Growth", "", *growth_lines(results["growth"]), "",
             "![growth](growth.png)", "",
             *(["## Worst cases (`worst_case.py`)", "", *worst_case_lines(results["worst"]), ""]
               if results["worst"] else [])]
    return "\n".join(lines)


def smoke(corpus: Corpus) -> int:
    calls = sample(corpus.valid, SMOKE_VALID) + sample(corpus.invalid, SMOKE_INVALID)
    kinds = {call.mutation for call in calls}
    assert {"drop_required", "text_to_list", "integer_to_object", "unknown_argument",
            "outside_enum", None} <= kinds, f"the smoke sample lacks some mutations: {kinds}"
    found = disagreements(calls, Prepared())
    for line in found:
        print(f"DISAGREE {line}")
    sizes = {"flood": (11, 1_000), "properties": (10, 100, 1_000), "lengths": (10, 100, 1_000)}
    timed_invalid = sample(corpus.invalid, 20)
    results = measure_all(corpus, sample(corpus.valid, 20), timed_invalid,
                          corpus.schemas[:10], SMOKE, sizes, worst_cases=False)
    machine = machine_lines(versions(), corpus_line(corpus, len(calls), len(found)))
    found_targets = found_targets_of(results)
    print(document(results, machine, found_targets, timed_invalid, SMOKE))
    print(f"smoke: {len(calls)} calls, {len(found)} disagreements")
    return 1 if found else 0


def full(corpus: Corpus) -> int:
    progress("checking that the validators agree on the whole corpus")
    found = disagreements(corpus.valid + corpus.invalid, Prepared())
    sizes = {"flood": (11, 1_000, 1_000_000), "properties": (10, 100, 1_000, 10_000),
             "lengths": (10, 100, 1_000, 10_000, 100_000, 1_000_000)}
    results = measure_all(corpus, corpus.valid, corpus.invalid, corpus.schemas, FULL, sizes)
    plot(results["growth"], HERE / "growth.png")
    found_targets = found_targets_of(results)
    checked = len(corpus.valid) + len(corpus.invalid)
    machine = machine_lines(versions(), corpus_line(corpus, checked, len(found)))
    text = document(results, machine, found_targets, corpus.invalid)
    (HERE / "results.md").write_text(text, encoding="utf-8")
    print(text)
    for target in found_targets:
        shown = "-" if target.ratio is None else f"{target.ratio:.2f}x"
        print(f"{target.verdict}: {target.name}: {shown} (goal {target.goal})")
    for line in found[:20]:
        print(f"DISAGREE {line}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true",
                        help="a few hundred calls: check agreement, time a little, write nothing")
    options = parser.parse_args(argv)
    progress(f"building the corpus from bfcl-eval {bfcl.VERSION}")
    try:
        corpus = build_corpus()
    except bfcl.CorpusUnavailable as error:
        print(f"the BFCL corpus could not be obtained: {error}", file=sys.stderr)
        return 2
    return smoke(corpus) if options.smoke else full(corpus)


if __name__ == "__main__":
    sys.exit(main())
