"""Bounded work and growth: what a flood of mismatches costs, and how check and compile time
grow with the size of the arguments and of the schema."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import turngate

from peers import turngate_check, turngate_check_messages
from timing import FULL, Budget, per_call_ns

LIST_OF_TEXT = {"type": "array", "items": {"type": "string"}}
FLOOD_SIZES = (11, 1_000, 1_000_000)
PROPERTY_COUNTS = (10, 100, 1_000, 10_000)
LIST_LENGTHS = (10, 100, 1_000, 10_000, 100_000, 1_000_000)
#: The property types cycled through, each with a valid value for it.
VALUE_BY_TYPE = {"string": "text", "integer": 7, "number": 2.5, "boolean": True}


def bounded_work(budget: Budget = FULL, sizes=FLOOD_SIZES) -> list[dict]:
    """A list of N one-element lists where text is declared: every element mismatches, and
    turngate should stop after the eleventh whatever N is."""
    compiled = turngate.compile_schema(LIST_OF_TEXT)
    rows = []
    for size in sizes:
        arguments = [[index] for index in range(size)]
        verdict = compiled.check(arguments)
        operation = partial(turngate_check_messages, compiled, arguments)
        rows.append({"size": size, "ns": per_call_ns(operation, budget),
                     "mismatches": len(verdict.mismatches), "truncated": verdict.truncated})
    return rows


def object_schema(count: int) -> tuple[dict, dict]:
    """A schema of `count` typed properties, every other one required, and valid arguments."""
    types = list(VALUE_BY_TYPE)
    properties = {f"p{i}": {"type": types[i % len(types)]} for i in range(count)}
    schema = {"type": "object", "properties": properties,
              "required": [f"p{i}" for i in range(0, count, 2)]}
    arguments = {name: VALUE_BY_TYPE[spec["type"]] for name, spec in properties.items()}
    return schema, arguments


@dataclass
class Series:
    label: str
    sizes: list[int]
    ns: list[float]

    def slope(self, first: int = 0) -> float:
        """The least-squares slope of log(time) over log(size) from point `first` on: 1 is
        linear growth, 0 constant."""
        xs = [math.log10(size) for size in self.sizes[first:]]
        ys = [math.log10(ns) for ns in self.ns[first:]]
        mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
        spread = sum((x - mean_x) ** 2 for x in xs)
        return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / spread


def growth(budget: Budget = FULL, counts=PROPERTY_COUNTS, lengths=LIST_LENGTHS) -> list[Series]:
    check = Series("check vs properties sent", [], [])
    compile_ = Series("compile vs properties declared", [], [])
    for count in counts:
        schema, arguments = object_schema(count)
        compiled = turngate.compile_schema(schema)
        assert compiled.check(arguments).ok
        check.sizes.append(count)
        check.ns.append(per_call_ns(partial(turngate_check, compiled, arguments), budget))
        compile_.sizes.append(count)
        compile_.ns.append(per_call_ns(partial(turngate.compile_schema, schema), budget))
    elements = Series("check vs list length", [], [])
    compiled = turngate.compile_schema(LIST_OF_TEXT)
    for length in lengths:
        arguments = [str(index) for index in range(length)]
        assert compiled.check(arguments).ok
        elements.sizes.append(length)
        elements.ns.append(per_call_ns(partial(turngate_check, compiled, arguments), budget))
    return [check, compile_, elements]


def is_linear(series: Series) -> bool:
    # Small sizes are dominated by the fixed cost of a call, so judge the top three sizes.
    return 0.85 <= series.slope(max(0, len(series.sizes) - 3)) <= 1.15


def plot(series_list: list[Series], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(7.5, 5))
    for series in series_list:
        label = f"{series.label} (slope {series.slope(len(series.sizes) - 3):.2f})"
        axes.loglog(series.sizes, [ns / 1000 for ns in series.ns], marker="o", label=label)
    top = max(max(s.sizes) for s in series_list)
    axes.loglog([10, top], [1, top / 10], linestyle=":", color="grey", label="linear (slope 1)")
    axes.set_xlabel("size (properties or list elements)")
    axes.set_ylabel("time per call (µs)")
    axes.set_title("turngate: growth with the size of arguments and schema")
    axes.grid(True, which="both", linewidth=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    pyplot.close(figure)
