"""The benchmark corpus: BFCL's ground-truth calls, the ones jsonschema accepts as the valid
set, and one-defect mutations of those as the invalid set. Deterministic: categories and
entries in sorted order, mutations seeded by call id."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import jsonschema

import bfcl
from mutations import clearly_invalid, mutations_of

SEED = 246


@dataclass(frozen=True)
class Call:
    """One tool call: its schema and arguments; `mutation` names the defect made, if any."""

    id: str
    tool: str
    schema: dict
    arguments: dict
    mutation: str | None = None
    mutated_argument: str = ""
    clearly_invalid: bool = False
    schema_key: str = field(default="", compare=False)


@dataclass
class Corpus:
    ground_truth: list[Call]
    valid: list[Call]
    invalid: list[Call]
    #: Every distinct tool schema offered in the categories, called or not.
    schemas: list[dict]

    @property
    def refused_ground_truth(self) -> list[Call]:
        valid_ids = {call.id for call in self.valid}
        return [call for call in self.ground_truth if call.id not in valid_ids]


def schema_key(schema: object) -> str:
    return json.dumps(schema, sort_keys=True, separators=(",", ":"))


def _keyed(call: Call) -> Call:
    return Call(call.id, call.tool, call.schema, call.arguments, call.mutation,
                call.mutated_argument, call.clearly_invalid, schema_key(call.schema))


def read_ground_truth(data) -> tuple[list[Call], list[dict]]:
    calls, schemas = [], {}
    for category in bfcl.CATEGORIES:
        for entry, answer in bfcl.load_category(data, category):
            for schema in bfcl.offered_schemas(entry, category):
                schemas.setdefault(schema_key(schema), schema)
            made = bfcl.ground_truth_calls(entry, answer, category)
            for index, (tool, schema, arguments) in enumerate(made):
                calls.append(_keyed(Call(f"{entry['id']}#{index}", tool, schema, arguments)))
    return calls, [schemas[key] for key in sorted(schemas)]


def accepted_by_jsonschema(calls: list[Call]) -> list[Call]:
    """The ground truth the reference validator accepts. BFCL's answers include values its
    own schemas refuse (null for text, Java values that are not source text)."""
    validators: dict[str, jsonschema.Draft202012Validator] = {}
    accepted = []
    for call in calls:
        validator = validators.get(call.schema_key)
        if validator is None:
            validator = validators[call.schema_key] = jsonschema.Draft202012Validator(call.schema)
        if validator.is_valid(call.arguments):
            accepted.append(call)
    return accepted


def mutate(valid: list[Call], seed: int) -> list[Call]:
    invalid = []
    for call in valid:
        for kind, (schema, arguments, name) in mutations_of(call.id, call.schema, call.arguments, seed):
            clear = clearly_invalid(kind, schema, arguments, name)
            invalid.append(_keyed(Call(f"{call.id}~{kind}", call.tool, schema, arguments,
                                       kind, name, clear)))
    return invalid


def build_corpus(seed: int = SEED) -> Corpus:
    """Raises bfcl.CorpusUnavailable when the BFCL data cannot be obtained."""
    ground_truth, schemas = read_ground_truth(bfcl.obtain_data())
    valid = accepted_by_jsonschema(ground_truth)
    return Corpus(ground_truth, valid, mutate(valid, seed), schemas)


def sample(calls: list[Call], count: int) -> list[Call]:
    """An evenly spaced, deterministic sample of `count` calls (all when fewer)."""
    if len(calls) <= count:
        return list(calls)
    step = len(calls) / count
    return [calls[int(index * step)] for index in range(count)]
