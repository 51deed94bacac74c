"""Compiling: a schema becomes a tree of rule objects, read once.

All schema reading happens here; checking only walks what this builds. Whatever cannot be
judged becomes a node with no rules, so compiling never raises on a JSON value. Each schema
node is compiled once per base URI: a `$ref` (where a table resolves them, see `refs`) is a
link to its target's node (see `links`), so compiling costs the schema's size whatever its
references, and a cycle is judged, while checking, down to the depth limit only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import heapq
import itertools

from ..kinds.union import UnionRule
from ..table.entries import Table
from .casting import Casting
from .compiled_table import CompiledTable, compiled_table
from .drafts import Draft, draft_of
from .exact import casts_below, exact_judge, judged_by_branches, judges_made_once
from .context import NodeContext
from .links import Link, Placed
from .node import Node
from .reading import declared_types, skip_reason
from .refs import JUDGING_KEYWORDS, RefScope, pointers_by_node, root_scope

if TYPE_CHECKING:
    from itertools import count


class Compilation:
    """One schema being compiled: its table and draft, where each schema node is compiled,
    and (for coverage) every node visited with why it was skipped, if it was.

    Each schema node is compiled once per base URI, however many `$ref`s lead to it: a
    reference is a link (see `links`) to the node its target compiles to. Targets wait in a
    queue and are compiled shallowest first, each at the shallowest depth a reference asks
    for it, so a link from deeper (a cycle, a reference back to the root) is guarded by the
    depth limit while checking, and compiling costs the schema's size, not that times the
    number of references or the depth of their cycles."""

    root: object
    table: CompiledTable
    visits: list[Any] | None
    for_casts: bool
    asked: count[int]
    compiled: int
    leaf_keys: None | frozenset[str]
    ref_keys: None | frozenset[str]

    def __init__(self, root: object, table: CompiledTable, visits: list[Any] | None = None, for_casts: bool = False):
        self.root, self.table, self.visits, self.for_casts = root, table, visits, for_casts
        self.draft: Draft = draft_of(root)
        self.placed: dict[tuple[int, int], Placed] = {}
        self.waiting: list[tuple[int, int, Placed]] = []  # targets by depth, then by order asked
        self.asked = itertools.count()
        self.links: dict[tuple[int, int], Link] = {}  # by target and depth reached from
        self.seen: dict[tuple[Any, ...], tuple[Node, RefScope]] = {}
        self.chains: dict[tuple[Any, ...], tuple[Any, ...] | None] = {}
        self.compiled = 0  # nodes compiled and reference links followed: the work done
        self.pointers: dict[int, str] | None = None
        self.leaf_keys = None if visits is not None else table.plain_leaf_keys
        self.ref_keys = None if visits is not None else table.plain_ref_keys

    def compile(self, scope: RefScope) -> Node | Link:
        """The root's node, once every target a reference leads to is compiled too."""
        root = self.node(self.root, 0, "#", scope)
        while self.waiting:
            depth, _, placed = heapq.heappop(self.waiting)
            if not placed.started and depth == placed.depth:
                self._compile_placed(placed)
        for link in self.links.values():
            if not hasattr(link, "_fits"):
                link.bind(self.table.depth)
        return root

    def node(self, schema: object, depth: int, pointer: str, scope: RefScope) -> Node | Link:
        """The compiled node of a schema node reached by walking down to it at `depth`."""
        if not isinstance(schema, dict) or depth > self.table.depth:
            return self._node(schema, depth, pointer, scope)  # skipped, so placed nowhere
        if self.judged_plain_leaf(schema, depth):
            return self.plain_leaf(schema, depth, pointer, scope)
        if "$ref" in schema and self.ref_keys is not None and self.ref_keys.issuperset(schema) \
                and depth <= self.table.depth and (found := self.followed(schema, scope)) is not None:
            return self.target(found[0], depth, found[1])  # a plain reference is its target
        placed = self.placed.get((id(schema), id(scope)))
        if placed is None:
            placed = self.placed[(id(schema), id(scope))] = Placed(schema, scope, depth, pointer)
        if not placed.started:  # never compiled, or waiting as a target: compiled here
            placed.depth = depth
            return self._compile_placed(placed)
        if placed.node is not None:
            return placed.node if placed.depth >= depth else self._link(placed, depth)
        # Being compiled: a Python object that contains itself (JSON never does). Each depth
        # compiles alike, down to the limit; once per depth, or it would unroll 2 ** depth.
        key = (id(schema), depth, id(scope))
        if key not in self.seen:
            self.seen[key] = (self._node(schema, depth, pointer, scope), scope)
        return self.seen[key][0]

    def _compile_placed(self, placed: Placed) -> Node:
        placed.started = True
        placed.node = self._node(placed.schema, placed.depth, placed.pointer, placed.scope)  # type: ignore[arg-type]
        return placed.node

    def _link(self, placed: Placed, depth: int) -> Link:
        """The link to a node from `depth`, one per node and depth."""
        key = (id(placed), depth)
        if key not in self.links:
            self.links[key] = Link(placed, depth, self.table.depth)
        return self.links[key]

    def _node(self, schema: object, depth: int, pointer: str, scope: RefScope) -> Node:
        self.compiled += 1
        reason = skip_reason(schema, self, depth, scope)
        if self.visits is not None:
            self.visits.append((pointer, reason))
        if reason is not None:
            return Node(skipped=reason)
        context = NodeContext(schema, self, depth, pointer, scope)  # type: ignore[arg-type]
        entries = []
        for kind, stops in self.table.rule_kinds:
            rule = kind.from_node(schema, context)
            if rule is not None:
                entries.append((rule, stops))
        casting = self._casting(schema, depth, entries) if self.for_casts else None  # type: ignore[arg-type]
        return Node(entries, None, context.types or None, context.admitted_kinds or frozenset(), casting)

    def _casting(self, schema: dict[str, Any], depth: int, entries: list[Any]) -> Casting:
        below = casts_below(schema, self.draft)
        by_branches = below and any(type(rule) is UnionRule for rule, _ in entries)  # a union alone
        return Casting(judged_by_branches if by_branches else exact_judge(schema, self.draft, depth), below,
                       self.draft)

    def judged_plain_leaf(self, schema: dict[str, Any], depth: int) -> bool:
        """Whether a schema is only a type the table declares (or none) and annotations,
        within the depth limit: no skip of the table applies to it."""
        if self.leaf_keys is None or not self.leaf_keys.issuperset(schema) or depth > self.table.depth:
            return False
        types = declared_types(schema)
        return types is None or (types != () and self.table.type_names.issuperset(types))

    def plain_leaf(self, schema: dict[str, Any], depth: int, pointer: str, scope: RefScope) -> Node:
        """A schema of only a type and annotations (most properties are) compiles to a
        node that depends on its declared types alone: one per table and types serves every
        schema. Only types the table declares are shared, so what is kept stays bounded."""
        # Cast trees judge by the draft (is 1.0 an integer?), so theirs are kept apart.
        shared, key = self.table.plain_leaves, (declared_types(schema), self.for_casts and self.draft.name)
        if key not in shared:
            shared[key] = self._node(schema, depth, pointer, scope)
        leaf: Node = shared[key]
        return leaf

    def followed(self, node: object, scope: RefScope) -> tuple[object, RefScope] | None:
        """The node a chain of `$ref`s from `node` ends at, with its scope (see `refs`); None
        where a reference cannot be followed. Each link is followed once per scope, so a long
        chain costs its length, whichever of its links it is entered at."""
        walked: list[tuple[Any, ...]] = []
        seen: set[int] = set()
        found: tuple[Any, ...] | None = (node, scope)
        while type(node) is dict and "$ref" in node:
            key = (id(node), id(scope))
            if key in self.chains:
                found = self.chains[key]
                break
            if id(node) in seen or JUDGING_KEYWORDS.intersection(node):
                found = None
                break
            seen.add(id(node))
            walked.append(key)
            self.compiled += 1
            found = scope.lookup(node["$ref"])
            if found is None:
                break
            node, scope = found
        for key in walked:
            self.chains[key] = found
        return found

    def target(self, schema: object, depth: int, scope: RefScope) -> Node | Link:
        """The compiled node a reference at `depth` leads to: a link to the node the target
        compiles to, compiled (once) at the shallowest depth a reference asks for it."""
        placed = self.placed.get((id(schema), id(scope)))
        if placed is not None and depth > self.table.depth:
            placed = None  # skipped at this depth (below)
        if placed is None:
            if type(schema) is not dict or skip_reason(schema, self, depth, scope) is not None:
                return self._node(schema, depth, self.pointer_of(schema), scope)  # judges nothing here
            if self.judged_plain_leaf(schema, depth):
                return self.plain_leaf(schema, depth, "", scope)
            placed = self.placed[(id(schema), id(scope))] = Placed(schema, scope, depth, self.pointer_of(schema))
            heapq.heappush(self.waiting, (depth, next(self.asked), placed))
        elif not placed.started and depth < placed.depth:
            placed.depth = depth
            heapq.heappush(self.waiting, (depth, next(self.asked), placed))
        return self._link(placed, depth)

    def pointer_of(self, schema: object) -> str:
        """Where a reference's target sits in the document (only coverage asks)."""
        if self.visits is None:
            return ""
        if self.pointers is None:
            self.pointers = pointers_by_node(self.root)
        return self.pointers.get(id(schema), "#")


def compile_node(schema: object, table: Table, visits: list[Any] | None = None, for_casts: bool = False) -> Node:
    """The compiled root node of a schema under a table; `visits`, when given, receives
    each schema node visited (its pointer) with why it was skipped, or None. A tree
    compiled `for_casts` keeps the typed nodes that judge nothing, since they still cast."""
    compilation = Compilation(schema, compiled_table(table), visits, for_casts)
    # A root is never a link: a root of a `$ref` and annotations alone leads nowhere else.
    if not for_casts:
        return compilation.compile(root_scope(schema, compilation.draft))  # type: ignore[return-value]
    with judges_made_once():
        return compilation.compile(root_scope(schema, compilation.draft))  # type: ignore[return-value]
