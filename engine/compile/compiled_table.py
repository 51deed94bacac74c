"""What the engine keeps per table, in an object of its own (the table itself is data): the
indexes the compiler reads, the rules and nodes every schema under the table shares, and the
table's sentences. Made once per table, when a schema is first compiled under it."""

from __future__ import annotations

import threading
from typing import Any

from ..kinds.hosted import hosted
from ..kinds.ref import RefRule
from ..kinds.registry import RULE_KINDS, SHIPPED_KINDS
from ..kinds.verdict import Mismatch, new_tuple
from ..table.entries import Table, TypeEntry
from ..table.wording import TableWords, host_facts
from ..values.kinds import base_kind
from .keywords import ANNOTATIONS, TRIGGER_KEYWORDS, UNION_BREAKERS


class CompiledTable:
    """A table as the engine uses it.

    `kind_rules` holds one kind rule per declared types, `plain_leaves` one node per types
    for a property of only a type and annotations: both immutable, so shared by every
    schema. `mismatch_list_class` is the list a check under this table collects in (see `check`)."""

    words: TableWords
    type_names: frozenset[str]
    skip_keywords: frozenset[str]
    skips: tuple[tuple[str, str | None], ...]
    trigger_skips: tuple[tuple[str, frozenset[str]], ...]
    depth: int
    cap: int
    union_breakers: frozenset[str]
    plain_leaf_keys: frozenset[str] | None
    rule_kinds: tuple[tuple[Any, bool], ...]
    plain_ref_keys: None | frozenset[str]

    def __init__(self, table: Table):
        self.table = table
        self.words = TableWords(table)
        self.type_by_name: dict[str, TypeEntry] = table.type_by_name
        self.type_names = frozenset(self.type_by_name)
        self.skip_keywords = table.skip_keywords
        self.skips = tuple((entry.trigger, entry.argument) for entry in table.skips)
        #: The triggers that read more than a keyword, in order, each with the keywords it needs
        #: (every keyword, for a trigger that does not say).
        self.trigger_skips = tuple((trigger, TRIGGER_KEYWORDS.get(trigger, _ANY_KEYWORD)) for trigger, _ in self.skips
                                   if trigger != "keyword")
        limits = table.limit
        self.depth, self.cap = limits["depth"], limits["mismatches"]
        #: Keywords that make a union branch more than a plain typed node, here.
        self.union_breakers = frozenset(UNION_BREAKERS) | self.skip_keywords
        self.plain_leaf_keys = _plain_leaf_keys(table, self.skip_keywords)
        # A host's kind is wrapped so that what it raises is a RuleKindError (`kinds.hosted`).
        self.rule_kinds = tuple((hosted(entry.kind, RULE_KINDS[entry.kind], SHIPPED_KINDS), entry.stops)
                                for entry in table.rules)
        #: The keywords a plain reference may have (a `$ref` and annotations): judged as its
        #: target is, so compiled as a link to it; None where the table does not resolve them.
        self.plain_ref_keys = None if self.plain_leaf_keys is None or "$ref" in self.skip_keywords \
            or not any(kind is RefRule for kind, _ in self.rule_kinds) else ANNOTATIONS - self.skip_keywords | {"$ref"}
        self.kind_rules: dict[tuple[str, ...], Any] = {}
        self.plain_leaves: dict[tuple[Any, ...], Any] = {}
        self.mismatch_list_class: type | None = None
        self._type_facts: dict[tuple[str, ...] | None, tuple[Any, ...]] = {}
        self._natives: dict[tuple[str, ...], frozenset[str]] = {}
        #: The facts of findings worded at compile time, by code and types (see `word`).
        self._decided_facts: dict[tuple[str, object], dict[str, Any]] = {}
        # A code a host's rule kind declares facts for is worded at every check: the host's
        # words might read more than the engine knows to be fixed.
        self._hosted_codes = frozenset(entry.code for entry in table.messages if host_facts(entry.code))

    def type_facts(self, types: tuple[str, ...] | None) -> tuple[Any, ...]:
        """For a node's declared types: the same types (one tuple per table and types, so
        that compiled nodes share it), the kinds they admit (None: every kind, or a type
        the table does not know), and whether an object, and a list, can be judged there."""
        facts = self._type_facts.get(types)
        if facts is None:
            facts = self._type_facts[types] = _type_facts(types, self.type_by_name)
        return facts

    def natives(self, types: tuple[str, ...]) -> frozenset[str]:
        """The base kinds the types (all declared by the table) are made for."""
        found = self._natives.get(types)
        if found is None:
            found = self._natives[types] = frozenset(base_kind(self.type_by_name[name].native) for name in types)
        return found

    def word(self, path: tuple[Any, ...], code: str, facts: dict[str, Any]) -> Mismatch | None:
        """A finding worded when the schema is compiled (see `kinds`' `root_collect`); None
        for a code whose words a host's facts may change."""
        if code in self._hosted_codes:
            return None
        if facts.keys() == {"types"}:  # a missing argument's: kept once per code and types
            facts = self._decided_facts.setdefault((code, facts["types"]), facts)
        return new_tuple(Mismatch, (path, code, self.words.wording(code).decided(facts, path), facts))


class _AnyKeyword(frozenset[str]):
    """Shares a keyword with every node: a trigger that names no keywords is always asked."""

    def isdisjoint(self, other: object) -> bool:
        return False


_ANY_KEYWORD = _AnyKeyword()


def _type_facts(types: tuple[str, ...] | None, type_by_name: dict[str, TypeEntry]) -> tuple[Any, ...]:
    known = [type_by_name.get(name) for name in types or ()]
    admitted = None if not types or None in known else frozenset(
        kind for entry in known for kind in entry.admits)  # type: ignore[union-attr]
    natives = None if not types else {base_kind(entry.native) for entry in known if entry is not None}
    return types, admitted, natives is None or "object" in natives, natives is None or "list" in natives


def _plain_leaf_keys(table: Table, skip_keywords: frozenset[str]) -> frozenset[str] | None:
    """The keywords a schema may have, besides `type`, to compile as a plain leaf: the
    annotations no rule of this table reads and no skip names; None when a rule kind of the
    table is not one the engine ships (a host's kind may read any keyword)."""
    shipped = all(RULE_KINDS.get(entry.kind) in SHIPPED_KINDS for entry in table.rules)
    keys = (ANNOTATIONS | {"type"}) - skip_keywords
    return frozenset(keys) if shipped and "type" in keys else None


# By identity: a table is compared by value, which would cost a walk of all its entries. A
# table compiled under is kept (as the loader keeps every table it loaded).
_compiled: dict[int, CompiledTable] = {}
_lock = threading.Lock()


def compiled_table(table: Table) -> CompiledTable:
    """The engine's object for a table, made once."""
    found = _compiled.get(id(table))
    if found is not None and found.table is table:
        return found
    with _lock:
        found = _compiled.get(id(table))
        if found is None or found.table is not table:
            found = _compiled[id(table)] = CompiledTable(table)
    return found
