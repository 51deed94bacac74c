"""A rule table as data: what the loader makes of a `.rules` file.

The table is the policy; `engine` is the mechanism. Every class is frozen and slotted, and
holds tuples only, so a table is immutable and can be dumped with the package converter.
"""

from __future__ import annotations

from functools import cached_property

from attrs import field, frozen


def _strings(items) -> tuple[str, ...]:
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
    skips: tuple[SkipEntry, ...] = field(converter=tuple, default=())
    values: tuple[ValueEntry, ...] = field(converter=tuple, default=())
    types: tuple[TypeEntry, ...] = field(converter=tuple, default=())
    rules: tuple[RuleEntry, ...] = field(converter=tuple, default=())
    messages: tuple[MessageEntry, ...] = field(converter=tuple, default=())
    answers: tuple[AnswerEntry, ...] = field(converter=tuple, default=())
    limits: tuple[LimitEntry, ...] = field(converter=tuple, default=())

    @cached_property
    def skip_keywords(self) -> frozenset[str]:
        return frozenset(s.argument for s in self.skips if s.trigger == "keyword")

    @cached_property
    def type_by_name(self) -> dict[str, TypeEntry]:
        return {entry.name: entry for entry in self.types}

    @cached_property
    def type_names(self) -> frozenset[str]:
        return frozenset(self.type_by_name)

    @cached_property
    def value_phrase(self) -> dict[str, str]:
        return {entry.kind: entry.phrase for entry in self.values}

    @cached_property
    def answer(self) -> dict[str, str]:
        return {entry.name: entry.template for entry in self.answers}

    @cached_property
    def limit(self) -> dict[str, int]:
        return {entry.name: entry.value for entry in self.limits}

    @cached_property
    def _phrases(self) -> dict:
        return {}

    @cached_property
    def made(self) -> dict:
        """Objects made under this table that depend only on it and their key (a rule kind
        and the types it judges; the list a check collects in): made once, shared by every
        schema."""
        return {}

    def expected_phrase(self, types: tuple[str, ...], width: int) -> str:
        """How a message names what declared types expect: "text or a list"."""
        key = (types, width)
        phrase = self._phrases.get(key)
        if phrase is None:
            from .messages import join_phrases  # messages reads tables; tables need only this
            names = [self.type_by_name[t].phrase if t in self.type_by_name else t for t in types]
            phrase = self._phrases[key] = join_phrases(names, width)
        return phrase

    @cached_property
    def wordings(self) -> dict:
        """Per code, the function that words its findings (made by `wording.words_for`)."""
        return {}

    @cached_property
    def expected_texts(self) -> dict:
        return {}

    @cached_property
    def sent_kind_texts(self) -> dict:
        return {}

    @cached_property
    def message_length(self) -> int:
        return self.limit["message-length"]

    def value_phrase_cut(self, kind: str | None, width: int) -> str:
        """How a message names a kind of value ("a list"), at most `width` characters."""
        key = (kind, width)
        phrase = self._phrases.get(key)
        if phrase is None:
            text = self.value_phrase.get(kind or "", "a value")
            phrase = self._phrases[key] = text if len(text) <= width else text[: width - 1] + "…"
        return phrase

    @cached_property
    def messages_by_code(self) -> dict[str, tuple[MessageEntry, ...]]:
        """Per code, its messages with the most guards first: the most specific that fits
        is used."""
        by_code: dict[str, list[MessageEntry]] = {}
        for entry in self.messages:
            by_code.setdefault(entry.code, []).append(entry)
        return {
            code: tuple(sorted(entries, key=lambda e: -len(e.guards)))
            for code, entries in by_code.items()
        }
