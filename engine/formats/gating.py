"""A model's turn in a format's shape, gated in one call: the calls to run, or the reply."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Generic, Literal

from attrs import field, frozen

from ..values.converters import as_tuple
from ..turn.calls import Call, TurnVerdict
from ..turn.gate import Toolset, check_turn

if TYPE_CHECKING:  # defaults, so that a bare `Gated` is `Gated[Call, object]` (PEP 696)
    from typing_extensions import TypeVar

    #: The calls of a turn as its format reads them (`Call`, or `TextIdCall` where ids are text).
    C = TypeVar("C", bound=Call, covariant=True, default=Call)
    #: The reply of a refused turn, in its format's shape.
    R = TypeVar("R", covariant=True, default=object)
else:
    from typing import TypeVar

    C = TypeVar("C", bound=Call, covariant=True)
    R = TypeVar("R", covariant=True)


@frozen
class Gated(Generic[C, R]):
    """What to do with a model's turn: when `ok`, run `calls` (arguments decoded, and cast
    where the toolset was compiled with casts); else nothing ran, and `reply` is what the
    host sends back, in the format's own shape. `verdict` has the rest (answers, casts).

    A format's `gate` returns `Passed | Refused` for type checkers: `if gated.ok:` (mypy;
    pyright reads `if gated.ok is True:`) tells them `reply` is the format's reply where the
    turn was refused, and None where it may run."""

    ok: bool
    calls: tuple[C, ...] = field(converter=as_tuple)
    reply: R | None
    verdict: TurnVerdict


if TYPE_CHECKING:  # what a type checker knows of a gated turn; at run time, each is a `Gated`
    class Passed(Gated[C, R]):
        """A turn that may run: its `calls`; no reply."""

        ok: Literal[True]
        reply: None

    class Refused(Gated[C, R]):
        """A refused turn: nothing ran, no calls; `reply` answers it."""

        ok: Literal[False]
        reply: R


def gated(calls: tuple[C, ...], reply: Callable[[TurnVerdict], R], toolset: Toolset) -> Passed[C, R] | Refused[C, R]:
    verdict = check_turn(calls, toolset)
    if verdict.ok:
        return Gated(True, verdict.calls, None, verdict)  # type: ignore[return-value]
    return Gated(False, (), reply(verdict), verdict)  # type: ignore[return-value]
