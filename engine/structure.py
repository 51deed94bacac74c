"""The rule kinds that look below or beside a node: object members, list elements, `$ref`
targets and unions. Each hands what it looks into to the walk, which keeps the path."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, ClassVar

from attrs import field, frozen

from .fast import elements_fits, members_fits
from .rules import NOTHING_MADE, KindRule, WordsOf, collect_with
from .suggest import suggester
from .values import LIST_TYPES, kind_of
from .verdict import Mismatch
from .verdict import new_tuple as _new_tuple

if TYPE_CHECKING:
    from .compiler import Node, NodeContext
    from .interpreter import Found


@frozen
class MembersRule:
    """Each argument, in the order sent: refused when `additionalProperties` is false and
    `properties` does not name it, else checked against its property schema."""

    codes: ClassVar = ("additional",)
    facts: ClassVar = ()
    tests_parts: ClassVar = True
    by_name: dict = field(eq=False)  # each declared name -> its node, None if it judges nothing
    names: tuple[str, ...]
    closed: bool
    extra: Node | None = None  # the schema of arguments `properties` does not name
    fits: Callable[[object], bool] = field(init=False, eq=False, repr=False)
    passing: dict = field(init=False, eq=False, repr=False)  # name -> types that pass outright
    closest: Callable[[object], str | None] | None = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        tests = {name: node and node.fits for name, node in self.by_name.items()}
        passing = {name: types for name, node in self.by_name.items()
                   if node is not None and (types := node.passing_types) is not None}
        object.__setattr__(self, "passing", passing)
        object.__setattr__(self, "closest", suggester(self.names) if self.closed else None)
        object.__setattr__(self, "fits", members_fits(tests, passing, self.closed, self.extra and self.extra.fits))

    @classmethod
    def from_node(cls, node: dict, context: NodeContext, extra: Node | None = None):
        properties = node.get("properties", {})
        if not context.judges_objects or not isinstance(properties, dict):
            return None
        names = tuple(name for name in properties if type(name) is str)
        closed = node.get("additionalProperties") is False and "patternProperties" not in node
        by_name = {name: context.child(properties[name], "properties", name) for name in names}
        by_name = {name: None if context.trivial(child) else child for name, child in by_name.items()}
        if not any(by_name.values()) and not closed and extra is None:
            return None
        return cls(by_name, names, closed, extra)

    def _schema_of(self, key: object) -> Node | None | bool:
        """The node an argument is checked against; None for none; False when refused."""
        return self.by_name.get(key, False if self.closed else self.extra)

    def collect(self, value: dict, path: tuple, found: Found, made: dict = NOTHING_MADE) -> None:
        if not isinstance(value, dict):
            return
        lookup, undeclared = self.by_name.get, False if self.closed else self.extra
        passing_types = self.passing.get
        for key, item in value.items():
            types = passing_types(key)
            if types is not None and type(item) in types:
                continue
            node = lookup(key, undeclared)  # _schema_of, inlined: this runs per argument
            if node is False:
                facts = {"allowed": self.names, "closest": self.closest(key)}
                found.add((*path, key), "additional", facts)
            elif node is not None and not node.fits(item):
                mismatch = made.get((key, type(item))) if made else None
                if mismatch is None:
                    node.collect(item, (*path, key), found)
                else:
                    found.add_made(mismatch)

    def root_collect(self, words_of: WordsOf) -> Callable:
        """`collect` at the root, where what is said of an argument refused by its type
        alone (a list or an object where its property admits neither) depends on nothing
        else sent: each such finding is worded at compile time."""
        words = words_of("kind")
        if words is None:
            return self.collect
        made = {}
        for name in self.passing:  # the arguments judged by their type alone
            for kind, facts in self.by_name[name].type_rule.structure_findings.items():
                path = (name,)
                made[(name, kind)] = _new_tuple(Mismatch, (path, "kind", words(facts, path)))
        return collect_with(self.collect, made)

    def cast(self, value: object, caster) -> object:
        if not isinstance(value, dict):
            return value
        result = value
        for key, item in value.items():
            node = self._schema_of(key)
            if node:
                cast = caster.below(key, node, item)
                if cast is not item:
                    result = dict(value) if result is value else result
                    result[key] = cast
        return result


@frozen
class MembersAndExtraRule(MembersRule):
    """As `MembersRule`, and an `additionalProperties` schema checks the arguments it
    covers (not where `patternProperties` also claims some)."""

    @classmethod
    def from_node(cls, node: dict, context: NodeContext, extra: Node | None = None):
        schema = node.get("additionalProperties")
        if isinstance(schema, dict) and "patternProperties" not in node and context.judges_objects:
            extra = context.child(schema, "additionalProperties")
            extra = None if context.trivial(extra) else extra
        return super().from_node(node, context, extra)


@frozen
class ElementsRule:
    """Each list element against `prefixItems` or a list `items` by position, the rest
    against `items`. A list sent where only an object is declared is not looked into."""

    codes: ClassVar = ()
    facts: ClassVar = ()
    tests_parts: ClassVar = True
    by_position: tuple[Node, ...]
    rest: Node | None
    fits: Callable[[object], bool] = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        tests = tuple(node.fits for node in self.by_position)
        object.__setattr__(self, "fits", elements_fits(tests, self.rest and self.rest.fits,
                                                       self.rest and self.rest.passing_types))

    @classmethod
    def from_node(cls, node: dict, context: NodeContext) -> ElementsRule | None:
        if not context.judges_lists:
            return None
        by_position, rest = cls._schemas(node, context)
        rest = None if rest is None or context.trivial(rest) else rest
        while by_position and context.trivial(by_position[-1]) and rest is None:
            by_position = by_position[:-1]
        if not by_position and rest is None:
            return None
        return cls(by_position, rest)

    @staticmethod
    def _schemas(node: dict, context: NodeContext) -> tuple[tuple[Node, ...], Node | None]:
        """The nodes of the elements by position, and of the rest, as the draft reads
        `prefixItems` and `items` (see `drafts`); a position no draft agreement judges is
        held by a node that judges nothing."""
        items, prefix, draft = node.get("items"), node.get("prefixItems"), context.draft
        if isinstance(items, list):
            if not draft.item_list:
                return (), None
            return tuple(context.child(s, "items", i) for i, s in enumerate(items)), None
        rest = None if items is None else context.child(items, "items")
        if not isinstance(prefix, list) or not draft.items_after_prefix:
            return (), rest
        if draft.prefix_items:
            return tuple(context.child(s, "prefixItems", i) for i, s in enumerate(prefix)), rest
        return (context.judging_nothing(),) * len(prefix), rest

    def collect(self, value: Any, path: tuple, found: Found) -> None:
        if not isinstance(value, LIST_TYPES):
            return
        for index, (node, item) in enumerate(self._pairs(value)):
            if not node.fits(item):
                node.collect(item, (*path, index), found)

    def cast(self, value: object, caster) -> object:
        if not isinstance(value, LIST_TYPES):
            return value
        cast = [caster.below(index, node, item) for index, (node, item) in enumerate(self._pairs(value))]
        if all(new is old for new, old in zip(cast, value)):
            return value
        return [*cast, *list(value)[len(cast):]]

    def _pairs(self, value: Any):
        positions = self.by_position
        for index, item in enumerate(value):
            node = positions[index] if index < len(positions) else self.rest
            if node is None:
                return
            yield node, item


@frozen
class RefRule:
    """A local `$ref`: the value is judged by the node the reference leads to."""

    codes: ClassVar = ()
    facts: ClassVar = ()
    target: Node
    fits: Callable[[object], bool] = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "fits", self.target.fits)

    @classmethod
    def from_node(cls, node: dict, context: NodeContext) -> RefRule | None:
        target = context.referenced() if "$ref" in node else None
        return None if target is None or context.trivial(target) else cls(target)

    def collect(self, value: object, path: tuple, found: Found) -> None:
        self.target.collect(value, path, found)

    def cast(self, value: object, caster) -> object:
        return self.target.cast(value, caster)


@frozen
class Union:
    """One `anyOf` or `oneOf` of plain typed branches: each branch's node, and the base
    kinds its types are made for (which branches a value can belong to at all)."""

    branches: tuple[tuple[frozenset[str], Node], ...]
    types: tuple[str, ...]
    kind: KindRule | None
    one_of: bool = False  # `oneOf`: exactly one branch may hold a value

    def holders(self, value: object) -> list[Node]:
        """The branches a value can belong to at all: those whose declared types are made
        for its kind (every other branch refuses it by its type)."""
        kind = kind_of(value)
        return [node for natives, node in self.branches if kind in natives]

    def branch_for(self, value: object) -> Node | None:
        """The one branch a value can belong to, if only one can; a valid value is valid
        under it, so judging it there refuses nothing valid."""
        found = self.holders(value)
        return found[0] if len(found) == 1 else None

    def cast(self, value: object, caster) -> object:
        """A value one branch can hold is cast by that branch. One no branch can hold is cast
        by the first branch whose cast it then fits exactly (for `oneOf`, that branch alone)."""
        holders = self.holders(value)
        if holders:
            return holders[0].cast(value, caster) if len(holders) == 1 else value
        for _, branch in self.branches:
            probe = caster.probe()
            cast = branch.cast(value, probe)
            if cast is not value and self._holds_only(branch, cast):
                caster.merge(probe)
                return cast
        caster.note(False)
        return value

    def _holds_only(self, chosen: Node, value: object) -> bool:
        judge = chosen.casting and chosen.casting.judge
        if not judge or judge(value) is not True:
            return False
        return not self.one_of or all(
            node.casting is not None and node.casting.judge(value) is False
            for _, node in self.branches if node is not chosen)

    def fits(self, value: object) -> bool:
        if self.kind is not None and not self.kind.fits(value):
            return False
        branch = self.branch_for(value)
        return branch is None or branch.fits(value)


@frozen
class UnionRule:
    """`anyOf`/`oneOf` whose branches are all plain typed nodes, judged as a union: the
    value's kind must be admitted by a branch ("must be text or null"), and a value only
    one branch can hold is judged by that branch."""

    codes: ClassVar = ("kind",)
    facts: ClassVar = ()
    unions: tuple[Union, ...]

    @classmethod
    def from_node(cls, node: dict, context: NodeContext) -> UnionRule | None:
        unions = []
        for keyword in ("anyOf", "oneOf"):
            if isinstance(node.get(keyword), list):
                branches = tuple((context.natives_of(branch), context.child(branch, keyword, index))
                                 for index, branch in enumerate(node[keyword]))
                types = tuple(dict.fromkeys(t for branch in node[keyword] for t in context.types_of(branch)))
                unions.append(Union(branches, types, KindRule.admitting(types, context), keyword == "oneOf"))
        return cls(tuple(unions)) if unions else None

    def fits(self, value: object) -> bool:
        return all(union.fits(value) for union in self.unions)

    def collect(self, value: object, path: tuple, found: Found) -> None:
        for union in self.unions:
            if union.kind is not None and not union.kind.fits(value):
                union.kind.collect(value, path, found)
            elif (branch := union.branch_for(value)) is not None and not branch.fits(value):
                branch.collect(value, path, found)

    def cast(self, value: object, caster) -> object:
        # Two unions beside each other are not cast below (see `exact.casts_below`).
        return self.unions[0].cast(value, caster) if len(self.unions) == 1 else value
