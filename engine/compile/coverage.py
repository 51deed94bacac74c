"""Measured coverage: the share of a schema's nodes a table judges, and why the rest are not.

A schema's nodes are the subschemas an argument can meet: below `properties`, `items`,
`prefixItems`, `additionalProperties`, the branches of `anyOf`/`oneOf`/`allOf`, `not`,
`if`/`then`/`else`, and the targets of local `$ref`s (each counted once). A node is judged
when the table's compiler reaches it and does not skip it; a node it never reaches counts
under the trigger that skipped its nearest reached ancestor.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping
from typing import Any, Iterator

from attrs import field, frozen

from ..kinds.verdict import ALL_JUDGED, Counts
from ..table.entries import Table
from ..values.quoting import pointer_step
from .compiled_table import CompiledTable, compiled_table
from .compiler import compile_node
from .drafts import draft_of
from .reading import declared_types
from .refs import RefScope, pointers_by_node, root_scope

_ONE_SCHEMA = ("additionalProperties", "items", "not", "if", "then", "else", "contains",
               "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems")
_SCHEMA_LISTS = ("prefixItems", "items", "anyOf", "oneOf", "allOf")
_SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas")


def _step(key: object) -> str:
    return "/" + pointer_step(key)


def _below(node: dict[str, Any], pointer: str | None) -> Iterator[tuple[object, str | None]]:
    """Each schema below a node, with its pointer (None where `pointer` is: not written)."""
    for keyword in _ONE_SCHEMA:
        if isinstance(node.get(keyword), dict):
            yield node[keyword], pointer and pointer + _step(keyword)
    for keyword in _SCHEMA_LISTS:
        if isinstance(node.get(keyword), list):
            for index, item in enumerate(node[keyword]):
                yield item, pointer and pointer + _step(keyword) + _step(index)
    for keyword in _SCHEMA_MAPS:
        if isinstance(node.get(keyword), dict):
            for name, item in node[keyword].items():
                yield item, pointer and pointer + _step(keyword) + _step(name)


Key = str | int


def schema_nodes(schema: object, written_to: int | None = None) -> dict[Key, Key | None]:
    """Every node of a schema an argument can meet, by JSON pointer, with the pointer of the
    node it was first reached from (None for the root). A `$ref`'s target is reached from it
    (one step of a chain at a time, so a chain costs its length). Past `written_to` levels of
    nesting, a node's key is a number (in the order of the walk) rather than its pointer,
    so that a schema nested thousands deep costs its size, not its depth times its size."""
    parents: dict[Key, Key | None] = {}
    pointers: dict[int, str] | None = None
    unwritten = itertools.count()
    pending: list[tuple[object, Key, Key | None, RefScope, int]] = [
        (schema, "#", None, root_scope(schema, draft_of(schema)), 0)]
    seen: set[int] = set()  # a Python object that contains itself is counted once
    while pending:
        node, pointer, parent, scope, depth = pending.pop()
        if pointer in parents or id(node) in seen:
            continue
        parents[pointer] = parent
        if not isinstance(node, dict):
            continue
        seen.add(id(node))
        scope = scope.within(node)
        found = scope.lookup(node["$ref"]) if "$ref" in node else None
        if found is not None:
            pointers = pointers if pointers is not None else pointers_by_node(schema)
            target = pointers.get(id(found[0]))
            if target is not None and target != pointer:
                pending.append((found[0], target, pointer, found[1], depth + 1))
        written = pointer if isinstance(pointer, str) and (written_to is None or depth < written_to) else None
        pending.extend((child, next(unwritten) if where is None else where, pointer, scope, depth + 1)
                       for child, where in reversed(list(_below(node, written))))
    return parents


@frozen
class Coverage:
    """Of a schema's nodes, how many a table judges, and per trigger how many it skips."""

    nodes: int
    judged: int
    skipped: dict[str, int] = field(factory=dict)

    @property
    def share(self) -> float:
        return self.judged / self.nodes if self.nodes else 1.0


def coverage(schema: object, table: Table) -> Coverage:
    nodes, unjudged = unjudged_nodes(schema, table)
    skipped = Counter(unjudged.values())
    return Coverage(nodes, nodes - len(unjudged), dict(sorted(skipped.items())))


def unjudged_nodes(schema: object, table: Table) -> tuple[int, dict[Key, str]]:
    """How many nodes a schema has, and each node the table does not judge (its JSON
    pointer, or past the depth the compiler reaches, its number in the walk) with why."""
    visits: list[tuple[str, str | None]] = []
    compile_node(schema, table, visits)
    parents = schema_nodes(schema, compiled_table(table).depth + 2)
    if any(pointer not in parents for pointer, _ in visits):  # reached deeper: by a `$ref`
        parents = schema_nodes(schema)
    reasons: dict[Key, str | None] = {}
    for pointer, reason in visits:
        reasons.setdefault(pointer, reason)
    unjudged: dict[Key, str] = {}
    below: dict[Key, str] = {}
    for key in parents:
        reason = _reason(key, parents, reasons, below)
        if reason is not None:
            unjudged[key] = reason
    return len(parents), unjudged


