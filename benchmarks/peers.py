"""turngate and the validators it is measured against, behind one shape.

Each peer prepares a validator from a schema (untimed for checks, timed as compile), and
has one function for a valid call and one for an invalid call. Both take the prepared
validator and the arguments, so every timed operation is `partial(run, prepared, args)`:
one Python call of the same depth for every peer. For invalid calls every peer also reads
each error message it produced, as a host that answers the model would.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Callable

import fastjsonschema
import jsonschema
import jsonschema_rs

import turngate


def turngate_check(compiled, arguments):
    return compiled.check(arguments)


def turngate_check_messages(compiled, arguments):
    verdict = compiled.check(arguments)
    for mismatch in verdict.mismatches:
        mismatch.message
    return verdict


def turngate_refuses(compiled, arguments) -> bool:
    return not compiled.check(arguments).ok


def iter_errors_list(validator, arguments):
    return list(validator.iter_errors(arguments))


def iter_errors_messages(validator, arguments):
    return [error.message for error in validator.iter_errors(arguments)]


def iter_errors_refuse(validator, arguments) -> bool:
    return bool(list(validator.iter_errors(arguments)))


def is_valid(validator, arguments):
    return validator.is_valid(arguments)


def is_valid_refuses(validator, arguments) -> bool:
    return not validator.is_valid(arguments)


def fastjsonschema_compile(schema):
    # Without use_default=False fastjsonschema writes schema defaults into the arguments.
    return fastjsonschema.compile(schema, use_default=False)


def fastjsonschema_first_error(validate, arguments):
    try:
        validate(arguments)
    except fastjsonschema.JsonSchemaValueException as error:
        return error.message
    return None


def fastjsonschema_refuses(validate, arguments) -> bool:
    return fastjsonschema_first_error(validate, arguments) is not None


@dataclass(frozen=True)
class Peer:
    name: str
    prepare: Callable[[dict], object]
    run_valid: Callable[[object, object], object]
    run_invalid: Callable[[object, object], object]
    refuses: Callable[[object, object], bool]


TURNGATE = Peer("turngate", turngate.compile_schema, turngate_check, turngate_check_messages,
                turngate_refuses)
JSONSCHEMA_ERRORS = Peer("jsonschema iter_errors", jsonschema.Draft202012Validator,
                         iter_errors_list, iter_errors_messages, iter_errors_refuse)
JSONSCHEMA_IS_VALID = Peer("jsonschema is_valid", jsonschema.Draft202012Validator,
                           is_valid, is_valid, is_valid_refuses)
FASTJSONSCHEMA = Peer("fastjsonschema", fastjsonschema_compile, fastjsonschema_first_error,
                      fastjsonschema_first_error, fastjsonschema_refuses)
RS_ERRORS = Peer("jsonschema-rs iter_errors", jsonschema_rs.Draft202012Validator,
                 iter_errors_list, iter_errors_messages, iter_errors_refuse)
RS_IS_VALID = Peer("jsonschema-rs is_valid", jsonschema_rs.Draft202012Validator,
                   is_valid, is_valid, is_valid_refuses)

PEERS = (TURNGATE, JSONSCHEMA_ERRORS, JSONSCHEMA_IS_VALID, FASTJSONSCHEMA, RS_ERRORS,
         RS_IS_VALID)


class Prepared:
    """Each peer's validator per distinct schema, prepared once from its own copy."""

    def __init__(self, peers=PEERS):
        self.peers = peers
        self._by_key: dict[tuple[str, str], object] = {}

    def get(self, peer: Peer, key: str, schema: dict) -> object:
        prepared = self._by_key.get((peer.name, key))
        if prepared is None:
            prepared = self._by_key[(peer.name, key)] = peer.prepare(copy.deepcopy(schema))
        return prepared


def compile_operations(schema: dict, table, cache: turngate.SchemaCache) -> dict[str, Callable]:
    """What compiling one schema costs each peer, as zero-argument operations on their own
    copies. The cache-hit row assumes the schema was compiled into `cache` before."""
    own = {name: copy.deepcopy(schema) for name in ("tg", "tgt", "cache", "fjs", "rs", "js")}
    cache.compile(own["cache"], table)
    return {
        "turngate compile_schema": lambda: turngate.compile_schema(own["tg"]),
        "turngate compile_schema (table given)": lambda: turngate.compile_schema(own["tgt"], table),
        "turngate SchemaCache hit": lambda: cache.compile(own["cache"], table),
        "fastjsonschema compile": lambda: fastjsonschema_compile(own["fjs"]),
        "jsonschema-rs Draft202012Validator": lambda: jsonschema_rs.Draft202012Validator(own["rs"]),
        "jsonschema Draft202012Validator (lazy)": lambda: jsonschema.Draft202012Validator(own["js"]),
    }


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version
    found = {}
    # matplotlib is needed only to draw the growth plot, so the smoke run goes without it.
    for name in ("turngate", "jsonschema", "fastjsonschema", "jsonschema-rs", "matplotlib"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    return found
