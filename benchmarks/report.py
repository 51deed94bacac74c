"""The results as markdown: the machine, the tables, and PASS/MISS per target."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from growth import Series, is_linear
from timing import percentile, summarize

TURNGATE = "turngate"
TURNGATE_COMPILE = "turngate compile_schema"


@dataclass(frozen=True)
class Target:
    """A goal stated as a ratio of medians over the corpus, measured in one run."""

    name: str
    ratio: float | None
    goal: str
    passed: bool | None  # None: not measured

    @property
    def verdict(self) -> str:
        return "NOT MEASURED" if self.passed is None else ("PASS" if self.passed else "MISS")


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def turngate_source() -> str:
    """Which engine was measured: its folder, and its commit when it is a git checkout
    (with a note when engine/ or rules/ differ from that commit)."""
    import turngate
    root = Path(turngate.__file__).resolve().parent.parent

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD")
    if not commit:
        return f"{root} (not a git checkout)"
    dirty = git("status", "--porcelain", "--", "engine", "rules")
    return f"{root} at git {commit}" + (" with uncommitted changes to engine/ or rules/" if dirty else "")


def machine_lines(versions: dict[str, str], corpus_line: str) -> list[str]:
    packages = ", ".join(f"{name} {version}" for name, version in versions.items())
    return [f"- CPU: {cpu_model()}, {os.cpu_count()} cores",
            f"- turngate measured: {turngate_source()}",
            f"- Python {sys.version.split()[0]} ({platform.python_implementation()}), "
            f"{platform.system()} {platform.release()}",
            f"- Packages: {packages}",
            f"- Corpus: {corpus_line}"]


def us(ns: float) -> str:
    return f"{ns / 1000:.2f}"


def rate(per_second: float) -> str:
    return f"{per_second:,.0f}"


def summary_rows(times: dict[str, list[float]], base_name: str, first_cells: tuple[str, ...] = ()) -> list[str]:
    """One row per validator: n, p50, p99, rate, and p50 as a multiple of `base_name`'s."""
    base = summarize(times[base_name]).p50_ns
    rows = []
    for name, values in times.items():
        summary = summarize(values)
        cells = (*first_cells, name, str(summary.count), us(summary.p50_ns), us(summary.p99_ns),
                 rate(summary.calls_per_second), f"{summary.p50_ns / base:.2f}x")
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def check_table(times_by_set: dict[str, dict[str, list[float]]]) -> list[str]:
    lines = ["| calls | validator | n | p50 µs | p99 µs | calls/s | p50 vs turngate |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for calls, times in times_by_set.items():
        lines += summary_rows(times, TURNGATE, (calls,))
    return lines


def mutation_table(calls, times: dict[str, list[float]]) -> list[str]:
    """Invalid calls by the defect made: p50 µs per validator."""
    names = list(times)
    lines = ["| mutation | n | " + " | ".join(names) + " |",
             "|---|---:|" + "---:|" * len(names)]
    by_kind: dict[str, list[int]] = {}
    for index, call in enumerate(calls):
        by_kind.setdefault(call.mutation, []).append(index)
    for kind, indexes in by_kind.items():
        cells = [us(summarize([times[name][i] for i in indexes]).p50_ns) for name in names]
        lines.append(f"| {kind} | {len(indexes)} | " + " | ".join(cells) + " |")
    return lines


def compile_table(times: dict[str, list[float]]) -> list[str]:
    lines = ["| operation | schemas | p50 µs | p99 µs | per second | p50 vs turngate compile_schema |",
             "|---|---:|---:|---:|---:|---:|"]
    return lines + summary_rows(times, TURNGATE_COMPILE)


def _p50(times: dict[str, list[float]], name: str) -> float:
    return summarize(times[name]).p50_ns


#: The memory a compiled schema kept at 8180c98 (issue 20's figure; `ab.py` measures 10.0 KB
#: there, by `measure.memory_per_schema`): it must not grow.
MEMORY_CAP_BYTES = 8.9 * 1024


def memory_lines(memory_bytes: float, schemas: int) -> list[str]:
    return [f"A compiled schema keeps {memory_bytes / 1024:.2f} KB on average (tracemalloc over the {schemas:,} "
            f"distinct schemas, each compiled once and kept); at 8180c98: 8.9 KB (issue 20)."]


def targets(valid: dict, invalid: dict, compiles: dict, turn, text_turn: dict,
            memory_bytes: float | None = None, worst: list[dict] | None = None) -> list[Target]:
    """The issue's targets. A ratio above 1 means turngate is faster, except the two
    'within' targets, which are turngate's time over the other's."""
    tg_valid, tg_invalid = _p50(valid, TURNGATE), _p50(invalid, TURNGATE)
    ratios = [
        ("valid calls: jsonschema iter_errors / turngate", _p50(valid, "jsonschema iter_errors") / tg_valid, 10, ">= 10x"),
        ("valid calls: fastjsonschema / turngate", _p50(valid, "fastjsonschema") / tg_valid, 1, ">= 1x (no slower)"),
        ("invalid calls: jsonschema iter_errors / turngate", _p50(invalid, "jsonschema iter_errors") / tg_invalid, 8, ">= 8x"),
        ("compile: fastjsonschema compile / turngate compile_schema",
         _p50(compiles, "fastjsonschema compile") / _p50(compiles, TURNGATE_COMPILE), 10, ">= 10x"),
    ]
    found = [Target(name, ratio, goal, ratio >= floor) for name, ratio, floor, goal in ratios]
    within = tg_invalid / _p50(invalid, "jsonschema-rs iter_errors")
    found.insert(3, Target("invalid calls: turngate / jsonschema-rs iter_errors", within, "<= 2x (within 2x)", within <= 2))
    if isinstance(turn, str):
        found.append(Target(f"turn of five calls: check_turn / five checks ({turn})", None, "<= 1.5x", None))
    else:
        ratio = turn["turn_ns"] / turn["singles_ns"]
        found.append(Target("turn of five calls: check_turn / five checks", ratio, "<= 1.5x", ratio <= 1.5))
    text = _p50(text_turn, "check_turn") / _p50(text_turn, "json.loads")
    found.append(Target("a one-call turn sent as JSON text: check_turn / json.loads of its text", text,
                        "<= 2x", text <= 2))
    if memory_bytes is not None:
        found.append(Target("memory a compiled schema keeps: KB / 8.9 KB (8180c98)", memory_bytes / MEMORY_CAP_BYTES,
                            "<= 1x (no larger)", memory_bytes <= MEMORY_CAP_BYTES))
    if worst:
        slowest = max(row["compile_ms"] + row["check_ms"] for row in worst)
        found.append(Target("worst cases: slowest compile and check / 100 ms", slowest / 100,
                            "<= 1x (each family, each table)", all(row["met"] for row in worst)))
    return found


def text_turn_lines(text_turn: dict[str, list[float]]) -> list[str]:
    """The one-call turns sent as JSON text: check_turn (decoding included) and json.loads."""
    lines = ["| one-call turn, arguments as JSON text | n | p50 µs | p99 µs |", "|---|---:|---:|---:|"]
    for name, times in text_turn.items():
        lines.append(f"| {name} | {len(times)} | {us(_p50(text_turn, name))} | {us(percentile(times, 99))} |")
    return lines


def target_lines(found: list[Target]) -> list[str]:
    lines = ["| target | measured | goal | result |", "|---|---:|---|---|"]
    for target in found:
        measured = "-" if target.ratio is None else f"{target.ratio:.2f}x"
        lines.append(f"| {target.name} | {measured} | {target.goal} | {target.verdict} |")
    return lines


def bounded_lines(rows: list[dict]) -> list[str]:
    lines = ["| list elements, every one mismatching | turngate check µs | mismatches named | truncated | vs 11 elements |",
             "|---:|---:|---:|---|---:|"]
    base = rows[0]["ns"]
    for row in rows:
        lines.append(f"| {row['size']:,} | {us(row['ns'])} | {row['mismatches']} | "
                     f"{row['truncated']} | {row['ns'] / base:.2f}x |")
    return lines


def growth_lines(series_list: list[Series]) -> list[str]:
    lines = ["| series | size: µs per call | log-log slope (top 3 sizes) | linear |",
             "|---|---|---:|---|"]
    for series in series_list:
        points = ", ".join(f"{size:,}: {us(ns)}" for size, ns in zip(series.sizes, series.ns))
        slope = series.slope(max(0, len(series.sizes) - 3))
        lines.append(f"| {series.label} | {points} | {slope:.2f} | "
                     f"{'yes' if is_linear(series) else 'no'} |")
    return lines
