"""The differential test's cases and judge: a draft, a small schema of it and instances aimed
at it (hypothesis strategies, built in differential_schemas, differential_refs and
differential_instances), python-jsonschema as the judge of validity, and the helpers that say
what a failure shows and count what was tried."""

from __future__ import annotations

import unicodedata
from collections import Counter, defaultdict
from typing import NamedTuple

import jsonschema
from hypothesis import strategies as st
from jsonschema.validators import validator_for
from referencing import Registry

from differential_instances import instances_for
from differential_json import shown
from differential_schemas import DRAFTS, node_count, schemas
from support import RAW_CONTROLS

#: "Small": every JSON value of a schema counted, containers included.
MAX_SCHEMA_NODES = 40


class Case(NamedTuple):
    draft: str  # a key of DRAFT_URIS (draft-03 to 2020-12), "none" (no $schema) or "unknown" (a URI of no draft)
    schema: dict
    instances: list

    def __repr__(self) -> str:  # hypothesis writes a failing case out; Python cannot write huge integers at once
        return f"Case(draft={self.draft!r}, schema={shown(self.schema)}, instances={shown(self.instances)})"


@st.composite
def cases(draw) -> Case:
    draft = draw(st.sampled_from(DRAFTS))
    schema = draw(schemas(draft).filter(lambda schema: node_count(schema) <= MAX_SCHEMA_NODES))
    return Case(draft, schema, draw(st.lists(instances_for(schema), min_size=1, max_size=6)))


class Judge:
    """python-jsonschema on one schema, for the schema's own draft (2020-12 where `$schema`
    names none or an unknown URI), with no format checker: `format` is an annotation. Where
    it raises (a reference it cannot resolve, an unknown type it reaches, a malformed
    keyword, endless recursion), the answer is None: validity unknown, never "invalid"."""

    def __init__(self, schema: object):
        # An empty registry (beside the drafts' own metaschemas, which jsonschema always
        # adds): a remote reference is unresolvable, as it is without a network, but
        # without jsonschema trying to fetch it first. A validator that cannot be built is
        # None, and every answer about it None too.
        self.validator = unless_it_raises(lambda: validator_for(schema, default=jsonschema.Draft202012Validator)(
            schema, registry=Registry()))

    def valid(self, instance: object) -> bool | None:
        return unless_it_raises(lambda: self.validator.is_valid(instance))

    def error_paths(self, instance: object) -> frozenset[tuple] | None:
        """Where in the instance jsonschema places each error (its absolute path)."""
        return unless_it_raises(lambda: frozenset(tuple(error.absolute_path)
                                                  for error in self.validator.iter_errors(instance)))


def unless_it_raises(judging):
    """What `judging()` returns, or None where jsonschema raises. A reference cycle raises a
    RecursionError, which rpds (under `referencing`) can turn into a pyo3 PanicException: a
    BaseException, so only what stops the run is let through."""
    try:
        return judging()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # noqa: BLE001 - whatever jsonschema cannot judge is unknown
        return None


def at_or_below(path: tuple, changed: tuple[tuple, ...]) -> bool:
    return any(path[:len(prefix)] == prefix for prefix in changed)


def message_problems(message: str, limit: int) -> list[str]:
    """What makes a message something other than one clean sentence of at most `limit`."""
    problems = []
    if not message.endswith("."):
        problems.append("does not end with a full stop")
    raw = sorted({f"U+{ord(char):04X}" for char in message if unicodedata.category(char) in RAW_CONTROLS})
    if raw:
        problems.append(f"holds raw {', '.join(raw)} (line breaks, controls, format or unassigned characters)")
    if len(message) > limit:
        problems.append(f"is {len(message)} characters long, over the limit of {limit}")
    return problems


def describe(what: str, case: Case, instance: object, table: str, verdict=None, **more: object) -> str:
    """A failure's message: what went wrong, and everything needed to replay it."""
    lines = [what, f"  table:    {table}", f"  draft:    {case.draft}",
             f"  schema:   {shown(case.schema)}", f"  instance: {shown(instance)}"]
    if verdict is not None:
        lines.append(f"  turngate: ok={verdict.ok} {shown([m.message for m in verdict.mismatches])}")
    lines += [f"  {name}: {value}" for name, value in more.items()]
    return "\n".join(lines)


#: The keywords whose use the tally counts: those the drafts differ on, and the new ones.
COUNTED_KEYWORDS = ("$ref", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "$anchor", "$id",
                    "id", "$defs", "definitions", "extends", "disallow", "divisibleBy", "dependencies",
                    "dependentRequired", "dependentSchemas", "if", "then", "else", "unevaluatedProperties",
                    "unevaluatedItems", "contains", "minContains", "maxContains", "propertyNames", "const", "enum",
                    "multipleOf", "anyOf", "oneOf", "allOf", "not", "prefixItems", "items", "additionalItems",
                    "required", "additionalProperties", "patternProperties")


def keywords_in(schema: object) -> set[str]:
    """The counted keywords anywhere in a schema (as keys of an object, wherever it sits)."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.update(key for key in node if key in COUNTED_KEYWORDS)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


class Tally:
    """How many schemas and instances were tried, per table and draft, and how jsonschema
    judged the instances: valid, invalid, or unknown (it raised); and how many schemas held
    each keyword (summed over the tables)."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
        self.keyword_counts: Counter = Counter()

    def keywords(self, schema: object) -> None:
        self.keyword_counts.update(keywords_in(schema))

    @property
    def schemas_tried(self) -> int:
        return sum(counts["schemas"] for counts in self.counts.values())

    def schema(self, table: str, draft: str) -> None:
        self.counts[table, draft]["schemas"] += 1

    def instance(self, table: str, draft: str, valid: bool | None) -> None:
        self.counts[table, draft]["instances"] += 1
        self.counts[table, draft][{True: "valid", False: "invalid", None: "unknown"}[valid]] += 1

    def as_json(self) -> dict:
        tables: dict[str, dict] = defaultdict(dict)
        for (table, draft), counts in sorted(self.counts.items()):
            tables[table][draft] = dict(counts)
        return {"tables": tables, "total": dict(sum(self.counts.values(), Counter())),
                "schemas holding each keyword": dict(sorted(self.keyword_counts.items()))}

    def lines(self) -> list[str]:
        rows = [f"{'table':<9} {'draft':<9} {'schemas':>8} {'instances':>10} {'valid':>8} {'unknown':>8} "
                f"{'valid %':>8}"]
        items = sorted(self.counts.items()) + [(("all", ""), sum(self.counts.values(), Counter()))]
        for (table, draft), counts in items:
            share = 100 * counts["valid"] / max(1, counts["instances"])
            rows.append(f"{table:<9} {draft:<9} {counts['schemas']:>8} {counts['instances']:>10} "
                        f"{counts['valid']:>8} {counts['unknown']:>8} {share:>7.1f}%")
        held = ", ".join(f"{keyword} {count}" for keyword, count in sorted(self.keyword_counts.items()))
        return rows + [f"schemas holding each keyword: {held}"]
