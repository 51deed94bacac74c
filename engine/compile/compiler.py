"""Compiling: a schema becomes a tree of rule objects, read once.

All schema reading happens here; checking only walks what this builds. Whatever cannot be
judged becomes a node with no rules, so compiling never raises on a JSON value. `$ref`s
(where a table resolves them, see `refs`) are compiled once per target, scope and depth, so
a cycle is unrolled only down to the depth limit, within a budget of work.
"""

from __future__ import annotations

from ..table.entries import Table
from ..values.kinds import BASE_KINDS, base_kind
from ..values.quoting import pointer_step
from .casting import Casting
from .compiled_table import CompiledTable, compiled_table
from .drafts import Draft, draft_of
from .exact import casts_below, exact_judge
from .node import Node
from .reading import declared_types, skip_reason
from .refs import JUDGING_KEYWORDS, RefScope, containers, pointers_by_node, root_scope


class Compilation:
    """One schema being compiled: its table and draft, the `$ref` targets compiled so far,
    and (for coverage) every node visited with why it was skipped, if it was.

    Following references is bounded by the schema's size: once a reference is followed,
    compiling has a budget of nodes (a multiple of the schema's objects and lists), past which
    nothing more is judged, so that many references to the root, or a long chain, cannot make
    compiling slow."""

    #: Nodes compiled per object or list of the schema before references are skipped.
    REF_BUDGET_PER_NODE = 8
    REF_BUDGET_FLOOR = 256

    def __init__(self, root: object, table: CompiledTable, visits: list | None = None, for_casts: bool = False):
        self.root, self.table, self.visits, self.for_casts = root, table, visits, for_casts
        self.draft: Draft = draft_of(root)
        self.targets: dict[tuple, Node] = {}
        self.seen: dict[tuple, Node] = {}
        self.chains: dict[tuple, tuple | None] = {}
        self.compiled = 0
        self.ref_budget: int | None = None  # set when the first reference is followed
        self.pointers: dict[int, str] | None = None
        self.leaf_keys = None if visits is not None else table.plain_leaf_keys

    def node(self, schema: object, depth: int, pointer: str, scope: RefScope) -> Node:
        # One schema object met again at the same depth compiles alike: a Python object that
        # contains itself twice would otherwise unroll into 2 ** depth nodes. (JSON text
        # never shares objects, so what coverage counts is unchanged.)
        if not isinstance(schema, dict):
            return self._node(schema, depth, pointer, scope)
        if self.judged_plain_leaf(schema, depth):
            return self.plain_leaf(schema, depth, pointer, scope)
        key = (id(schema), depth, id(scope))
        if key not in self.seen:
            self.seen[key] = self._node(schema, depth, pointer, scope)
        return self.seen[key]

    def _node(self, schema: object, depth: int, pointer: str, scope: RefScope) -> Node:
        over_budget = self.ref_budget is not None and self.compiled >= self.ref_budget
        self.compiled += not over_budget
        reason = "ref-budget" if over_budget else skip_reason(schema, self, depth, scope)
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
        casting = Casting(exact_judge(schema, self.draft, depth), casts_below(schema, self.draft), self.draft) \
            if self.for_casts else None
        return Node(entries, None, context.types or None, context.admitted_kinds or frozenset(), casting)

    def judged_plain_leaf(self, schema: dict, depth: int) -> bool:
        """Whether a schema is only a type the table declares (or none) and annotations,
        within the depth limit: no skip of the table applies to it."""
        if self.leaf_keys is None or not self.leaf_keys.issuperset(schema) or depth > self.table.depth:
            return False
        types = declared_types(schema)
        return types is None or (types != () and self.table.type_names.issuperset(types))

    def plain_leaf(self, schema: dict, depth: int, pointer: str, scope: RefScope) -> Node:
        """A schema of only a type and annotations (most properties are) compiles to a
        node that depends on its declared types alone: one per table and types serves every
        schema. Only types the table declares are shared, so what is kept stays bounded."""
        # Cast trees judge by the draft (is 1.0 an integer?), so theirs are kept apart.
        shared, key = self.table.plain_leaves, (declared_types(schema), self.for_casts and self.draft.name)
        if key not in shared:
            shared[key] = self._node(schema, depth, pointer, scope)
        return shared[key]

    def followed(self, node: object, scope: RefScope) -> tuple[object, RefScope] | None:
        """The node a chain of `$ref`s from `node` ends at, with its scope (see `refs`); None
        where a reference cannot be followed. Each link is followed once per scope, so a long
        chain costs its length, whichever of its links it is entered at."""
        walked: list[tuple] = []
        seen: set[int] = set()
        found: tuple | None = (node, scope)
        while type(node) is dict and "$ref" in node:
            key = (id(node), id(scope))
            if key in self.chains:
                found = self.chains[key]
                break
            if id(node) in seen or JUDGING_KEYWORDS.intersection(node) or not self._within_budget():
                found = None
                break
            seen.add(id(node))
            walked.append(key)
            self.compiled += 1  # a link followed is work the budget bounds, as a node compiled is
            found = scope.lookup(node["$ref"])
            if found is None:
                break
            node, scope = found
        for key in walked:
            self.chains[key] = found
        return found

    def target(self, schema: object, depth: int, scope: RefScope) -> Node:
        """The compiled node a reference leads to, once per target, scope and depth."""
        key = (id(schema), id(scope), depth)
        if key not in self.targets:
            self.targets[key] = Node(skipped="depth")  # a cycle at one depth judges nothing
            # Straight to `_node` (cached here already): compiling recurses once per level.
            self.targets[key] = self._node(schema, depth, self.pointer_of(schema), scope)
        return self.targets[key]

    def _within_budget(self) -> bool:
        if self.ref_budget is None:
            size = sum(1 for _ in containers(self.root))
            self.ref_budget = self.compiled + self.REF_BUDGET_PER_NODE * size + self.REF_BUDGET_FLOOR
        return self.compiled < self.ref_budget

    def pointer_of(self, schema: object) -> str:
        """Where a reference's target sits in the document (only coverage asks)."""
        if self.visits is None:
            return ""
        if self.pointers is None:
            self.pointers = pointers_by_node(self.root)
        return self.pointers.get(id(schema), "#")


