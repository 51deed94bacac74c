"""Compiling: a schema becomes a tree of rule objects, read once.

All schema reading happens here; checking only walks what this builds. Whatever cannot be
judged becomes a node with no rules, so compiling never raises on a JSON value. Local
`$ref`s (where a table resolves them) are compiled once per target and depth, so a cycle is
unrolled only down to the depth limit.
"""

from __future__ import annotations

from typing import Any, Callable

from attrs import field, frozen

from .casts import apply_type_cast
from .fast import all_of
from .interpreter import node_collector
from .registry import RULE_KINDS, SHIPPED_KINDS
from .rules import KindRule
from .table import Table
from .refs import Resource, follow_refs
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
        """The value with the exact casts this node and those below it allow."""
        if self.types:
            value = apply_type_cast(self.types, value, self.admitted, caster)
        for rule, _ in self.entries:
            if hasattr(rule, "cast"):
                value = rule.cast(value, caster)
        return value


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


def _unknown_type(node: dict, table: Table, resource: Resource) -> bool:
    return any(name not in table.type_by_name for name in declared_types(node) or ())


def _plain_branch(branch: object, table: Table, resource: Resource) -> bool:
    found = follow_refs(branch, resource, "")
    if found is None or not isinstance(found[0], dict):
        return False
    target = found[0]
    types = declared_types(target)
    return bool(types) and all(name in table.type_by_name for name in types) \
        and not any(keyword in target for keyword in (*UNION_BREAKERS, *table.skip_keywords))


def _mixed_union(node: dict, table: Table, resource: Resource) -> bool:
    unions = [node[k] for k in ("anyOf", "oneOf") if k in node]
    return any(type(u) is not list or not u or not all(_plain_branch(b, table, resource) for b in u)
               for u in unions)


TRIGGERS: dict[str, Callable[[dict, Table, Resource], bool]] = {
    "malformed-type": lambda node, table, resource: declared_types(node) == (),
    "unknown-type": _unknown_type,
    "unresolved-ref": lambda node, table, resource: "$ref" in node and follow_refs(node, resource, "") is None,
    "mixed-union": _mixed_union,
}


def skip_reason(node: object, table: Table, depth: int, resource: Resource | None = None) -> str | None:
    """Why a schema node is not judged (the first trigger of the table that applies)."""
    if not isinstance(node, dict):
        return "not-object"
    if depth > table.limit["depth"]:
        return "depth"
    resource = resource or Resource(node, "#")
    for entry in table.skips:
        if entry.trigger == "keyword":
            if entry.argument in node:
                return entry.argument
        elif entry.trigger in TRIGGERS and TRIGGERS[entry.trigger](node, table, resource):
            return entry.trigger
    return None


