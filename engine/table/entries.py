"""A rule table as data: what the loader makes of a `.rules` file.

The table is the policy; the engine is the mechanism. Every class is frozen and slotted and
holds tuples only, so a table is immutable and can be dumped with the package converter.
What the engine keeps per table (indexes, shared rules, sentences) lives in an object of
its own (`compile.compiled_table.CompiledTable`).
"""

from __future__ import annotations

from collections.abc import Iterable

from attrs import field, frozen

from ..values.converters import as_tuple


def _strings(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(items)


@frozen
class SkipEntry:
    """A trigger that makes a schema node unjudged (no rule of it, nothing below it)."""

    trigger: str
    argument: str | None = None


@frozen
class ValueEntry:
    """A kind of value, and how a message names it ("a list")."""

    kind: str
    phrase: str


@frozen
class TypeEntry:
    """A declared JSON Schema type: how a message names it, its own kind, what casts admit."""

    name: str
    phrase: str
    native: str
    casts: tuple[str, ...] = field(converter=_strings, default=())

    @property
    def admits(self) -> tuple[str, ...]:
        return (self.native, *self.casts)


@frozen
class RuleEntry:
    """One rule of a judged node: its name, the rule kind it uses, and whether a mismatch
    it reports ends the checking of that node."""

    name: str
    kind: str
    stops: bool = False


@frozen
class MessageEntry:
    """The sentence for a mismatch code; `guards` are facts that must be known to use it."""

    code: str
    template: str
    guards: tuple[str, ...] = field(converter=_strings, default=())


@frozen
class AnswerEntry:
    """A piece of the text a refused call is answered with."""

    name: str
    template: str


@frozen
class LimitEntry:
    name: str
    value: int


@frozen
class Table:
    name: str
    skips: tuple[SkipEntry, ...] = field(converter=as_tuple, default=())
    values: tuple[ValueEntry, ...] = field(converter=as_tuple, default=())
    types: tuple[TypeEntry, ...] = field(converter=as_tuple, default=())
    rules: tuple[RuleEntry, ...] = field(converter=as_tuple, default=())
    messages: tuple[MessageEntry, ...] = field(converter=as_tuple, default=())
    answers: tuple[AnswerEntry, ...] = field(converter=as_tuple, default=())
    limits: tuple[LimitEntry, ...] = field(converter=as_tuple, default=())

    # Views of the entries, read where speed does not matter; the engine keeps its own.

    @property
    def limit(self) -> dict[str, int]:
        return {entry.name: entry.value for entry in self.limits}

    @property
    def answer(self) -> dict[str, str]:
        return {entry.name: entry.template for entry in self.answers}

    @property
    def type_by_name(self) -> dict[str, TypeEntry]:
        return {entry.name: entry for entry in self.types}

    @property
    def skip_keywords(self) -> frozenset[str]:
        return frozenset(s.argument for s in self.skips if s.trigger == "keyword")  # type: ignore[misc]

    def messages_for(self, code: str) -> tuple[MessageEntry, ...]:
        """The messages of a code with the most guards first: the most specific that fits
        is used."""
        return tuple(sorted((entry for entry in self.messages if entry.code == code), key=lambda e: -len(e.guards)))
