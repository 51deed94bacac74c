"""The worst cases: the slowest input known of each family of adversarial input, at about
100 KB, compiled and checked (or cast, or answered as a turn) under every shipped table,
each with a target of at most 100 ms.

    python benchmarks/worst_case.py            # prints the table (run.py puts it in results.md)
    python benchmarks/worst_case.py FAMILY...  # only these

Each input is made as JSON text would make it (every object its own), from the families of
issue 20 (references to the root, long pointers, unions checked and cast) and those of the
rounds before (`tests/test_promises.py`, `tests/test_hostile.py`, `SECURITY.md`). Times: the
CPU time of the process (`time.process_time`) of the fastest of five runs, each compiling
afresh and then checking once, the garbage collector on (compiling makes garbage as a host's process would collect it). CPU
time, not the wall clock: on a machine other processes load, the wall clock counts their
turns too; the work itself runs in one thread, so on an idle machine the two agree. The
tests count the work of each family (`tests/test_bounded.py`); only this benchmark times
them.
"""

from __future__ import annotations

import json
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

import turngate

TARGET_MS = 100.0
TABLES = ("adr246", "strict", "extended")
REPEATS = 5
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class Family:
    """One family's slowest input: a schema and what is sent against it, and how it is
    sent: `check` (arguments), `cast` (compiled with casts), or `turn` (the calls of a turn,
    answered by check_turn, the schema that of the one tool `t`)."""

    name: str
    what: str
    schema: object
    sent: object
    how: str = "check"

    @property
    def size_kb(self) -> float:
        return text_kb(self.schema)

    @property
    def sent_kb(self) -> float:
        return text_kb(self.sent)


def as_json(value: object) -> object:
    """The value as JSON text decodes it: no object shared."""
    with deep_json():
        return json.loads(json.dumps(value))


def text_kb(value: object) -> float:
    with deep_json():
        return len(json.dumps(value)) / 1000


