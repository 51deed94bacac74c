"""What the turn fuzzer expects of a turn, from what the case put in it (never from what
turngate answers): which ids are one id, what each call's arguments decode to, and whether
the turn is valid, which python-jsonschema judges for each call's schema (for the schema's
own draft). Where it cannot be sure (jsonschema raises, a number no float holds, ids equal
only as numbers, a value JSON cannot hold), it claims nothing, and only the promises that
hold for any input are held."""

from __future__ import annotations

from typing import NamedTuple

import turngate
from turngate import formats
from turngate.formats import FormatError

from differential_cases import Judge
from differential_json import dumps, json_clean, same_json, shown, strict_loads
from turn_fuzz_shapes import MISSING, TurnCase

UNKNOWN = object()  # arguments the oracle cannot decode for sure


class Expected(NamedTuple):
    valid: bool  # the turn is valid (every call names a tool offered, fits it, has an id of its own): it must run
    ids: list | None  # the turn's distinct ids, in the order of the turn (None: ids equal only as numbers)
    arguments: list  # each call's arguments as the tool must receive them (UNKNOWN: not claimed)
    fits: list  # each call's validity under jsonschema (None: unknown or not judged)


def id_key(value: object) -> object:
    """What tells ids apart as JSON does, but for numbers: 1 and 1.0 (and 0 and -0.0) are
    one key here, which `distinct_ids` then calls ambiguous."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, (list, tuple)):
        return ("list", tuple(id_key(item) for item in value))
    if isinstance(value, dict):
        return ("object", tuple(sorted((str(key), id_key(item)) for key, item in value.items())))
    return ("other", repr(value))


def distinct_ids(ids: list) -> list | None:
    """The ids of a turn, each once, in the order they came: None when two are equal only
    as numbers (1 and 1.0), where JSON leaves it open whether they are one id."""
    firsts: dict = {}
    for value in ids:
        key = id_key(value)
        if key in firsts and not same_json(firsts[key], value):
            return None
        firsts.setdefault(key, value)
    return list(firsts.values())


def decoded(case: TurnCase, arguments: object) -> object:
    """The arguments as the tool must receive them, read as the format reads them."""
    if arguments is MISSING or (case.format == "mcp" and arguments is None):
        return {} if case.format in ("direct", "mcp") else UNKNOWN
    if not isinstance(arguments, str):
        return arguments if json_clean(arguments) else UNKNOWN
    if not arguments.strip():
        return {}  # documented: blank text is no arguments
    try:
        value = strict_loads(arguments)
    except (ValueError, RecursionError):
        return UNKNOWN
    return value if json_clean(value) else UNKNOWN


def fits(schema: object, arguments: object) -> bool | None:
    if arguments is UNKNOWN:
        return None
    if not isinstance(schema, dict):
        return True  # documented: a tool offered with no schema, or not an object, judges nothing
    return Judge(schema).valid(arguments)


def expect(case: TurnCase) -> Expected:
    ids = distinct_ids([call.id if call.id is not MISSING else None for call in case.calls])
    arguments = [decoded(case, call.arguments) for call in case.calls]
    judged = [fits(case.schemas[call.name], value) if isinstance(call.name, str) and call.name in case.schemas
              else False for call, value in zip(case.calls, arguments)]
    unique = ids is not None and len(ids) == len(case.calls)
    return Expected(case.well_formed and unique and all(judged), ids, arguments, judged)


class Outcome(NamedTuple):
    """What turngate made of a case: a `Gated` (formats) or `TurnVerdict` (direct), or the
    error it raised; `toolset_error` when the tools could not be read."""

    verdict: object | None
    reply: object
    error: BaseException | None


def run(case: TurnCase, tools: object, turn: object) -> Outcome:
    """The case gated: `check_turn` on the calls as given (direct), or the format's `gate`.
    Errors are returned, not raised: which ones are allowed is the test's to judge."""
    try:
        if case.format == "direct":
            verdict = turngate.check_turn(turn, tools, case.table, casts=case.casts)
            return Outcome(verdict, None, None)
        toolset = turngate.Toolset(tools, case.table, casts=case.casts)
        gated = formats.FORMATS[case.format].gate(turn, toolset)
        return Outcome(gated.verdict, gated.reply, None)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # noqa: BLE001 - the test judges which are allowed
        return Outcome(None, None, error)


def allowed_error(case: TurnCase, error: BaseException) -> bool:
    """Only a turn not in its format's shape may be refused with an error, and only with the
    documented one: `FormatError` (or `TypeError` for tools in no known shape)."""
    return not case.well_formed and isinstance(error, (FormatError, TypeError))


def canonical(outcome: Outcome) -> str:
    """An outcome as text, to compare two runs: everything a host is handed."""
    if outcome.error is not None:
        return f"raised {type(outcome.error).__name__}: {outcome.error}"
    verdict = outcome.verdict
    calls = [(shown(call.id), shown(call.tool), shown(call.arguments)) for call in verdict.calls] if verdict.ok else []
    answers = [(shown(a.call_id), shown(a.tool), a.status, a.tool_refusal, a.codes, a.text, a.offered,
                [(m.path, m.code, m.message) for m in a.mismatches]) for a in verdict.answers]
    casts = [(shown(c.arguments), c.changed, c.not_cast) for c in verdict.casts]
    return shown({"ok": verdict.ok, "calls": calls, "answers": answers, "casts": casts, "reply": shown(outcome.reply)})


def strict_json_problem(value: object) -> str | None:
    """Why a value is no JSON a strict reader (JavaScript's JSON.parse) reads back: NaN or an
    infinity, or data JSON has no form for; None where it is JSON (integers of any size are)."""
    try:
        dumps(value, allow_nan=False)
    except ValueError as error:
        return str(error)
    except TypeError as error:
        return f"not JSON data: {error}"
    return None
