"""How fast can a refusal be in Python? The invalid-call target of issue 6 (8x jsonschema's
`iter_errors`) against what the smallest refusal costs that still tests the root and says
the same sentence.

    python benchmarks/floor.py [CALLS]     # default 300 calls per mutation, a few minutes

For invalid calls of flat tool schemas (every property a plain typed node), it times per
call, medians in µs: jsonschema `iter_errors` with its messages and an eighth of it (the
target); turngate's check with its messages; and its parts: the root's test alone, and the
table's sentence function alone on the check's own findings. Then "minimal": the root's
test, then one loop over the arguments (required names, then each argument's own test)
that calls the same sentence function and makes the same verdict, with no rule objects,
interpreter or table in between: a floor for any design that keeps the test and the words.
"""

from __future__ import annotations

import copy
import random
import statistics
import sys
from functools import partial

import jsonschema

import engine
from corpus import build_corpus
from engine.verdict import Mismatch, Verdict
from engine.wording import words_for
from timing import Budget, per_call_ns

BUDGET = Budget(round_ns=300_000, rounds=3)
MUTATIONS = ("drop_required", "text_to_list", "integer_to_object")


def flat(schema: dict) -> bool:
    properties = schema.get("properties", {})
    return schema.get("type") == "object" and all(
        set(p) <= {"type", "description"} and isinstance(p.get("type"), str) for p in properties.values())


def minimal_check(compiled, schema: dict):
    """The refusal with every layer but the test and the sentence taken out."""
    table, fits = compiled.table, compiled.root.fits
    tests = {name: node.fits for name, node in compiled.root.entries[-1][0].by_name.items() if node}
    types = {name: (p["type"],) for name, p in schema.get("properties", {}).items()}
    required = tuple(schema.get("required", ()))
    kind_words, missing_words = words_for(table, "kind"), words_for(table, "missing")

    def check(arguments):
        if fits(arguments):
            return engine.verdict.PASSED
        found = []
        for name in required:
            if name not in arguments:
                path = (name,)
                found.append(Mismatch(path, "missing", missing_words({"types": types.get(name)}, path)))
        for name, value in arguments.items():
            test = tests.get(name)
            if test is not None and not test(value):
                path = (name,)
                found.append(Mismatch(path, "kind", kind_words({"types": types[name], "value": value}, path)))
        return Verdict(False, tuple(found))
    return check


def with_messages(check, arguments):
    for mismatch in check(arguments).mismatches:
        mismatch.message


def parts(call) -> dict[str, float]:
    compiled = engine.compile_schema(call.schema)
    arguments = copy.deepcopy(call.arguments)
    verdict = compiled.check(arguments)
    validator = jsonschema.Draft202012Validator(call.schema)
    minimal = minimal_check(compiled, call.schema)
    assert minimal(arguments) == verdict, (call.id, minimal(arguments), verdict)

    findings = [(words_for(compiled.table, m.code), {"types": (call.schema["properties"][m.path[0]]["type"],),
                 **({"value": arguments[m.path[0]]} if m.code == "kind" else {})}, m.path)
                for m in verdict.mismatches]

    def words_only():
        for words, facts, path in findings:
            words(facts, path)

    operations = {
        "jsonschema iter_errors": partial(lambda v, a: [e.message for e in v.iter_errors(a)], validator, arguments),
        "turngate check": partial(with_messages, compiled.check, arguments),
        "  the root's test": partial(compiled.root.fits, arguments),
        "  the sentences": words_only,
        "minimal": partial(with_messages, minimal, arguments),
    }
    return {name: per_call_ns(operation, BUDGET) / 1000 for name, operation in operations.items()}


def main() -> None:
    per_mutation = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    corpus = build_corpus()
    chosen = random.Random(6).sample([c for c in corpus.invalid if c.mutation in MUTATIONS and flat(c.schema)],
                                     k=per_mutation * len(MUTATIONS))
    rows = [parts(call) for call in chosen]
    print(f"{len(rows)} invalid calls of flat schemas ({', '.join(MUTATIONS)}); medians, µs per call\n")
    print("| | µs |\n|---|---:|")
    for name in rows[0]:
        print(f"| {name} | {statistics.median(row[name] for row in rows):.2f} |")
    target = statistics.median(row["jsonschema iter_errors"] for row in rows) / 8
    print(f"| the target: jsonschema iter_errors / 8 | {target:.2f} |")


if __name__ == "__main__":
    main()
