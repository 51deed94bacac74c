"""An A/B of turngate's check paths against an earlier commit, in one run.

    python benchmarks/ab.py                  # against 8180c98: 5 runs each, interleaved
    python benchmarks/ab.py BASE --runs 7 --calls 2000 --wall
    python benchmarks/ab.py --full           # every call and schema of the corpus, each run

The base commit's `engine/` and `rules/` are exported (`git archive`) into a temporary
folder; this checkout's are used as they are. Each run is a process of its own that imports
one of the two as `turngate` and measures, on the same BFCL corpus (built once, by this
process): the valid check path and the invalid one (messages read), as `benchmarks/run.py`
times them (by the process's CPU time unless `--wall`: other processes loading the machine
do not inflate it), per call, p50 over the calls; the compiling of the schemas; and the memory
a compiled schema keeps (tracemalloc over all the distinct schemas, compiled once each
and kept, after one warm-up). Runs alternate A B B A A B ..., so a drift of the machine's
speed hits both alike. Printed: each run's figures and, per measure, the ratio of the
medians over the runs (B / A: below 1 means this checkout is faster or smaller).
"""

from __future__ import annotations

import argparse
import copy
import json
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_BASE = "8180c98"
MEASURES = ("valid_ns", "invalid_ns", "compile_ns", "memory_bytes")


# ── In a run's own process ────────────────────────────────────────────────────────────

def import_from(root: Path):
    """The package in `root/engine`, imported as `turngate` (a link in a folder of its own
    put first on the path: older commits named the package `engine`)."""
    folder = Path(tempfile.mkdtemp(prefix="turngate-ab-import-"))
    (folder / "turngate").symlink_to(root / "engine", target_is_directory=True)
    sys.path.insert(0, str(folder))
    import turngate
    assert Path(turngate.__file__).resolve().parent == (root / "engine").resolve(), turngate.__file__
    return turngate


def check_times(turngate, calls, read_messages: bool, per_call_ns) -> list[float]:
    compiled = {}
    times = []
    for call in calls:
        schema = compiled.get(call.schema_key)
        if schema is None:
            schema = compiled[call.schema_key] = turngate.compile_schema(copy.deepcopy(call.schema))
        run = _check_messages if read_messages else _check
        times.append(per_call_ns(partial(run, schema, copy.deepcopy(call.arguments))))
    return times


def _check(compiled, arguments):
    return compiled.check(arguments)


def _check_messages(compiled, arguments):
    verdict = compiled.check(arguments)
    for mismatch in verdict.mismatches:
        mismatch.message
    return verdict


def run_one(root: Path, corpus_file: Path, wall: bool = False) -> dict:
    turngate = import_from(root)
    sys.path.insert(0, str(HERE))
    from measure import memory_per_schema  # reads `turngate`, imported above from `root`
    from timing import Budget, median, per_call_ns
    with corpus_file.open("rb") as file:
        valid, invalid, distinct, timed_schemas = pickle.load(file)
    clock = time.perf_counter_ns if wall else time.process_time_ns
    timed = partial(per_call_ns, budget=Budget(round_ns=1_000_000, rounds=3), clock=clock)
    memory = memory_per_schema(distinct, turngate.compile_schema)  # first, before timing grows any cache
    compile_times = [timed(partial(turngate.compile_schema, copy.deepcopy(s))) for s in timed_schemas]
    return {"valid_ns": median(check_times(turngate, valid, False, timed)),
            "invalid_ns": median(check_times(turngate, invalid, True, timed)),
            "compile_ns": median(compile_times), "memory_bytes": memory}


# ── The driver ────────────────────────────────────────────────────────────────────────

