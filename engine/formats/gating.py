"""A model's turn in a format's shape, gated in one call: the calls to run, or the reply."""

from __future__ import annotations

from typing import Callable

from attrs import field, frozen

from ..values.converters import as_tuple
from ..turn.calls import Call, TurnVerdict
from ..turn.gate import Toolset, check_turn


@frozen
class Gated:
    """What to do with a model's turn: when `ok`, run `calls` (arguments decoded, and cast
    where the toolset was compiled with casts); else nothing ran, and `reply` is what the
    host sends back, in the format's own shape. `verdict` has the rest (answers, casts)."""

    ok: bool
    calls: tuple[Call, ...] = field(converter=as_tuple)
    reply: object
    verdict: TurnVerdict


def gated(calls: tuple[Call, ...], reply: Callable[[TurnVerdict], object], toolset: Toolset) -> Gated:
    verdict = check_turn(calls, toolset)
    if verdict.ok:
        return Gated(True, verdict.calls, None, verdict)
    return Gated(False, (), reply(verdict), verdict)
