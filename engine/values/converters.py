"""Converters of attrs fields, as the type checkers see them: at run time `as_tuple` is the
builtin `tuple` itself (no call of ours is added to making a verdict or an answer); a type
checker sees a plain function, since attrs' mypy plugin cannot read a converter that is an
overloaded class."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable

    def as_tuple(items: Iterable[Any], /) -> tuple[Any, ...]:
        """The items as a tuple (what an attrs field of a tuple type is given)."""

    def as_frozenset(items: Iterable[Any], /) -> frozenset[Any]:
        """The items as a frozenset."""
else:
    as_tuple = tuple
    as_frozenset = frozenset
