"""Measured coverage: the share of a schema's nodes a table judges, and why the rest are not.

A schema's nodes are the subschemas an argument can meet: below `properties`, `items`,
`prefixItems`, `additionalProperties`, the branches of `anyOf`/`oneOf`/`allOf`, `not`,
`if`/`then`/`else`, and the targets of local `$ref`s (each counted once). A node is judged
when the table's compiler reaches it and does not skip it; a node it never reaches counts
under the trigger that skipped its nearest reached ancestor.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterator

from attrs import field, frozen

from ..table.entries import Table
from ..values.quoting import pointer_step
from .compiler import compile_node
from .drafts import draft_of
from .refs import RefScope, pointers_by_node, root_scope

_ONE_SCHEMA = ("additionalProperties", "items", "not", "if", "then", "else", "contains",
               "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems")
_SCHEMA_LISTS = ("prefixItems", "items", "anyOf", "oneOf", "allOf")
_SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas")


def _step(key: object) -> str:
    return "/" + pointer_step(key)


def _below(node: dict[str, Any], pointer: str) -> Iterator[tuple[object, str]]:
    for keyword in _ONE_SCHEMA:
        if isinstance(node.get(keyword), dict):
            yield node[keyword], pointer + _step(keyword)
    for keyword in _SCHEMA_LISTS:
        if isinstance(node.get(keyword), list):
            for index, item in enumerate(node[keyword]):
                yield item, pointer + _step(keyword) + _step(index)
    for keyword in _SCHEMA_MAPS:
        if isinstance(node.get(keyword), dict):
            for name, item in node[keyword].items():
                yield item, pointer + _step(keyword) + _step(name)


def schema_nodes(schema: object) -> dict[str, str | None]:
    """Every node of a schema an argument can meet, by JSON pointer, with the pointer of the
    node it was first reached from (None for the root). A `$ref`'s target is reached from it
    (one step of a chain at a time, so a chain costs its length)."""
    parents: dict[str, str | None] = {}
    pointers: dict[int, str] | None = None
    pending: list[tuple[object, str, str | None, RefScope]] = [(schema, "#", None, root_scope(schema, draft_of(schema)))]
    seen: set[int] = set()  # a Python object that contains itself is counted once
    while pending:
        node, pointer, parent, scope = pending.pop()
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
                pending.append((found[0], target, pointer, found[1]))
        pending.extend((child, where, pointer, scope) for child, where in reversed(list(_below(node, pointer))))
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
    parents = schema_nodes(schema)
    visits: list[tuple[str, str | None]] = []
    compile_node(schema, table, visits)
    reasons: dict[str, str | None] = {}
    for pointer, reason in visits:
        reasons.setdefault(pointer, reason)
    skipped: Counter[str] = Counter()
    for pointer in parents:
        reason = _reason(pointer, parents, reasons)
        if reason is not None:
            skipped[reason] += 1
    judged = len(parents) - sum(skipped.values())
    return Coverage(len(parents), judged, dict(sorted(skipped.items())))


def _reason(pointer: str, parents: dict[str, str | None], reasons: dict[str, str | None]) -> str | None:
    """A node's own skip reason if the compiler reached it, else its nearest reached
    ancestor's; a node below a judged one that was never reached (a keyword the table does
    not read, such as allOf under extended) counts as "not read"."""
    at: str | None = pointer
    first = True
    while at is not None:
        if at in reasons:
            reason = reasons[at]
            return reason if reason is not None or first else "not read"
        at, first = parents[at], False
    return "not read"


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
