"""Invalid calls made from valid ones, one defect each, and which of them are clearly invalid.

Every mutation changes one top-level argument (or the schema, for `unknown_argument`) of a
call that jsonschema accepts, choosing the argument with a random generator seeded by the
call's id among the eligible names in sorted order: the same corpus in every process.
"""

from __future__ import annotations

import copy
import random
from typing import Callable

#: Keywords that make turngate skip a schema node (rules/adr246.rules): below such a node
#: nothing is refused, so no mutation there can be clearly invalid.
SKIPPING_KEYWORDS = ("$ref", "oneOf", "anyOf", "allOf", "not", "if")
KNOWN_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")
UNKNOWN_ARGUMENT = "unexpected_argument"

Mutated = tuple[dict, dict, str]  # schema, arguments, what was changed


def judged(schema: object) -> bool:
    """Whether turngate's default table judges this schema node at all."""
    if not isinstance(schema, dict) or any(key in schema for key in SKIPPING_KEYWORDS):
        return False
    declared = schema.get("type")
    return declared is None or declared in KNOWN_TYPES


def _property(schema: dict, name: str) -> dict:
    properties = schema.get("properties")
    found = properties.get(name) if isinstance(properties, dict) else None
    return found if isinstance(found, dict) else {}


def _pick(names, rng: random.Random) -> str | None:
    names = sorted(names)
    return rng.choice(names) if names else None


def drop_required(schema: dict, arguments: dict, rng: random.Random) -> Mutated | None:
    required = schema.get("required")
    name = _pick((n for n in arguments if isinstance(required, list) and n in required), rng)
    if name is None:
        return None
    changed = copy.deepcopy(arguments)
    del changed[name]
    return schema, changed, name


def _replace_typed(schema, arguments, rng, declared, replace) -> Mutated | None:
    name = _pick((n for n in arguments if _property(schema, n).get("type") == declared), rng)
    if name is None:
        return None
    changed = copy.deepcopy(arguments)
    changed[name] = replace(changed[name])
    return schema, changed, name


def text_to_list(schema: dict, arguments: dict, rng: random.Random) -> Mutated | None:
    return _replace_typed(schema, arguments, rng, "string", lambda value: [value])


def integer_to_object(schema: dict, arguments: dict, rng: random.Random) -> Mutated | None:
    return _replace_typed(schema, arguments, rng, "integer", lambda value: {"value": value})


def unknown_argument(schema: dict, arguments: dict, rng: random.Random) -> Mutated | None:
    if "patternProperties" in schema:
        return None
    name = UNKNOWN_ARGUMENT
    while name in schema.get("properties", {}):
        name += "_"
    closed = copy.deepcopy(schema)
    closed["additionalProperties"] = False
    changed = copy.deepcopy(arguments)
    changed[name] = "surprise"
    return closed, changed, name


def _string_enum(schema: dict) -> list[str] | None:
    members = schema.get("enum")
    if isinstance(members, list) and members and all(type(m) is str for m in members):
        return members
    return None


def outside_enum(schema: dict, arguments: dict, rng: random.Random) -> Mutated | None:
    name = _pick((n for n in arguments if _string_enum(_property(schema, n))), rng)
    if name is None:
        return None
    members = _string_enum(_property(schema, name))
    value = f"{members[0]} (unlisted)"
    changed = copy.deepcopy(arguments)
    changed[name] = value
    return schema, changed, name


MUTATIONS: dict[str, Callable[[dict, dict, random.Random], Mutated | None]] = {
    "drop_required": drop_required,
    "text_to_list": text_to_list,
    "integer_to_object": integer_to_object,
    "unknown_argument": unknown_argument,
    "outside_enum": outside_enum,
}


def mutations_of(call_id: str, schema: dict, arguments: dict, seed: int) -> list[tuple[str, Mutated]]:
    """Each mutation that applies to the call, in the fixed order of MUTATIONS."""
    made = []
    for kind, mutate in MUTATIONS.items():
        mutated = mutate(schema, arguments, random.Random(f"{seed}:{call_id}:{kind}"))
        if mutated is not None:
            made.append((kind, mutated))
    return made


def clearly_invalid(kind: str | None, schema: dict, arguments: dict, name: str) -> bool:
    """Whether turngate's lenient semantics must refuse this mutated call, so every strict
    validator must refuse it too: the mutation is one the semantics refuse, at a node the
    default table judges."""
    if kind is None or not judged(schema) or schema.get("type") not in (None, "object"):
        return False
    if kind in ("drop_required", "unknown_argument"):
        return True
    target = _property(schema, name)
    if not judged(target):
        return False
    if kind == "text_to_list":
        return target.get("type") == "string"
    if kind == "integer_to_object":
        return target.get("type") == "integer"
    members = _string_enum(target)
    sent = arguments.get(name)
    return (kind == "outside_enum" and members is not None and type(sent) is str
            and sent.casefold() not in {m.casefold() for m in members})
