"""One cast's judging, bounded: whatever the schema's unions and the size of what is sent, a
cast judges at most a fixed amount beyond its walk of the value.

A cast asks judges whether values are valid (see `exact`). Three things cost one unit each of
a budget of `CAST_UNITS` per cast: a keyword check python-jsonschema makes (its verdict on a
list of a thousand numbers is a thousand checks or more), a cast tried and then judged (a
value's own, or one branch of a union's), and a rival a `oneOf` cast asks whether it holds the
cast value too. A cast that would spend more is not made at all: the arguments are handed on
as sent, and the root's path is listed as not cast (`CompiledSchema.cast`).
"""

from __future__ import annotations

from contextvars import ContextVar

from ..kinds.finding import EngineSignal

#: About 40 ms of python-jsonschema's checks on a loaded two-core machine: more than a
#: model's call needs by far (BFCL's casts spend a few units), less than a target of 100 ms
#: per 100 KB sent leaves once the walk itself is paid for.
CAST_UNITS = 16_384


class CastTooCostly(EngineSignal):
    """The budget of one cast is spent: the cast is not made."""


class Judging:
    """One cast's judging: each judge's verdicts on lists and objects (kept for the cast's
    length, see `exact`), and the units left of its budget."""

    __slots__ = ("verdicts", "left")

    def __init__(self) -> None:
        self.verdicts: dict[tuple[int, int], tuple[object, bool | None]] = {}
        self.left = CAST_UNITS

    def spend(self, units: int = 1) -> None:
        left = self.left = self.left - units
        if left < 0:
            raise CastTooCostly


#: The judging of the cast this thread (context) is making; None outside a cast.
JUDGING: ContextVar[Judging | None] = ContextVar("judging", default=None)
