"""What a check answers: the verdict on one call's arguments.

Both classes are named tuples rather than attrs classes: every refused call makes one of
each per mismatch, and a tuple is made in a third of the time of a frozen attrs instance.
They are as immutable and slotted, and the package converter reads and writes them as
objects with named fields (see `convert`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

#: What a verdict says was not judged where every node of the schema is (shared, read-only).
ALL_JUDGED: Mapping[str, int] = MappingProxyType({})


class Mismatch(NamedTuple):
    """One way the arguments do not fit: where (object keys and list indexes from the
    root), the table's code for it, and the sentence the model is told."""

    path: tuple[str | int, ...]
    code: str
    message: str


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
