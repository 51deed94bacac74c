"""Compiling: a schema becomes a tree of rule objects, read once.

All schema reading happens here; checking only walks what this builds. Whatever cannot be
judged becomes a node with no rules, so compiling never raises on a JSON value.
"""

from __future__ import annotations

from typing import Any

from attrs import field, frozen

from .rules import RULE_KINDS
from .table import Table
from .values import BASE_KINDS


@frozen
class Node:
    """A compiled schema node: its rules in table order, each with whether a mismatch it
    reports ends the node. `skipped` says why a node is not judged (coverage reports it)."""

    entries: tuple[tuple[Any, bool], ...] = field(converter=tuple, default=())
    skipped: str | None = None

    @property
    def fits_all(self) -> bool:
        return not self.entries

    def fits(self, value: object) -> bool:
        for rule, _ in self.entries:
            if not rule.fits(value):
                return False
        return True


def declared_types(node: dict) -> tuple[str, ...] | None:
    """The names of `type` in order without repeats; None when absent; () when malformed."""
    if "type" not in node:
        return None
    declared = node["type"]
    if type(declared) is str:
        return (declared,)
    if type(declared) is list and declared and all(type(name) is str for name in declared):
        return tuple(dict.fromkeys(declared))
    return ()


def skip_reason(node: object, table: Table, depth: int) -> str | None:
    """Why a schema node is not judged (the first trigger of the table that applies)."""
    if not isinstance(node, dict):
        return "not-object"
    if depth > table.limit["depth"]:
        return "depth"
    for entry in table.skips:
        if entry.trigger == "keyword" and entry.argument in node:
            return entry.argument
        if entry.trigger == "malformed-type" and declared_types(node) == ():
            return "malformed-type"
        if entry.trigger == "unknown-type":
            types = declared_types(node) or ()
            if any(name not in table.type_by_name for name in types):
                return "unknown-type"
    return None


class NodeContext:
    """What a rule kind may ask about the schema node it compiles from."""

    all_kinds = frozenset(BASE_KINDS)

    def __init__(self, node: dict, table: Table, depth: int):
        self.node, self.table, self.depth = node, table, depth
        self.types = declared_types(node)
        known = [table.type_by_name.get(name) for name in self.types or ()]
        self.admitted_kinds = None if not self.types or None in known else frozenset(
            kind for entry in known for kind in entry.admits  # type: ignore[union-attr]
        )
        natives = None if not self.types else {e.native for e in known if e is not None}
        self.judges_objects = natives is None or "object" in natives
        self.judges_lists = natives is None or "list" in natives

    def child(self, schema: object) -> Node:
        return compile_node(schema, self.table, self.depth + 1)

    def property_null_facts(self, name: str) -> tuple[bool, tuple[str, ...]]:
        """Whether the property schema refuses null for a required argument, and its types.

        It admits null when absent, skipped, untyped, listing a type whose own kind is
        null, or marked `nullable: true`.
        """
        properties = self.node.get("properties")
        schema = properties.get(name) if isinstance(properties, dict) else None
        if not isinstance(schema, dict) or skip_reason(schema, self.table, self.depth + 1):
            return False, ()
        types = declared_types(schema) or ()
        natives = [e.native for t in types if (e := self.table.type_by_name.get(t))]
        refuses = bool(types) and "null" not in natives and schema.get("nullable") is not True
        return refuses, types


def compile_node(schema: object, table: Table, depth: int = 0) -> Node:
    reason = skip_reason(schema, table, depth)
    if reason is not None:
        return Node(skipped=reason)
    context = NodeContext(schema, table, depth)  # type: ignore[arg-type]
    entries = []
    for entry in table.rules:
        rule = RULE_KINDS[entry.kind].from_node(schema, context)
        if rule is not None:
            entries.append((rule, entry.stops))
    return Node(entries)
