"""Compiling: a schema becomes a tree of rule objects, read once.

All schema reading happens here; checking only walks what this builds. Whatever cannot be
judged becomes a node with no rules, so compiling never raises on a JSON value. Local
`$ref`s (where a table resolves them) are compiled once per target and depth, so a cycle is
unrolled only down to the depth limit.
"""

from __future__ import annotations

from typing import Any, Callable

from attrs import field, frozen

from .casts import Casting, cast_node
from .drafts import Draft, draft_of, switches_draft
from .exact import casts_below, exact_judge
from .fast import all_of
from .interpreter import node_collector
from .refs import JUDGING_KEYWORDS, RefScope, containers, pointers_by_node, root_scope
from .registry import RULE_KINDS, SHIPPED_KINDS
from .rules import KindRule
from .table import Table
from .values import BASE_KINDS, base_kind

#: Keywords that make a union branch more than a plain typed node.
UNION_BREAKERS = ("anyOf", "oneOf", "allOf", "not", "if")
#: Keywords that only annotate a schema: no rule kind the engine ships reads them.
ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment", "format",
                         "deprecated", "readOnly", "writeOnly"})


@frozen
class Node:
    """A compiled schema node: its rules in table order, each with whether a mismatch it
    reports ends the node; its declared types and what they admit (for casts); and, for a
    node that is not judged, why (coverage reports it)."""

    entries: tuple[tuple[Any, bool], ...] = field(converter=tuple, default=())
    skipped: str | None = None
    types: tuple[str, ...] | None = None
    admitted: frozenset[str] = frozenset()
    casting: Casting | None = None  # in a tree compiled for casts
    fits: Callable[[object], bool] = field(init=False, eq=False, repr=False)
    collect: Callable = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "fits", all_of(tuple(rule.fits for rule, _ in self.entries)))
        object.__setattr__(self, "collect", node_collector(self.entries))

    @property
    def type_rule(self) -> KindRule | None:
        """The node's one rule when it judges by type alone: the types whose values it
        passes or refuses outright let a parent skip `fits`, or word a refusal at compile
        time."""
        if len(self.entries) == 1 and type(self.entries[0][0]) is KindRule:
            return self.entries[0][0]
        return None

    @property
    def passing_types(self) -> frozenset | None:
        """The exact types whose values this node passes by their type alone."""
        rule = self.type_rule
        return None if rule is None else rule.passing_types

    @property
    def fits_all(self) -> bool:
        return not self.entries

    @property
    def inert(self) -> bool:
        """Nothing to check and nothing to cast."""
        return not self.entries and not self.types

    def cast(self, value: object, caster) -> object:
        """The value with the exact casts this node and those below it allow (see `casts`)."""
        return cast_node(self, value, caster)


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


def _unknown_type(node: dict, table: Table, compilation: Compilation, scope: RefScope) -> bool:
    return any(name not in table.type_by_name for name in declared_types(node) or ())


def _plain_branch(branch: object, table: Table, compilation: Compilation, scope: RefScope) -> bool:
    found = compilation.followed(branch, scope.within(branch))
    if found is None or not isinstance(found[0], dict):
        return False
    target = found[0]
    types = declared_types(target)
    return bool(types) and all(name in table.type_by_name for name in types) \
        and not any(keyword in target for keyword in (*UNION_BREAKERS, *table.skip_keywords))


def _mixed_union(node: dict, table: Table, compilation: Compilation, scope: RefScope) -> bool:
    unions = [node[k] for k in ("anyOf", "oneOf") if k in node]
    return any(type(u) is not list or not u or not all(_plain_branch(b, table, compilation, scope) for b in u)
               for u in unions)


def _unresolved_ref(node: dict, table: Table, compilation: Compilation, scope: RefScope) -> bool:
    return "$ref" in node and compilation.followed(node, scope) is None


