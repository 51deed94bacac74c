"""One turn, one decision: every call of a model's turn is checked before any runs, and a
turn with a mismatch runs nothing.

A refused turn answers every call id exactly once: the mismatched call with its list
(`tool_refusal` "arguments"), every other call with a "Not run" text asking for it to be
sent again with the corrected one ("turn").
"""

from __future__ import annotations

import json
from typing import Iterable, Mapping

from ..check.schema import CompiledSchema, SchemaCache, resolve_table
from ..compile.compiled_table import compiled_table
from ..kinds.verdict import Verdict, new_tuple
from ..table.entries import Table
from ..table.wording import TableWords
from ..values.decoding import decode_json
from ..values.suggest import closest_name
from .calls import Call, CallAnswer, TurnVerdict, as_call, id_key, tool_name


class Toolset:
    """The tools offered for a run, by name, each schema compiled once. A tool offered with
    no schema, or a schema that is not an object, judges nothing."""

    def __init__(self, tools: Mapping[str, object], table: Table | str | None = None,
                 cache: SchemaCache | None = None, casts: bool = False):
        self.table, self.casts = resolve_table(table), casts
        self.words = compiled_table(self.table).words
        cache = cache or SHARED_CACHE
        self.compiled: dict[str, CompiledSchema] = {
            name: cache.compile(schema, self.table, casts) for name, schema in tools.items()}
        self.names = tuple(self.compiled)
        self.fits = {name: compiled.root.fits for name, compiled in self.compiled.items()}


SHARED_CACHE = SchemaCache()


SHARED_CACHE = SchemaCache()


def check_turn(calls: Iterable[Call | Mapping], tools: Toolset | Mapping[str, object],
               table: Table | str | None = None, casts: bool = False) -> TurnVerdict:
    """The decision on a whole turn. `tools` maps a tool name to its schema (compiled
    schemas are cached by content), or is a `Toolset` compiled once for many turns. With
    `casts`, an accepted turn's calls carry their arguments with the exact casts applied
    (off by default: ADR 246 rejected changing what tools receive)."""
    toolset = tools if isinstance(tools, Toolset) else Toolset(tools, table, casts=casts)
    if casts and not toolset.casts:
        raise ValueError("casts were asked for, but the Toolset was built without them (casts=True)")
    given = calls if type(calls) is tuple else tuple(calls)
    if not casts and _fits_as_given(given, toolset):
        return new_tuple(TurnVerdict, (True, given, (), ()))
    turn = tuple(as_call(item) for item in given)
    outcomes = [_check_call(call, toolset) for call in turn]
    repeated = _repeated_ids(turn)
    if not repeated and all(outcome is None or type(outcome) is Call for outcome in outcomes):
        decoded = tuple(call if outcome is None else outcome for call, outcome in zip(turn, outcomes))
        return _cast_turn(decoded, toolset) if casts else TurnVerdict(True, decoded)
    return TurnVerdict(False, turn, _answers(turn, outcomes, repeated, toolset))


def _fits_as_given(turn: tuple, toolset: Toolset) -> bool:
    """Whether every call names an offered tool, sends decoded arguments that fit, and has
    an id of its own: the common turn, decided without building anything."""
    fits_for = toolset.fits
    ids = set()
    for item in turn:
        if type(item) is dict:
            tool, arguments, call_id = tool_name(item), item.get("arguments", _NONE), item.get("id")
        elif type(item) is Call:
            tool, arguments, call_id = item.tool, item.arguments, item.id
        else:
            return False
        if type(tool) is not str or tool not in fits_for or type(arguments) is str \
                or not fits_for[tool](arguments):
            return False
        try:
            ids.add(call_id)
        except TypeError:  # an id that cannot be hashed is compared one by one, elsewhere
            return False
    return len(ids) == len(turn)


_NONE: dict = {}  # no arguments sent; checked, never changed


