"""The corpus measurements: check time per call, compile time per schema, the five-call turn,
and whether the validators agree on what the corpus says is valid and invalid."""

from __future__ import annotations

import copy
import gc
import json
import tracemalloc
from functools import partial

import turngate

from corpus import Call
from peers import Prepared, compile_operations
from timing import FULL, Budget, per_call_ns


def measure_checks(calls: list[Call], valid: bool, prepared: Prepared,
                   budget: Budget = FULL) -> dict[str, list[float]]:
    """Nanoseconds per call for each peer, peers timed back to back on the same call so a
    drift of the machine's speed hits them alike. Each peer gets its own deep copy."""
    times: dict[str, list[float]] = {peer.name: [] for peer in prepared.peers}
    for call in calls:
        for peer in prepared.peers:
            validator = prepared.get(peer, call.schema_key, call.schema)
            run = peer.run_valid if valid else peer.run_invalid
            operation = partial(run, validator, copy.deepcopy(call.arguments))
            times[peer.name].append(per_call_ns(operation, budget))
    return times


def measure_compiles(schemas: list[dict], budget: Budget = FULL) -> dict[str, list[float]]:
    table = turngate.load_table()
    cache = turngate.SchemaCache(size=len(schemas) + 1)
    times: dict[str, list[float]] = {}
    for schema in schemas:
        for name, operation in compile_operations(schema, table, cache).items():
            times.setdefault(name, []).append(per_call_ns(operation, budget))
    return times


def memory_per_schema(schemas: list[dict], compile_schema=None) -> float:
    """Bytes a compiled schema keeps, on average: what compiling every schema once (each
    kept) adds to the memory tracemalloc traces, after one schema warmed the table's caches.
    `compile_schema` is turngate's, or another version's (see `ab.py`)."""
    compile_schema = compile_schema or turngate.compile_schema
    copies = [copy.deepcopy(schema) for schema in schemas]
    compile_schema(copy.deepcopy(schemas[0]))
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [compile_schema(schema) for schema in copies]
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(kept) == len(copies)
    return (after - before) / len(copies)


def disagreements(calls: list[Call], prepared: Prepared) -> list[str]:
    """Where a peer does not do what the corpus requires: refuse every clearly invalid
    call, accept every ground-truth call that jsonschema accepts. Other calls (the lenient
    semantics may accept them) are not judged."""
    found = []
    for call in calls:
        if call.mutation is None:
            required = False
        elif call.clearly_invalid:
            required = True
        else:
            continue
        for peer in prepared.peers:
            validator = prepared.get(peer, call.schema_key, call.schema)
            refused = peer.refuses(validator, copy.deepcopy(call.arguments))
            if refused != required:
                said = "refused" if refused else "accepted"
                found.append(f"{peer.name} {said} {call.id} ({call.mutation or 'ground truth'})")
    return found


def measure_turn(valid: list[Call], budget: Budget = FULL) -> dict[str, float] | str:
    """A turn of five calls through `turngate.check_turn` against five single checks, or why it
    was not measured. The five calls are five different tools, compiled beforehand."""
    check_turn = getattr(turngate, "check_turn", None)
    if check_turn is None:
        return "not measured: turngate has no check_turn"
    chosen = _five_tools(valid)
    if len(chosen) < 5:
        return "not measured: the corpus has fewer than five tools"
    schemas = {call.tool: call.schema for call in chosen}
    toolset_type = getattr(turngate, "Toolset", None)
    tools = toolset_type(schemas) if toolset_type else schemas
    turn = [{"id": f"call_{i}", "tool": c.tool, "arguments": copy.deepcopy(c.arguments)}
            for i, c in enumerate(chosen)]
    singles = [(turngate.compile_schema(c.schema), copy.deepcopy(c.arguments)) for c in chosen]
    try:
        if not check_turn(turn, tools).ok:
            return "not measured: check_turn refused a turn of valid calls"
    except (TypeError, AttributeError) as error:
        return f"not measured: check_turn is not called as (calls, tools): {error}"
    return {"turn_ns": per_call_ns(partial(check_turn, turn, tools), budget),
            "singles_ns": per_call_ns(partial(_check_each, singles), budget)}


def measure_text_turns(valid: list[Call], budget: Budget = FULL) -> dict[str, list[float]]:
    """Per valid call: a turn of that one call with its arguments as JSON text (the shape
    OpenAI's APIs send) through `check_turn`, against `json.loads` of the same text."""
    times: dict[str, list[float]] = {"check_turn": [], "json.loads": []}
    for call in valid:
        text = json.dumps(call.arguments)
        toolset = turngate.Toolset({call.tool: call.schema})
        turn = [turngate.Call("call_1", call.tool, text)]
        if not turngate.check_turn(turn, toolset).ok:
            raise AssertionError(f"check_turn refused the valid call {call.id}")
        times["check_turn"].append(per_call_ns(partial(turngate.check_turn, turn, toolset), budget))
        times["json.loads"].append(per_call_ns(partial(json.loads, text), budget))
    return times


def _check_each(pairs):
    for compiled, arguments in pairs:
        compiled.check(arguments)


def _five_tools(valid: list[Call]) -> list[Call]:
    chosen: dict[str, Call] = {}
    for call in valid:
        if call.tool not in chosen and call.arguments:
            chosen[call.tool] = call
        if len(chosen) == 5:
            break
    return list(chosen.values())

