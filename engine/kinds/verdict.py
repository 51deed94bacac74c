"""What a check answers: the verdict on one call's arguments.

Both classes are named tuples rather than attrs classes: every refused call makes one of
each per mismatch, and a tuple is made in a third of the time of a frozen attrs instance.
They are as immutable and slotted, and the package converter reads and writes them as
objects with named fields (see `convert`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import NamedTuple

from .mismatch_facts import expected_of, sent_of


class Counts(Mapping[str, int]):
    """Counts by name, read-only and hashable (a verdict stays a hashable value): a verdict's
    `unjudged`. Given a `measure` instead of counts, they are measured when first read (once:
    what a schema's verdicts carry is made when a host reads it, never while checking)."""

    __slots__ = ("_counts", "_measure")

    def __init__(self, counts: Mapping[str, int] | None = None,
                 measure: Callable[[], Mapping[str, int]] | None = None):
        self._counts = None if counts is None and measure is not None else dict(sorted((counts or {}).items()))
        self._measure = measure

    def _read(self) -> dict[str, int]:
        counts = self._counts
        if counts is None:  # measured alike by any thread that races here
            counts = self._counts = dict(sorted(self._measure().items()))  # type: ignore[misc]
        return counts

    def __getitem__(self, name: str) -> int:
        return self._read()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())

    def __hash__(self) -> int:
        return hash(tuple(self._read().items()))

    def __repr__(self) -> str:
        return repr(self._read())

    def __reduce__(self) -> tuple[type[Counts], tuple[dict[str, int]]]:
        return Counts, (self._read(),)  # pickled and copied as the counts they are


#: What a verdict says was not judged where every node of the schema is (shared).
ALL_JUDGED: Mapping[str, int] = Counts()


class Mismatch(NamedTuple):
    """One way the arguments do not fit: where (object keys and list indexes from the
    root), the table's code for it, and the sentence the model is told; and beside the
    sentence, its facts (`expected`, `sent`, `facts()`), read from what the rule kind reported
    (`reported`) when first asked for, never while checking.

    Two mismatches are equal when they say the same (path, code and sentence): what a rule
    reported is how the facts are read, not a fact of its own."""

    path: tuple[str | int, ...]
    code: str
    message: str
    #: The facts the rule kind reported, as it reported them (the value sent among them): what
    #: `expected` and `sent` are read from. Never written out; None where nothing was.
    reported: Mapping[str, object] | None = None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mismatch):
            return self[:3] == other[:3]
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:3])

    @property
    def expected(self) -> dict[str, object] | None:
        """What the schema expects, as its keyword and value: `{"keyword": "type", "value":
        "integer"}` (a list of types where several are declared, or a union's branches
        declare several), `{"keyword": "enum", "value": [...]}`, `{"keyword": "required",
        "value": "<the name required>"}`, `{"keyword": "additionalProperties", "value":
        false}`; None for a host's code."""
        return expected_of(self.code, self.path, self.reported)

    @property
    def sent(self) -> str | None:
        """The value sent as the message quotes it: a scalar's JSON text, cut to the width a
        message gives it; None where nothing was sent, or a list or an object was (a message
        names those by their kind)."""
        return sent_of(self.code, self.reported)

    def facts(self) -> dict[str, object]:
        """The mismatch as data beside its sentence: `{"code", "path" (a list), "expected",
        "sent"}`."""
        return {"code": self.code, "path": list(self.path), "expected": self.expected, "sent": self.sent}


class Verdict(NamedTuple):
    """`ok` when nothing was refused; at most the table's cap of mismatches, in order;
    `truncated` when more were found than are listed; `unjudged`, how many of the schema's
    nodes the table does not judge, per reason (a skip keyword such as "anyOf", or a trigger:
    see `compile.coverage`), sorted by reason, and empty where every node is judged. A
    passing verdict says nothing of what was not judged; `unjudged` says how much that is."""

    ok: bool
    mismatches: tuple[Mismatch, ...] = ()
    truncated: bool = False
    unjudged: Mapping[str, int] = ALL_JUDGED


PASSED = Verdict(ok=True)

#: Makes a named tuple from a tuple of its fields without its generated `__new__` (a
#: third of the time, on paths that make one per call or per mismatch).
new_tuple = tuple.__new__
