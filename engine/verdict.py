"""What a check answers: the verdict on one call's arguments."""

from __future__ import annotations

from attrs import frozen


@frozen
class Mismatch:
    """One way the arguments do not fit: where (object keys and list indexes from the
    root), the table's code for it, and the sentence the model is told."""

    path: tuple[str | int, ...]
    code: str
    message: str


@frozen
class Verdict:
    """`ok` when nothing was refused; at most the table's cap of mismatches, in order;
    `truncated` when more were found than are listed."""

    ok: bool
    mismatches: tuple[Mismatch, ...] = ()
    truncated: bool = False


PASSED = Verdict(ok=True)