def export(commit: str, into: Path) -> Path:
    """`engine/` and `rules/` of a commit, in a folder of their own."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "engine", "rules"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def write_corpus(path: Path, calls: int, schemas: int, full: bool) -> tuple[int, int, int]:
    sys.path.insert(0, str(HERE))
    from corpus import build_corpus, sample
    corpus = build_corpus()
    valid, invalid, distinct = corpus.valid, corpus.invalid, corpus.schemas
    if not full:
        valid, invalid = sample(valid, calls), sample(invalid, calls)
        timed_schemas = [distinct[int(i * len(distinct) / schemas)] for i in range(min(schemas, len(distinct)))]
    else:
        timed_schemas = distinct
    with path.open("wb") as file:
        pickle.dump((valid, invalid, distinct, timed_schemas), file)
    return len(valid), len(invalid), len(timed_schemas)


def measure(root: Path, corpus_file: Path, wall: bool) -> dict:
    done = subprocess.run([sys.executable, __file__, "--run", str(root), str(corpus_file), *(["--wall"] * wall)],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def interleaved(roots: dict[str, Path], corpus_file: Path, runs: int, wall: bool) -> dict[str, list[dict]]:
    """`runs` runs of each side, in the order A B B A A B ..."""
    found: dict[str, list[dict]] = {side: [] for side in roots}
    for index in range(runs):
        order = ("A", "B") if index % 2 == 0 else ("B", "A")
        for side in order:
            found[side].append(measure(roots[side], corpus_file, wall))
            print(f"run {index + 1} {side}: " + _figures(found[side][-1]), file=sys.stderr, flush=True)
    return found


def _figures(run: dict) -> str:
    return (f"valid {run['valid_ns']:.0f} ns, invalid {run['invalid_ns']:.0f} ns, "
            f"compile {run['compile_ns'] / 1000:.2f} µs, memory {run['memory_bytes'] / 1024:.2f} KB")


def ratios(found: dict[str, list[dict]]) -> dict[str, tuple[float, float, float]]:
    """Per measure: the median of A's runs, of B's, and B / A."""
    result = {}
    for name in MEASURES:
        a = statistics.median(run[name] for run in found["A"])
        b = statistics.median(run[name] for run in found["B"])
        result[name] = (a, b, b / a)
    return result


def report(base: str, head: str, sizes: tuple[int, int, int], found: dict, runs: int, wall: bool) -> str:
    clock = "wall clock" if wall else "CPU time"
    lines = [f"A = {base}, B = {head}; {runs} runs each, interleaved; {sizes[0]} valid calls, "
             f"{sizes[1]} invalid calls, {sizes[2]} schemas per run; {clock}", "",
             "| measure | A (median of runs) | B (median of runs) | B / A |", "|---|---:|---:|---:|"]
    for name, (a, b, ratio) in ratios(found).items():
        unit, scale = ("KB", 1024) if name == "memory_bytes" else ("µs", 1000)
        lines.append(f"| {name.removesuffix('_ns').removesuffix('_bytes')} | {a / scale:.3f} {unit} "
                     f"| {b / scale:.3f} {unit} | {ratio:.3f} |")
    return "\n".join(lines)


def git_name(commit: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", commit], check=True,
                          capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", nargs="?", default=DEFAULT_BASE, help="the commit to compare with")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--calls", type=int, default=1000, help="valid and invalid calls sampled per run")
    parser.add_argument("--schemas", type=int, default=600, help="schemas whose compiling is timed")
    parser.add_argument("--full", action="store_true", help="the whole corpus timed (slow)")
    parser.add_argument("--wall", action="store_true",
                        help="time by the wall clock (default: the process's CPU time, which other processes "
                             "loading the machine do not inflate)")
    parser.add_argument("--run", nargs=2, metavar=("ROOT", "CORPUS"), help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.run:
        print(json.dumps(run_one(Path(options.run[0]), Path(options.run[1]), options.wall)))
        return 0
    with tempfile.TemporaryDirectory(prefix="turngate-ab-") as temporary:
        folder = Path(temporary)
        (folder / "base").mkdir()
        roots = {"A": export(options.base, folder / "base"), "B": ROOT}
        sizes = write_corpus(folder / "corpus.pickle", options.calls, options.schemas, options.full)
        found = interleaved(roots, folder / "corpus.pickle", options.runs, options.wall)
    head = git_name("HEAD") + ("+changes" if _dirty() else "")
    print(report(git_name(options.base), head, sizes, found, options.runs, options.wall))
    return 0


def _dirty() -> bool:
    return bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "engine", "rules"],
                               capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    sys.exit(main())
