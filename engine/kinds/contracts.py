"""What a rule kind may ask of the compiler when it reads a schema node, and what a compiled
node offers it: the two sides the compiler (`compile`) implements. A host's rule kind is
written against these too."""

from __future__ import annotations

from typing import Any, Callable, Protocol


class CompiledNode(Protocol):
    """A compiled schema node, as a rule kind that looks below its own node uses one."""

    fits: Callable[[object], bool]  # the node's fast test
    collect: Callable[[object, tuple[Any, ...], Any], None]  # its walk, for a value the test refused
    passing_types: frozenset[type] | None  # the exact types whose values it passes by type alone
    type_rule: Any  # its one kind rule, when it judges by type alone
    casting: Any  # how it casts, in a tree compiled for casts

    def cast(self, value: object, caster: Any) -> object: ...


class SchemaContext(Protocol):
    """What a rule kind's `from_node(node, context)` may ask about the node it reads."""

    node: dict[str, Any]  # the schema node itself
    types: tuple[str, ...] | None  # its declared types; None when absent, () when malformed
    admitted_kinds: frozenset[str] | None  # the kinds of value they admit; None: every kind
    judges_objects: bool  # whether its types let an object be judged (members, required)
    judges_lists: bool  # whether its types let a list be judged (elements)
    draft: Any  # how the schema's draft reads its keywords (`compile.drafts.Draft`)
    table: Any  # the table as the engine uses it (`compile.compiled_table.CompiledTable`)
    all_kinds: frozenset[str]  # every base kind of value
    casts: bool  # whether the tree is compiled for casts (nodes that judge nothing may still cast)

    def child(self, schema: object, *keys: object) -> CompiledNode:
        """The compiled node of a subschema one level down (`keys` lead to it)."""

    def trivial(self, node: CompiledNode) -> bool:
        """Whether a compiled child can be left out (it judges, and casts, nothing)."""

    def referenced(self) -> CompiledNode | None:
        """The compiled target of this node's `$ref`, if it can be followed."""

    def judging_nothing(self) -> CompiledNode:
        """A node that judges nothing, for a place no rule can judge."""

    def unused(self, schema: object, *keys: object) -> CompiledNode:
        """A node for a subschema no value will be judged or cast by (judging nothing)."""

    def types_of(self, schema: object) -> tuple[str, ...]:
        """The declared types of a plain union branch (or what its `$ref` leads to)."""

    def target_of(self, schema: object) -> object:
        """The schema a union branch is, its `$ref`s followed (None where they lead nowhere)."""

    def natives_of(self, schema: object) -> frozenset[str]:
        """The base kinds a union branch's declared types are made for."""

    def property_null_facts(self, name: str) -> tuple[bool, tuple[str, ...]]:
        """Whether the property `name` refuses null for a required argument, and its types."""