def _step(key: object) -> str:
    return pointer_step(key)


class NodeContext:
    """What a rule kind may ask about the schema node it compiles from."""

    all_kinds = frozenset(BASE_KINDS)

    def __init__(self, node: dict, compilation: Compilation, depth: int, pointer: str, scope: RefScope):
        self.node, self.compilation, self.depth = node, compilation, depth
        self.pointer, self.scope, self.draft = pointer, scope, compilation.draft
        self.table = table = compilation.table
        self.types = declared_types(node)
        known = [table.type_by_name.get(name) for name in self.types or ()]
        self.admitted_kinds = None if not self.types or None in known else frozenset(
            kind for entry in known for kind in entry.admits)  # type: ignore[union-attr]
        natives = None if not self.types else {base_kind(e.native) for e in known if e is not None}
        self.judges_objects = natives is None or "object" in natives
        self.judges_lists = natives is None or "list" in natives

    def trivial(self, node: Node) -> bool:
        """Whether a compiled child can be left out: when checking, if it judges nothing;
        when casting, if it also declares no type to cast to."""
        return node.inert if self.compilation.for_casts else node.judges_nothing

    def child(self, schema: object, *keys: object) -> Node:
        """The compiled node of a subschema one level down (`keys` lead to it)."""
        compilation, depth = self.compilation, self.depth + 1
        if type(schema) is dict and compilation.judged_plain_leaf(schema, depth):
            # Shared by every schema, a plain leaf keeps no pointer of its own: none is built.
            return compilation.plain_leaf(schema, depth, self.pointer, self.scope)
        pointer = self.pointer + "".join("/" + _step(key) for key in keys)
        return compilation.node(schema, depth, pointer, self.scope.within(schema))

    @staticmethod
    def judging_nothing() -> Node:
        """A node that judges nothing, for a place no rule can judge."""
        return Node()

    def referenced(self) -> Node | None:
        """The compiled target of this node's `$ref`, at this node's depth."""
        found = self.compilation.followed(self.node, self.scope)
        if found is None:
            return None
        return self.compilation.target(found[0], self.depth, found[1])

    def types_of(self, schema: object) -> tuple[str, ...]:
        """The declared types of a (plain, possibly referenced) union branch."""
        found = self.compilation.followed(schema, self.scope.within(schema))
        types = declared_types(found[0]) if found and isinstance(found[0], dict) else None
        return tuple(name for name in types or () if name in self.table.type_by_name)

    def natives_of(self, schema: object) -> frozenset[str]:
        """The base kinds a union branch's declared types are made for."""
        return frozenset(base_kind(self.table.type_by_name[name].native) for name in self.types_of(schema))

    def property_null_facts(self, name: str) -> tuple[bool, tuple[str, ...]]:
        """Whether the property schema refuses null for a required argument, and its types.

        It admits null when absent, skipped, untyped, listing a type whose own kind is
        null, or marked `nullable: true`.
        """
        properties = self.node.get("properties")
        schema = properties.get(name) if isinstance(properties, dict) else None
        # A plain property is judged (no skip applies), so the skips need not be tried.
        if not (isinstance(schema, dict) and self.compilation.judged_plain_leaf(schema, self.depth + 1)):
            schema = self._judged_target(schema)
            if schema is None:
                return False, ()
        types = declared_types(schema) or ()
        natives = [e.native for t in types if (e := self.table.type_by_name.get(t))]
        refuses = bool(types) and "null" not in natives and schema.get("nullable") is not True
        return refuses, types

    def _judged_target(self, schema: object) -> dict | None:
        """A property schema, or what its `$ref` leads to, if the table judges it."""
        compilation, depth, scope = self.compilation, self.depth + 1, self.scope.within(schema)
        if not isinstance(schema, dict) or skip_reason(schema, compilation, depth, scope):
            return None
        if "$ref" in schema:
            found = compilation.followed(schema, scope)
            if found is None or not isinstance(found[0], dict) or skip_reason(*found[:1], compilation, depth, found[1]):
                return None
            schema = found[0]
        return schema


def compile_node(schema: object, table: Table, visits: list | None = None, for_casts: bool = False) -> Node:
    """The compiled root node of a schema under a table; `visits`, when given, receives
    each schema node visited (its pointer) with why it was skipped, or None. A tree
    compiled `for_casts` keeps the typed nodes that judge nothing, since they still cast."""
    compilation = Compilation(schema, compiled_table(table), visits, for_casts)
    return compilation.node(schema, 0, "#", root_scope(schema, compilation.draft))