class Compilation:
    """One schema being compiled: its table, the `$ref` targets compiled so far, and (for
    coverage) every node visited with why it was skipped, if it was."""

    def __init__(self, table: Table, visits: list | None = None, for_casts: bool = False):
        self.table, self.visits, self.for_casts = table, visits, for_casts
        self.targets: dict[tuple, Node] = {}
        self.seen: dict[tuple, Node] = {}
        self.leaf_keys = None if visits is not None else plain_leaf_keys(table)

    def node(self, schema: object, depth: int, pointer: str, resource: Resource) -> Node:
        # One schema object met again at the same depth compiles alike: a Python object that
        # contains itself twice would otherwise unroll into 2 ** depth nodes. (JSON text
        # never shares objects, so what coverage counts is unchanged.)
        if not isinstance(schema, dict):
            return self._node(schema, depth, pointer, resource)
        if self.judged_plain_leaf(schema, depth):
            return self.plain_leaf(schema, depth, pointer, resource)
        key = (id(schema), depth, id(resource.schema))
        if key not in self.seen:
            self.seen[key] = self._node(schema, depth, pointer, resource)
        return self.seen[key]

    def _node(self, schema: object, depth: int, pointer: str, resource: Resource) -> Node:
        if isinstance(schema, dict) and isinstance(schema.get("$id"), str) and \
                not schema["$id"].startswith("#") and pointer != resource.pointer:
            resource = Resource(schema, pointer)
        reason = skip_reason(schema, self.table, depth, resource)
        if self.visits is not None:
            self.visits.append((pointer, reason))
        if reason is not None:
            return Node(skipped=reason)
        context = NodeContext(schema, self, depth, pointer, resource)  # type: ignore[arg-type]
        entries = []
        for entry in self.table.rules:
            rule = RULE_KINDS[entry.kind].from_node(schema, context)
            if rule is not None:
                entries.append((rule, entry.stops))
        return Node(entries, None, context.types or None, context.admitted_kinds or frozenset())

    def judged_plain_leaf(self, schema: dict, depth: int) -> bool:
        """Whether a schema is only a type the table declares (or none) and annotations,
        within the depth limit: no skip of the table applies to it."""
        if self.leaf_keys is None or not self.leaf_keys.issuperset(schema) or depth > self.table.limit["depth"]:
            return False
        types = declared_types(schema)
        return types is None or (types != () and self.table.type_names.issuperset(types))

    def plain_leaf(self, schema: dict, depth: int, pointer: str, resource: Resource) -> Node:
        """A schema of only a type and annotations (most properties are) compiles to a
        node that depends on its declared types alone: one per table and types serves every
        schema. Only types the table declares are shared, so what is kept stays bounded."""
        types = declared_types(schema)
        made, key = self.table.made, ("plain leaf", types)
        if key not in made:
            made[key] = self._node(schema, depth, pointer, resource)
        return made[key]

    def target(self, schema: object, depth: int, pointer: str, resource: Resource) -> Node:
        key = (id(resource.schema), pointer, depth)
        if key not in self.targets:
            self.targets[key] = Node(skipped="depth")  # a cycle at one depth judges nothing
            self.targets[key] = self.node(schema, depth, pointer, resource)
        return self.targets[key]


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

    def __init__(self, node: dict, compilation: Compilation, depth: int, pointer: str, resource: Resource):
        self.node, self.compilation, self.depth = node, compilation, depth
        self.pointer, self.resource = pointer, resource
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
            return compilation.plain_leaf(schema, depth, self.pointer, self.resource)
        pointer = self.pointer + "".join("/" + _step(key) for key in keys)
        return compilation.node(schema, depth, pointer, self.resource)

    def referenced(self) -> Node | None:
        """The compiled target of this node's `$ref`, at this node's depth."""
        found = follow_refs(self.node, self.resource, self.pointer)
        if found is None:
            return None
        return self.compilation.target(found[0], self.depth, found[1], self.resource)

    def types_of(self, schema: object) -> tuple[str, ...]:
        """The declared types of a (plain, possibly referenced) union branch."""
        found = follow_refs(schema, self.resource, "")
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
            for _ in range(2):  # the property schema, then what its `$ref` leads to
                if not isinstance(schema, dict) or skip_reason(schema, self.table, self.depth + 1, self.resource):
                    return False, ()
                if "$ref" not in schema:
                    break
                found = follow_refs(schema, self.resource, "")
                schema = found[0] if found else None
        types = declared_types(schema) or ()
        natives = [e.native for t in types if (e := self.table.type_by_name.get(t))]
        refuses = bool(types) and "null" not in natives and schema.get("nullable") is not True
        return refuses, types


def compile_node(schema: object, table: Table, visits: list | None = None, for_casts: bool = False) -> Node:
    """The compiled root node of a schema under a table; `visits`, when given, receives
    each schema node visited (its pointer) with why it was skipped, or None. A tree
    compiled `for_casts` keeps the typed nodes that judge nothing, since they still cast."""
    return Compilation(table, visits, for_casts).node(schema, 0, "#", Resource(schema, "#"))