def _cast_turn(calls: tuple[Call, ...], toolset: Toolset) -> TurnVerdict:
    cast = [toolset.compiled[call.tool].cast(call.arguments) for call in calls]
    cast_calls = [call if c.arguments is call.arguments else Call(call.id, call.tool, c.arguments)
                  for call, c in zip(calls, cast)]
    return TurnVerdict(True, tuple(cast_calls), (), tuple(cast))


def _check_call(call: Call, toolset: Toolset) -> Call | Verdict | CallAnswer | None:
    """None when the call fits as it is; a decoded copy when its raw text fits; else its
    refusal: a `Verdict` with mismatches, or a ready answer for what is not a mismatch."""
    if type(call.tool) is not str:
        return _refused(call, toolset.words, "no-tool", offered=False)
    compiled = toolset.compiled.get(call.tool)
    if compiled is None:
        return _unknown_tool(call, toolset)
    arguments = call.arguments
    if type(arguments) is str:
        arguments = decode_arguments(call, toolset.words)
        if isinstance(arguments, CallAnswer):
            return arguments
    verdict = compiled.check(arguments)
    if not verdict.ok:
        return verdict
    return None if arguments is call.arguments else Call(call.id, call.tool, arguments)


def decode_arguments(call: Call, words: TableWords) -> object:
    """The arguments decoded from raw JSON text, or the call's refusal. Blank text is no
    arguments: some clients send "" for a tool that takes none."""
    text: str = call.arguments  # type: ignore[assignment]
    if not text.strip():
        return {}
    try:
        return decode_json(text)
    except RecursionError:
        return _refused(call, words, "invalid-json", problem="nested too deeply", line=1, column=1)
    except json.JSONDecodeError as error:
        if error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string"):
            lines = text.rstrip().split("\n")
            return _refused(call, words, "cut-off-json", line=len(lines), column=len(lines[-1]) + 1)
        problem = error.msg[:1].lower() + error.msg[1:]
        return _refused(call, words, "invalid-json", problem=problem, line=error.lineno, column=error.colno)


def _unknown_tool(call: Call, toolset: Toolset) -> CallAnswer:
    closest = closest_name(call.tool, toolset.names)
    if closest is None:
        return _refused(call, toolset.words, "unknown-tool", offered=False)
    return _refused(call, toolset.words, "unknown-tool-closest", offered=False, closest=closest)


def _refused(call: Call, words: TableWords, answer: str, offered: bool = True, **facts: object) -> CallAnswer:
    """A call refused for what is not a mismatch; its code is the answer's name, both
    unknown-tool answers sharing one."""
    tool = call.tool if type(call.tool) is str else ""
    text = words.answer(answer, tool=tool, **facts)
    code = answer.removesuffix("-closest")
    return CallAnswer(call.id, tool, "refused", "arguments", (code,), text, offered=offered)


def _repeated_ids(turn: tuple[Call, ...]) -> set:
    seen: set = set()
    repeated: set = set()
    for call in turn:
        key = id_key(call.id)
        if key in seen:
            repeated.add(key)
        seen.add(key)
    return repeated


def _answers(turn, outcomes, repeated: set, toolset: Toolset) -> tuple[CallAnswer, ...]:
    words, compiled = toolset.words, toolset.compiled
    answers: list[CallAnswer] = []
    answered: set = set()
    for call, outcome in zip(turn, outcomes):
        key = id_key(call.id)
        if key in answered:
            continue
        answered.add(key)
        if key in repeated:
            offered = type(call.tool) is str and call.tool in compiled
            answers.append(_refused(call, words, "duplicate-id", offered, id=call.id))
        elif isinstance(outcome, CallAnswer):
            answers.append(outcome)
        elif isinstance(outcome, Verdict):
            answers.append(CallAnswer(
                call.id, call.tool, "refused", "arguments", [m.code for m in outcome.mismatches],
                words.refusal(call.tool, outcome), outcome.mismatches, outcome.truncated))
        else:
            answers.append(CallAnswer(call.id, call.tool, "not-run", "turn", (),
                                      words.answer("not-run", tool=call.tool)))
    return tuple(answers)