TRIGGERS: dict[str, Callable[[dict, Table, Compilation, RefScope], bool]] = {
    "malformed-type": lambda node, table, compilation, scope: declared_types(node) == (),
    "unknown-type": _unknown_type,
    "unresolved-ref": _unresolved_ref,
    "mixed-union": _mixed_union,
}


def skip_reason(node: object, compilation: Compilation, depth: int, scope: RefScope) -> str | None:
    """Why a schema node is not judged: not an object, too deep, read as another draft (its
    own `$schema`), or the first trigger of the table that applies."""
    if not isinstance(node, dict):
        return "not-object"
    table = compilation.table
    if depth > table.limit["depth"]:
        return "depth"
    if switches_draft(node, compilation.draft):
        return "other-draft"
    for entry in table.skips:
        if entry.trigger == "keyword":
            if entry.argument in node:
                return entry.argument
        elif entry.trigger in TRIGGERS and TRIGGERS[entry.trigger](node, table, compilation, scope):
            return entry.trigger
    return None


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

    def __init__(self, root: object, table: Table, visits: list | None = None, for_casts: bool = False):
        self.root, self.table, self.visits, self.for_casts = root, table, visits, for_casts
        self.draft: Draft = draft_of(root)
        self.targets: dict[tuple, Node] = {}
        self.seen: dict[tuple, Node] = {}
        self.chains: dict[tuple, tuple | None] = {}
        self.compiled = 0
        self.ref_budget: int | None = None  # set when the first reference is followed
        self.pointers: dict[int, str] | None = None
        self.leaf_keys = None if visits is not None else plain_leaf_keys(table)

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
        for entry in self.table.rules:
            rule = RULE_KINDS[entry.kind].from_node(schema, context)
            if rule is not None:
                entries.append((rule, entry.stops))
        casting = Casting(exact_judge(schema, self.draft, depth), casts_below(schema), self.draft) \
            if self.for_casts else None
        return Node(entries, None, context.types or None, context.admitted_kinds or frozenset(), casting)

    def judged_plain_leaf(self, schema: dict, depth: int) -> bool:
        """Whether a schema is only a type the table declares (or none) and annotations,
        within the depth limit: no skip of the table applies to it."""
        if self.leaf_keys is None or not self.leaf_keys.issuperset(schema) or depth > self.table.limit["depth"]:
            return False
        types = declared_types(schema)
        return types is None or (types != () and self.table.type_names.issuperset(types))

    def plain_leaf(self, schema: dict, depth: int, pointer: str, scope: RefScope) -> Node:
        """A schema of only a type and annotations (most properties are) compiles to a
        node that depends on its declared types alone: one per table and types serves every
        schema. Only types the table declares are shared, so what is kept stays bounded."""
        types = declared_types(schema)
        # Cast trees judge by the draft (is 1.0 an integer?), so theirs are kept apart.
        made, key = self.table.made, ("plain leaf", types, self.for_casts and self.draft.name)
        if key not in made:
            made[key] = self._node(schema, depth, pointer, scope)
        return made[key]

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
            self.targets[key] = self.node(schema, depth, self.pointer_of(schema), scope)
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


def plain_leaf_keys(table: Table) -> frozenset[str] | None:
    """The keywords a schema may have, besides `type`, to compile as a plain leaf: the
    annotations no rule of this table reads and no skip names; None when a rule kind of the
    table is not one the engine ships (a host's kind may read any keyword)."""
    made = table.made
    if "plain leaf keys" not in made:
        shipped = all(RULE_KINDS.get(entry.kind) in SHIPPED_KINDS for entry in table.rules)
        keys = (ANNOTATIONS | {"type"}) - table.skip_keywords
        made["plain leaf keys"] = frozenset(keys) if shipped and "type" in keys else None
    return made["plain leaf keys"]


def _step(key: object) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


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
        return node.inert if self.compilation.for_casts else node.fits_all

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
    compilation = Compilation(schema, table, visits, for_casts)
    return compilation.node(schema, 0, "#", root_scope(schema, compilation.draft))