@contextmanager
def deep_json() -> Iterator[None]:
    """The deepest inputs are 5,000 objects deep: past what the interpreter's default
    recursion limit lets json write and read."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def nested(key: str, levels: int, leaf: object) -> object:
    value = leaf
    for _ in range(levels):
        value = {key: value}
    return value


def _refs() -> list[Family]:
    chain: object = {"type": "string"}
    for _ in range(1700):
        chain = {"not": chain}
    links = 2600
    defs = {f"{i}": {"$ref": f"#/$defs/{i + 1}"} for i in range(links)}
    defs[f"{links}"] = {"type": "string"}
    anchored: object = {"type": "string"}
    for index in range(1400):
        anchored = {"$anchor": f"a{index}", "type": "object", "properties": {"x": anchored}}
    ids = 1100
    return [
        Family("refs to the root", "4,000 properties, each {\"$ref\": \"#\"}; a value 64 deep through them",
               {"type": "object", "properties": {f"p{i}": {"$ref": "#"} for i in range(4000)}},
               nested("p1", 64, {"p2": []})),
        Family("long pointers", "12 refs through a `not` chain 1,700 deep (`#/$defs/a/not/not/...`), a root `$id`",
               {"$id": "http://x.test/root", "$defs": {"a": chain},
                "properties": {f"p{i}": {"$ref": "#/$defs/a/" + "/".join(["not"] * (1700 - i))} for i in range(12)}},
               {"p0": []}),
        Family("ref chain", f"a chain of {links:,} refs, entered at every third link",
               {"$defs": defs, "properties": {f"p{i}": {"$ref": f"#/$defs/{i}"} for i in range(0, links, 3)}},
               {f"p{i}": [] for i in range(0, links, 3)}),
        Family("anchors", "1,400 nested `$anchor`s, each the target of a ref",
               {"$schema": DRAFT_2020_12, "$defs": {"c": anchored},
                "properties": {f"p{i}": {"$ref": f"#a{i}"} for i in range(1400)}},
               {f"p{i}": {"x": []} for i in range(0, 1400, 2)}),
        Family("base URIs", f"{ids:,} `$defs`, each with its own `$id`, each referring to the next",
               {"$defs": {f"d{i}": {"$id": f"http://x.test/d{i}", "type": "object",
                                    "properties": {"n": {"$ref": f"http://x.test/d{(i + 1) % ids}"}}} for i in range(ids)},
                "properties": {"r": {"$ref": "http://x.test/d0"}}},
               {"r": nested("n", 64, [])}),
    ]


def _unions() -> list[Family]:
    kinds = ["integer", "string", "boolean", "null", "array", "object", "number"]
    pets = [{"type": "object", "properties": {"kind": {"const": f"k{i}"}, "v": {"type": "integer"}}}
            for i in range(1100)]
    return [
        Family("union, checked", "`items: anyOf` of 4,700 plain branches; 20,000 numbers sent",
               {"type": "array", "items": {"anyOf": [{"type": kinds[i % 7]} for i in range(4700)]}},
               list(range(20000))),
        Family("union, one branch per kind", "`items: anyOf` of 4,700 integer branches and one object; 20,000 sent",
               {"type": "array", "items": {"anyOf": [{"type": "integer"}] * 4700 + [
                   {"type": "object", "properties": {"a": {"type": "integer"}}}]}},
               [{"a": i} for i in range(8000)]),
        Family("union, cast", "`oneOf` of 2,700 distinct integer branches (an `enum` each); 2,000 texts cast",
               {"type": "array", "items": {"oneOf": [{"type": "integer", "enum": [i]} for i in range(2700)]}},
               [str(i) for i in range(2000)], "cast"),
        Family("discriminated union", "`oneOf` of 1,100 object branches told apart by a `const`; 2,000 objects",
               {"$schema": DRAFT_2020_12, "type": "array", "items": {"oneOf": pets}},
               [{"kind": f"k{i % 1100}", "v": "x"} for i in range(2000)]),
    ]


def _wide() -> list[Family]:
    names = [f"{chr(97 + i % 26)}{i:059d}"[:60] for i in range(1300)]
    deep: object = {"type": "integer"}
    for _ in range(2500):
        deep = {"type": "object", "properties": {"a": deep}}
    casts: object = {"type": "integer"}
    for _ in range(60):
        casts = {"type": "object", "properties": {**{f"q{j}": {"type": "integer"} for j in range(50)}, "a": casts}}
    deep_lists: object = {"type": "integer"}
    lists: object = "5"
    for _ in range(60):
        deep_lists = {"type": "object", "properties": {"big": {"type": "array", "items": {"type": "integer"}},
                                                       "a": deep_lists}}
        lists = {"big": list(range(380)), "a": lists}
    return [
        Family("many properties", "3,000 properties, half required; every one sent, each of the wrong kind",
               {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(3000)},
                "required": [f"p{i}" for i in range(0, 3000, 2)]},
               {f"p{i}": "x" for i in range(3000)}),
        Family("long enum", "an enum of 9,000 texts; a value outside it",
               {"type": "object", "properties": {"e": {"enum": [f"value{i}" for i in range(9000)]}}}, {"e": "valu"}),
        Family("deep nesting", "objects nested 2,500 deep; a value as deep", deep, nested("a", 2500, "x")),
        Family("did you mean", "1,300 allowed names of 60 characters, closed; 30 near misses sent",
               {"type": "object", "properties": {name: {"type": "string"} for name in names},
                "additionalProperties": False},
               {f"{chr(97 + i % 26)}{i + 7:059d}x"[:60]: 1 for i in range(30)}),
        Family("large list", "a list of 25,000 elements, each of the wrong kind",
               {"type": "object", "properties": {"l": {"type": "array", "items": {"type": "integer"}}}},
               {"l": [[]] * 25000}),
        Family("deep and wide, cast", "60 levels of 50 properties compiled for casts; a cast 60 deep",
               casts, nested("a", 60, "5"), "cast"),
        Family("deep cast", "a cast 60 levels down, each level beside a list of 380 numbers",
               deep_lists, lists, "cast"),
    ]


def _turns() -> list[Family]:
    return [
        Family("refused turn", "a turn of 2,000 calls, repeated ids and missing arguments",
               {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
               [{"id": f"c{i % 1000}", "name": "t", "arguments": {"y": i}} for i in range(2000)], "turn"),
        Family("JSON text too deep", "arguments as JSON text nested 50,000 deep",
               {"type": "object"}, [{"id": "a", "name": "t", "arguments": "[" * 50000 + "]" * 50000}], "turn"),
    ]


def families() -> list[Family]:
    made = [*_refs(), *_unions(), *_wide(), *_turns()]
    return [Family(f.name, f.what, as_json(f.schema), as_json(f.sent), f.how) for f in made]


def measure(family: Family, table_name: str) -> dict:
    """Compile and check (or cast, or answer the turn) times of one family under one table:
    each run compiles afresh and checks once, so nothing made when first needed escapes the
    count; the fastest run's two steps."""
    table = turngate.load_table(table_name)
    casts = family.how == "cast"
    best: tuple[float, float] | None = None
    for _ in range(REPEATS):
        start = time.process_time()
        if family.how == "turn":
            toolset = turngate.Toolset({"t": family.schema}, table, cache=turngate.SchemaCache())
            compiled_at = time.process_time()
            turngate.check_turn(family.sent, toolset)
        else:
            compiled = turngate.compile_schema(family.schema, table, casts=casts)
            compiled_at = time.process_time()
            compiled.cast(family.sent) if casts else compiled.check(family.sent)
        run = (compiled_at - start, time.process_time() - compiled_at)
        best = run if best is None or sum(run) < sum(best) else best
    compile_ms, check_ms = best[0] * 1000, best[1] * 1000  # type: ignore[index]
    return {"family": family.name, "table": table_name, "compile_ms": compile_ms, "check_ms": check_ms,
            "met": compile_ms + check_ms <= TARGET_MS}


def measure_all(chosen: list[str] | None = None) -> list[dict]:
    rows = []
    for family in families():
        if chosen and family.name not in chosen:
            continue
        for table in TABLES:
            rows.append({**measure(family, table), "size_kb": family.size_kb, "sent_kb": family.sent_kb,
                         "what": family.what, "how": family.how})
    return rows


def worst_case_lines(rows: list[dict]) -> list[str]:
    lines = [f"Each input compiled afresh and checked (cast, turn) once under each table: CPU time of the fastest "
             f"of {REPEATS} runs; target: both together at most {TARGET_MS:g} ms.", "",
             "| family | input | schema KB | sent KB | table | compile ms | check ms | total ms | target |",
             "|---|---|---:|---:|---|---:|---:|---:|---|"]
    for row in rows:
        check = {"cast": "cast", "turn": "turn"}.get(row["how"], "check")
        lines.append(f"| {row['family']} | {row['what']} | {row['size_kb']:.0f} | {row['sent_kb']:.0f} | {row['table']} "
                     f"| {row['compile_ms']:.1f} | {row['check_ms']:.1f} ({check}) "
                     f"| {row['compile_ms'] + row['check_ms']:.1f} | {'PASS' if row['met'] else 'MISS'} |")
    return lines


if __name__ == "__main__":
    found = measure_all(sys.argv[1:])
    print("\n".join(worst_case_lines(found)))
    sys.exit(0 if all(row["met"] for row in found) else 1)