def not_judged(schema: object, table: Table) -> Mapping[str, int]:
    """How many of a schema's nodes the table does not judge, per reason (sorted by reason;
    empty where every node is judged): what every verdict on it carries. A schema of plain
    typed nodes (most are) is told by one look at each when it is compiled; any other is
    measured as `coverage` measures it, once, when a host first reads the counts (never while
    compiling or checking: a measure costs about a compile). Until then the counts keep the
    schema, and measure it as it is then: a schema changed after it was compiled is measured
    changed."""
    if surely_judged(schema, compiled_table(table)):
        return ALL_JUDGED
    return Counts(measure=lambda: coverage(schema, table).skipped)


#: What keeps `surely_judged` from vouching for a node: a keyword with schemas below it that
#: the shipped kinds may not compile, or one that reads another document or draft.
_NOT_PLAIN = frozenset(_ONE_SCHEMA + _SCHEMA_LISTS + _SCHEMA_MAPS) - {"properties", "items", "additionalProperties"} \
    | {"$ref", "$schema", "$dynamicRef", "$recursiveRef"}
#: The skip triggers whose keywords `surely_judged` reads itself (`type`) or never lets by.
_KNOWN_TRIGGERS = frozenset({"malformed-type", "unknown-type", "unresolved-ref", "mixed-union"})


def surely_judged(schema: object, table: CompiledTable) -> bool:
    """Whether every node of a schema is, to one look at each, judged by the table: only
    objects of types the table declares, without a keyword it skips or one with schemas
    below it but `properties` and an `items` object (which the shipped kinds compile), within
    the depth limit. False says nothing (`coverage` decides), so this may only be too careful."""
    look = _LOOKS.get(id(table))
    if look is None or look.table is not table:
        look = _LOOKS[id(table)] = _Look(table)
    return look.blocked is not None and look.plain(schema, 0)


class _Look:
    """What `surely_judged` reads of a table, made once per table: the keywords that keep
    it from vouching for a node (None: it vouches for none), and per type the table
    declares, whether an object and a list are looked into there."""

    __slots__ = ("table", "blocked", "depth", "by_type")

    def __init__(self, table: CompiledTable):
        kinds = {entry.kind for entry in table.table.rules}
        vouches = table.plain_leaf_keys is not None and "elements" in kinds \
            and not kinds.isdisjoint(("members", "members-and-extra")) \
            and all(trigger in _KNOWN_TRIGGERS for trigger, _ in table.trigger_skips)
        self.table, self.depth = table, table.depth
        self.blocked = _NOT_PLAIN | table.skip_keywords if vouches else None
        self.by_type: dict[str | None, tuple[bool, bool]] = {
            name: table.type_facts((name,))[2:] for name in table.type_names}
        self.by_type[None] = table.type_facts(None)[2:]

    def plain(self, node: object, depth: int) -> bool:
        if type(node) is not dict or depth >= self.depth or not self.blocked.isdisjoint(node):  # type: ignore[union-attr]
            return False
        declared = node.get("type")
        judged = self.by_type.get(declared) if declared is None or type(declared) is str else self._listed(node)
        if judged is None:
            return False
        properties, items = node.get("properties"), node.get("items")
        if properties is not None and not (judged[0] and type(properties) is dict and all(
                self.plain(child, depth + 1) for child in properties.values())):
            return False
        if items is not None and not (judged[1] and self.plain(items, depth + 1)):
            return False
        return type(node.get("additionalProperties", False)) is bool

    def _listed(self, node: dict[str, object]) -> tuple[bool, bool] | None:
        """For a list of types: whether an object and a list are looked into; None where a
        type is malformed or one the table does not declare."""
        types = declared_types(node)
        if not types or not self.table.type_names.issuperset(types):
            return None
        return self.table.type_facts(types)[2:]


_LOOKS: dict[int, _Look] = {}  # by table, as `compiled_table` keeps them (each table is kept)


def _reason(pointer: Key, parents: dict[Key, Key | None], reasons: dict[Key, str | None],
            below: dict[Key, str]) -> str | None:
    """A node's own skip reason if the compiler reached it, else its nearest reached
    ancestor's; a node below a judged one that was never reached (a keyword the table does
    not read, such as allOf under extended) counts as "not read". What a node not reached
    counts under is kept in `below`, so a long chain of them is walked once, not per node."""
    if pointer in reasons:
        return reasons[pointer]
    chain: list[Key] = []
    at: Key | None = pointer
    while at is not None and at not in reasons and at not in below:
        chain.append(at)
        at = parents[at]
    found = "not read" if at is None else below[at] if at in below else reasons[at] or "not read"
    for walked in chain:
        below[walked] = found
    return found


def combined(parts: list[Coverage]) -> Coverage:
    skipped: Counter[str] = Counter()
    for part in parts:
        skipped.update(part.skipped)
    return Coverage(sum(p.nodes for p in parts), sum(p.judged for p in parts), dict(sorted(skipped.items())))


def tool_schemas(document: object) -> list[tuple[str, object]]:
    """The (name, schema) pairs of a file: a schema itself, or tools as MCP (`inputSchema`),
    Anthropic (`input_schema`) or OpenAI (`parameters`, `function.parameters`) list them,
    under "tools" or as a list."""
    tools = document.get("tools") if isinstance(document, dict) and "tools" in document else document
    if not isinstance(tools, list):
        return [("schema", document)]
    found = []
    for index, tool in enumerate(tools):
        tool = tool.get("function", tool) if isinstance(tool, dict) else tool
        if not isinstance(tool, dict):
            continue
        for key in ("inputSchema", "input_schema", "parameters"):
            if key in tool:
                found.append((str(tool.get("name", index)), tool[key]))
                break
    return found
