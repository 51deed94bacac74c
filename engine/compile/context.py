"""What a rule kind may ask about the schema node it compiles from (`kinds.contracts.
SchemaContext`), as the compiler answers it: its declared types, its children's compiled
nodes (or links to them), what its union branches and `$ref` lead to."""

from __future__ import annotations

from typing import Any, TYPE_CHECKING

from ..values.kinds import BASE_KINDS
from ..values.quoting import pointer_step
from .links import Link
from .node import Node
from .reading import declared_types, skip_reason

if TYPE_CHECKING:
    from .compiled_table import CompiledTable
    from .drafts import Draft
    from .compiling import Compiling
    from .refs import RefScope


_NOTHING = Node()


class NodeContext:
    """What a rule kind may ask about the schema node it compiles from."""

    __slots__ = ("node", "compilation", "depth", "pointer", "scope", "draft", "table", "types", "admitted_kinds",
                 "judges_objects", "judges_lists")
    node: dict[str, Any]
    compilation: Compiling
    depth: int
    pointer: str
    scope: RefScope
    draft: Draft
    table: CompiledTable
    types: tuple[str, ...] | None
    admitted_kinds: frozenset[str] | None
    judges_objects: bool
    judges_lists: bool
    all_kinds: frozenset[str] = frozenset(BASE_KINDS)

    def __init__(self, node: dict[str, Any], compilation: Compiling, depth: int, pointer: str, scope: RefScope):
        self.node, self.compilation, self.depth = node, compilation, depth
        self.pointer, self.scope, self.draft = pointer, scope, compilation.draft
        self.table = table = compilation.table
        self.types, self.admitted_kinds, self.judges_objects, self.judges_lists = table.type_facts(declared_types(node))

    def trivial(self, node: Node) -> bool:
        """Whether a compiled child can be left out: when checking, if it judges nothing;
        when casting, if it also declares no type to cast to."""
        return node.inert if self.compilation.for_casts else node.judges_nothing

    def child(self, schema: object, *keys: object) -> Node | Link:
        """The compiled node of a subschema one level down (`keys` lead to it)."""
        compilation, depth = self.compilation, self.depth + 1
        if type(schema) is dict and compilation.judged_plain_leaf(schema, depth):
            # Shared by every schema, a plain leaf keeps no pointer of its own: none is built.
            return compilation.plain_leaf(schema, depth, self.pointer, self.scope)
        # Only coverage reads where a node sits: compiling to check builds no pointer.
        pointer = "" if compilation.visits is None else self.pointer + "".join("/" + pointer_step(key) for key in keys)
        return compilation.node(schema, depth, pointer, self.scope.within(schema))

    @staticmethod
    def judging_nothing() -> Node:
        """A node that judges nothing, for a place no rule can judge."""
        return _NOTHING

    def unused(self, schema: object, *keys: object) -> Node | Link:
        """A node for a subschema no value will be judged or cast by: compiled only where
        coverage counts what is reached."""
        return _NOTHING if self.compilation.visits is None else self.child(schema, *keys)

    @property
    def casts(self) -> bool:
        return self.compilation.for_casts

    def referenced(self) -> Node | Link | None:
        """The compiled target of this node's `$ref`, reached at this node's depth."""
        found = self.compilation.followed(self.node, self.scope)
        if found is None:
            return None
        return self.compilation.target(found[0], self.depth, found[1])

    def types_of(self, schema: object) -> tuple[str, ...]:
        """The declared types of a (plain, possibly referenced) union branch."""
        found = self.compilation.followed(schema, self.scope.within(schema))
        types = declared_types(found[0]) if found and isinstance(found[0], dict) else None
        known = self.table.type_names
        if not types or known.issuperset(types):
            return types or ()
        return tuple(name for name in types if name in known)

    def target_of(self, schema: object) -> object:
        """The schema a union branch is, its `$ref`s followed (None where they lead nowhere)."""
        found = self.compilation.followed(schema, self.scope.within(schema))
        return None if found is None else found[0]

    def natives_of(self, schema: object) -> frozenset[str]:
        """The base kinds a union branch's declared types are made for."""
        return self.table.natives(self.types_of(schema))

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

    def _judged_target(self, schema: object) -> dict[str, Any] | None:
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
