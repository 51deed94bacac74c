"""One turn, one decision: every call of a model's turn is checked before any runs, and a
turn with a mismatch runs nothing.

A refused turn answers every call id exactly once: the mismatched call with its list
(`tool_refusal` "arguments"), every other call with a "Not run" text asking for it to be
sent again with the corrected one ("turn").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, TYPE_CHECKING

from ..check.schema import CompiledSchema, SchemaCache, resolve_table
from ..compile.compiled_table import compiled_table
from ..kinds.verdict import Verdict, new_tuple
from ..table.entries import Table
from ..table.wording import TableWords
from ..values.decoding import decode_json
from ..values.jsonvalue import JSON
from ..values.quoting import quote_any
from ..values.shapes import described
from ..values.stack import again_on_a_fresh_stack, on_a_fresh_stack
from ..values.suggest import closest_name
from .calls import Call, CallAnswer, TurnVerdict, as_call, id_key, tool_name
from .tools import offered_tools

if TYPE_CHECKING:
    from typing import Callable
    from .telemetry import Telemetry


class Toolset:
    """The tools offered for a run, by name, each schema compiled once: from a mapping of
    name to schema, or the tools as an SDK gives them (see `turn.tools`). A tool offered with
    no schema, or a schema that is not an object, judges nothing.

    With `casts`, a turn that may run hands its calls on with the exact casts applied (see
    `compile.casting`); off by default, since ADR 246 rejected changing what tools receive."""

    table: Table
    casts: bool
    words: TableWords
    names: tuple[str, ...]
    fits: dict[str, Callable[[object], bool]]

    def __init__(self, tools: object, table: Table | str | None = None,
                 cache: SchemaCache | None = None, casts: bool = False):
        self.table, self.casts = resolve_table(table), casts
        self.words = compiled_table(self.table).words
        cache = SHARED_CACHE if cache is None else cache
        self.compiled: dict[str, CompiledSchema] = {
            name: cache.compile(schema, self.table, casts) for name, schema in offered_tools(tools).items()}
        self.names = tuple(name for name in self.compiled if type(name) is str)  # only text can be called
        self.fits = {name: compiled.root.fits for name, compiled in self.compiled.items()}


SHARED_CACHE = SchemaCache()


def check_turn(calls: Iterable[Call | Mapping[str, Any]], tools: Toolset | object,
               table: Table | str | None = None, casts: bool | None = None,
               telemetry: Telemetry | None = None) -> TurnVerdict:
    """The decision on a whole turn. `tools` is a `Toolset` compiled once for many turns, or
    anything a `Toolset` is made from (compiled schemas are then cached by content); `table`
    and `casts` say how to make it. A turn that may run carries its calls with arguments
    decoded (and cast where the toolset casts). With `telemetry`, the decision is reported to
    OpenTelemetry (see `turn.telemetry`)."""
    if telemetry is not None:
        return _reported(telemetry, calls, tools, table, casts)
    given = calls if type(calls) is tuple else tuple(calls) if type(calls) is list else _as_turn(calls)
    try:
        if type(tools) is Toolset or isinstance(tools, Toolset):
            toolset = tools
            if casts is not None and casts != toolset.casts:
                raise ValueError("casts are asked for where the Toolset is made: Toolset(tools, casts=True)")
        else:
            toolset = Toolset(tools, table, casts=bool(casts))
        if not toolset.casts:
            received = _fits_as_given(given, toolset)
            if received is not None:
                return new_tuple(TurnVerdict, (True, given, (), (), received))
        return _decided(given, toolset)
    except RecursionError as error:  # called from deep in the host's stack (`values.stack`)
        return again_on_a_fresh_stack(error, check_turn, given, tools, table, casts)


def _decided(given: tuple[Any, ...], toolset: Toolset) -> TurnVerdict:
    """The turn looked at call by call: each decoded, checked and answered."""
    turn = tuple(as_call(item) for item in given)
    outcomes = [_check_call(call, toolset) for call in turn]
    repeated = _repeated_ids(turn)
    if not repeated and all(outcome is None or type(outcome) is Call for outcome in outcomes):
        decoded = tuple(call if outcome is None else outcome for call, outcome in zip(turn, outcomes))
        # Every outcome here is None or the call decoded (the test above).
        return _cast_turn(decoded, toolset) if toolset.casts else TurnVerdict(True, decoded)  # type: ignore[arg-type]
    return TurnVerdict(False, turn, _answers(turn, outcomes, repeated, toolset))


def _reported(telemetry: Telemetry, calls: Iterable[Call | Mapping[str, Any]], tools: Toolset | object,
              table: Table | str | None, casts: bool | None) -> TurnVerdict:
    # Apart from check_turn, whose locals would otherwise all be closure cells, each turn.
    return telemetry.decide(lambda: check_turn(calls, tools, table, casts))


def _as_turn(calls: object) -> tuple[Any, ...]:
    if isinstance(calls, (Mapping, str, bytes)) or not isinstance(calls, Iterable):
        raise TypeError("check_turn takes the turn's calls (each a Call, or a mapping with \"id\", \"tool\" and "
                        f"\"arguments\"); this is {_described(calls)}: read a model's message with its format's "
                        "calls() or gate() (turngate.formats)")
    return tuple(calls)


def _described(value: object) -> str:
    if isinstance(value, Mapping):
        keys = ", ".join(quote_any(key, 40) for key in list(value)[:4])
        return f"an object with {keys}" if value else "an empty object"
    return described(value)


def _fits_as_given(turn: tuple[Any, ...], toolset: Toolset) -> tuple[Any, ...] | None:
    """The common turn, decided without building anything: when every call names an offered
    tool, sends decoded arguments that fit, and has an id of its own, () (the turn is taken
    as given); else None, and the turn is looked at call by call. A turn that sends some
    arguments as JSON text is decided by `_fits_once_decoded`."""
    fits_for = toolset.fits
    ids = set()
    for item in turn:
        if type(item) is dict:
            # `tool_name`, called only where "tool" is not given as it mostly is: a Python
            # call per tool call was a sixth of this path's own work (callgrind).
            tool = item.get("tool") or tool_name(item)
            arguments, call_id = item.get("arguments", _NONE), item.get("id")
        elif type(item) is Call:
            tool, arguments, call_id = item.tool, item.arguments, item.id
        else:
            return None
        if type(arguments) is str:
            return _fits_once_decoded(turn, toolset)
        fits = fits_for.get(tool) if type(tool) is str else None
        if fits is None or not fits(arguments):
            return None
        ids.add(call_id if type(call_id) is str else id_key(call_id))
    return () if len(ids) == len(turn) else None


def _fits_once_decoded(turn: tuple[Any, ...], toolset: Toolset) -> tuple[Any, ...] | None:
    """As `_fits_as_given`, each text decoded once: each call's arguments as the tools
    receive them, or None."""
    fits_for = toolset.fits
    ids = set()
    received = []
    tool: object
    arguments: Any
    for item in turn:
        if type(item) is Call:
            tool, arguments, call_id = item.tool, item.arguments, item.id
        elif type(item) is dict:
            tool = item.get("tool") or tool_name(item)  # as in `_fits_as_given`
            arguments, call_id = item.get("arguments", _NONE), item.get("id")
        else:
            return None
        if type(arguments) is str:
            try:
                arguments = decode_json(arguments)
            except (ValueError, RecursionError):
                arguments = {} if not arguments.strip() else _UNDECODED  # the slow path words why
        fits = fits_for.get(tool) if type(tool) is str else None
        if fits is None or arguments is _UNDECODED or not fits(arguments):
            return None
        received.append({} if arguments is _NONE else arguments)  # each call its own
        ids.add(call_id if type(call_id) is str else id_key(call_id))
    return tuple(received) if len(ids) == len(turn) else None


_NONE: dict[str, Any] = {}  # no arguments sent: checked, never changed, never handed on
_UNDECODED: object = object()


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
    arguments: Any = call.arguments
    if type(arguments) is str:
        arguments = decode_arguments(call, toolset.words)
        if isinstance(arguments, CallAnswer):
            return arguments
    verdict = compiled.check(arguments)
    if not verdict.ok:
        return verdict
    return None if arguments is call.arguments else Call(call.id, call.tool, arguments)


def decode_arguments(call: Call, words: TableWords) -> JSON | CallAnswer:
    """The arguments decoded from raw JSON text, or the call's refusal. Blank text is no
    arguments: some clients send "" for a tool that takes none."""
    text: str = call.arguments  # type: ignore[assignment]
    if not text.strip():
        return {}
    try:
        return decode_json(text)
    except RecursionError:
        if not on_a_fresh_stack():
            raise  # the host's own depth, maybe: decided again on a fresh stack (`values.stack`)
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


def _repeated_ids(turn: tuple[Call, ...]) -> set[Any]:
    seen: set[Any] = set()
    repeated: set[Any] = set()
    for call in turn:
        key = id_key(call.id)
        if key in seen:
            repeated.add(key)
        seen.add(key)
    return repeated


def _answers(turn: tuple[Call, ...], outcomes: list[Any], repeated: set[Any], toolset: Toolset) -> tuple[CallAnswer, ...]:
    words, compiled = toolset.words, toolset.compiled
    answers: list[CallAnswer] = []
    answered: set[Any] = set()
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
