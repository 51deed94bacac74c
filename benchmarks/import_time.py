"""What importing turngate costs a host's process: `python -c "import turngate"` against a
bare interpreter, and the first check (the core, a table and its grammar loaded on first use),
each timed from the exec to the exit, the runs of each kind interleaved.

    python3 benchmarks/import_time.py            # prints the table
    python3 benchmarks/import_time.py --write    # and writes benchmarks/import_time.md

Target (issue 22): `import turngate` at most 100 ms on this machine idle, with the
environment's own interpreter.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = {
    "bare interpreter: `python -c pass`": "pass",
    "`import turngate`": "import turngate",
    "`import turngate` and a first check (core, table and grammar loaded)":
        "import turngate; turngate.compile_schema({'type': 'object'}).check({})",
}
TARGET_MS = 100.0


def timed(program: str) -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", program], check=True)
    return (time.perf_counter() - began) * 1000


def measure(runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in PROGRAMS}
    for name, program in PROGRAMS.items():
        timed(program)  # warm the file cache
    for _ in range(runs):
        for name, program in PROGRAMS.items():
            times[name].append(timed(program))
    return times


def report(times: dict[str, list[float]]) -> str:
    load = os.getloadavg()[0]
    lines = [
        "# What importing turngate costs",
        "",
        "Produced by `python3 benchmarks/import_time.py --write`: each program run as a process of",
        "its own, from the exec to the exit, the kinds interleaved.",
        "",
        f"- Python {sys.version.split()[0]} ({sys.executable}); load average when the run began: {load:.1f}",
        "",
        "| program | runs | best ms | median ms | target |",
        "|---|---:|---:|---:|---|",
    ]
    for name, values in times.items():
        verdict = ""
        if name == "`import turngate`":
            verdict = f"≤ {TARGET_MS:.0f} ms: {'PASS' if min(values) <= TARGET_MS else 'MISS'}"
        lines.append(f"| {name} | {len(values)} | {min(values):.0f} | {statistics.median(values):.0f} | {verdict} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    text = report(measure(args.runs))
    print(text, end="")
    if args.write:
        (HERE / "import_time.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
