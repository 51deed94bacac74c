"""What a run's steps say: the timeline of a run, and the counts a host needs to see whether
the check saves rounds. Both read records of either privacy level."""

from __future__ import annotations

from typing import Any, Iterable

from ..turn.steps import RunStep
from ..values.decoding import integer_text
from ..values.quoting import escaped

HEADINGS = {"calls": "calls", "ran": "ran", "failed": "failed", "failure_rate": "failure rate",
            "refused_arguments": "refused (arguments)", "not_run_turn": "not run (turn)",
            "declined": "declined"}


#: How a step of a tool that was not offered is shown where its name was not kept.
NOT_OFFERED = "(not offered)"


def tool_shown(tool: str | None) -> str:
    """A tool's name for a table cell: the model's text, so with anything that would break or
    colour a terminal line escaped."""
    return NOT_OFFERED if tool is None else escaped(tool)


def aligned_rows(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]


def in_order(steps: Iterable[RunStep]) -> list[RunStep]:
    """Steps in the order of the run: by turn, then by place in the turn."""
    return sorted(steps, key=lambda s: (s.turn, s.index))


def timeline(steps: Iterable[RunStep]) -> list[str]:
    """One line per step, in the order of the run: turn, call, tool, status, refusal, codes."""
    rows = [["turn", "call", "tool", "status", "refusal", "codes"]]
    for step in in_order(steps):
        rows.append([integer_text(step.turn), integer_text(step.index), tool_shown(step.tool), step.status,
                     step.tool_refusal or "-", escaped(", ".join(step.codes)) or "-"])
    return aligned_rows(rows)


def timeline_data(steps: Iterable[RunStep]) -> list[dict[str, Any]]:
    """The timeline as data (for --json): one object per step, in the order of the run."""
    return [{"turn": s.turn, "index": s.index, "tool": s.tool, "status": s.status,
             "tool_refusal": s.tool_refusal, "codes": list(s.codes)} for s in in_order(steps)]


def _counts(steps: list[RunStep]) -> dict[str, object]:
    calls = len(steps)
    failed = sum(s.status == "failed" for s in steps)
    return {
        "calls": calls,
        "ran": sum(s.status in ("ok", "failed") for s in steps),
        "failed": failed,
        "failure_rate": round(failed / calls, 4) if calls else 0.0,
        "refused_arguments": sum(s.tool_refusal == "arguments" for s in steps),
        "not_run_turn": sum(s.tool_refusal == "turn" for s in steps),
        "declined": sum(s.status == "declined" for s in steps),
    }


def stats_by_tool(steps: Iterable[RunStep]) -> dict[str, Any]:
    """Counts per tool (sorted by name) and for all: failure rate is failed calls over all."""
    steps = list(steps)
    tools = sorted({s.tool for s in steps}, key=lambda tool: (tool is None, tool or ""))
    return {"by": "tool",
            "rows": [{"tool": tool, **_counts([s for s in steps if s.tool == tool])} for tool in tools],
            "total": _counts(steps)}


def stats_by_code(steps: Iterable[RunStep]) -> dict[str, Any]:
    """Per mismatch code: how often it was reported, and in how many calls."""
    steps = list(steps)
    codes = sorted({code for s in steps for code in s.codes})
    rows = [{"code": code, "mismatches": sum(s.codes.count(code) for s in steps),
             "calls": sum(code in s.codes for s in steps)} for code in codes]
    return {"by": "code", "rows": rows,
            "total": {"mismatches": sum(len(s.codes) for s in steps),
                      "calls": sum(bool(s.codes) for s in steps)}}


def stats_table(stats: dict[str, Any]) -> list[str]:
    key = stats["by"]
    columns = list(stats["total"])
    rows = [[key, *(HEADINGS.get(c, c) for c in columns)]]
    for row in [*stats["rows"], {key: "all", **stats["total"]}]:
        name = tool_shown(row[key]) if key == "tool" else escaped(str(row[key]))
        rows.append([name, *(_cell(c, row[c]) for c in columns)])
    return aligned_rows(rows)


def _cell(column: str, value: object) -> str:
    return f"{value * 100:.1f} %" if column == "failure_rate" else str(value)  # type: ignore[operator]
