"""`union`: `anyOf`/`oneOf` whose branches are all plain typed nodes, judged as a union.

A value is judged by a branch only where every valid value must be valid under it: the one
branch made for its kind, or, among several object branches, the one a discriminating
constant names (pydantic's discriminated unions: each branch's `type` property a `const` or
a one-member `enum`). The branches a value can belong to are looked up by its kind, never
searched, so a union of a thousand branches checks a value in the time of one.
"""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

from attrs import field, frozen

from ..values.kinds import BASE_KINDS, JSON_SCHEMA_KINDS, kind_of
from .contracts import CompiledNode, SchemaContext
from .kind import KindRule

#: A value no branch holds is cast by trying branches in order, at most this many (a node
#: that several equal branches share is tried once); and a `oneOf` cast is made only where at
#: most this many other branches could hold the cast value (each must be asked whether it
#: does). Past these a value is left as sent.
CAST_TRIES = 8
#: Drafts that define `const` (a discriminator may be one there).
_CONST_DRAFTS = frozenset({"draft-06", "draft-07", "2019-09", "2020-12"})


@frozen
class Discriminator:
    """A property every object branch fixes to a text of its own: which branch an object
    can belong to, by what it holds there."""

    name: str
    by_literal: dict = field(eq=False)  # the text -> the one branch that fixes it

    def branch(self, value: dict) -> CompiledNode | None:
        literal = value.get(self.name)
        return self.by_literal.get(literal) if type(literal) is str else None

    @classmethod
    def of(cls, targets: list, nodes: tuple, context: SchemaContext) -> Discriminator | None:
        """Read from the object branches' schemas (`targets`, their refs followed)."""
        if len(targets) < 2:
            return None
        fixed = [_literals(target, context.draft.name in _CONST_DRAFTS) for target in targets]
        shared = set(fixed[0]).intersection(*fixed[1:])
        name = next((name for name in fixed[0] if name in shared), None)
        if name is None:
            return None
        literals = Counter(each[name] for each in fixed)
        chosen = {each[name]: node for each, node in zip(fixed, nodes) if literals[each[name]] == 1}
        return cls(name, chosen) if chosen else None


def _literals(schema: object, const: bool) -> dict[str, str]:
    """Each property a schema fixes to one text: `const` (where the draft has it) or an
    `enum` of one member."""
    properties = schema.get("properties") if type(schema) is dict else None
    found = {}
    for name, each in properties.items() if type(properties) is dict else ():
        if type(each) is not dict:
            continue
        enum = each.get("enum")
        if const and type(each.get("const")) is str:
            found[name] = each["const"]
        elif type(enum) is list and len(enum) == 1 and type(enum[0]) is str:
            found[name] = enum[0]
    return found


@frozen
class Union:
    """One `anyOf` or `oneOf` of plain typed branches: each branch's node, the base kinds its
    types are made for (which branches a value can belong to at all), and the kinds JSON
    Schema's own types admit (which may hold a cast value)."""

    branches: tuple[tuple[frozenset[str], CompiledNode], ...]
    types: tuple[str, ...]
    kind: KindRule | None
    one_of: bool = False  # `oneOf`: exactly one branch may hold a value
    json_kinds: tuple[frozenset[str], ...] = ()
    discriminator: Discriminator | None = None
    by_kind: dict = field(init=False, eq=False, repr=False)  # kind -> the nodes made for it
    json_holders: dict = field(init=False, eq=False, repr=False)  # kind -> indexes of branches
    cast_order: tuple[int, ...] = field(init=False, eq=False, repr=False)  # the branches a cast tries

    def __attrs_post_init__(self) -> None:
        first = {id(node): index for index, (_, node) in reversed(list(enumerate(self.branches)))}
        object.__setattr__(self, "cast_order", tuple(sorted(first.values()))[:CAST_TRIES])
        object.__setattr__(self, "by_kind", {kind: tuple(node for natives, node in self.branches if kind in natives)
                                             for kind in BASE_KINDS})
        kinds = self.json_kinds or (frozenset(BASE_KINDS),) * len(self.branches)
        object.__setattr__(self, "json_holders", {kind: tuple(i for i, each in enumerate(kinds) if kind in each)
                                                  for kind in BASE_KINDS})

    def holders(self, value: object) -> tuple[CompiledNode, ...]:
        """The branches a value can belong to at all: those whose declared types are made
        for its kind (every other branch refuses it by its type); of several object
        branches, the one its discriminating constant names, if any."""
        found = self.by_kind.get(kind_of(value), ())
        if len(found) > 1 and self.discriminator is not None and type(value) is dict:
            chosen = self.discriminator.branch(value)
            return found if chosen is None else (chosen,)
        return found

    def fits(self, value: object) -> bool:
        if self.kind is not None and not self.kind.fits(value):
            return False
        found = self.holders(value)
        return len(found) != 1 or found[0].fits(value)

    def collect(self, value: object, path: tuple, found) -> None:
        if self.kind is not None and not self.kind.fits(value):
            self.kind.collect(value, path, found)
        elif len(holders := self.holders(value)) == 1 and not holders[0].fits(value):
            holders[0].collect(value, path, found)

    def cast(self, value: object, caster) -> object:
        """A value one branch can hold is cast by that branch. One no branch can hold is cast
        by the first branch whose cast it then fits exactly (for `oneOf`, that branch alone),
        of the first `CAST_TRIES` (see `cast_order`)."""
        holders = self.holders(value)
        if holders:
            return holders[0].cast(value, caster) if len(holders) == 1 else value
        for index in self.cast_order:
            branch = self.branches[index][1]
            probe = caster.probe()
            cast = branch.cast(value, probe)
            if cast is not value and self._holds_only(index, cast):
                caster.merge(probe)
                return cast
        caster.note(False)
        return value

    def _holds_only(self, chosen: int, value: object) -> bool:
        """Whether the branch at `chosen` holds the value exactly (for `oneOf`, it alone:
        by place, since equal branches share one compiled node; a branch whose types JSON
        Schema reads as refusing the value's kind cannot hold it)."""
        casting = self.branches[chosen][1].casting
        judge = casting and casting.judge
        if not judge or judge(value) is not True:
            return False
        if not self.one_of:
            return True
        rivals = self.json_holders.get(kind_of(value), range(len(self.branches)))
        return len(rivals) <= CAST_TRIES + 1 and all(
            (node := self.branches[index][1]).casting is not None and node.casting.judge(value) is False
            for index in rivals if index != chosen)


@frozen
class UnionRule:
    """The value's kind must be admitted by a branch ("must be text or null"), and a value
    only one branch can hold is judged by that branch."""

    codes: ClassVar = ("kind",)
    facts: ClassVar = ()
    unions: tuple[Union, ...]

    @classmethod
    def from_node(cls, node: dict, context: SchemaContext) -> UnionRule | None:
        unions = [cls._union(node[keyword], keyword == "oneOf", context)
                  for keyword in ("anyOf", "oneOf") if isinstance(node.get(keyword), list)]
        return cls(tuple(unions)) if unions else None

    @staticmethod
    def _union(schemas: list, one_of: bool, context: SchemaContext) -> Union:
        keyword = "oneOf" if one_of else "anyOf"
        branches = tuple((context.natives_of(branch), context.child(branch, keyword, index))
                         for index, branch in enumerate(schemas))
        declared = [context.types_of(branch) for branch in schemas]
        types = tuple(dict.fromkeys(name for names in declared for name in names))
        json_kinds = tuple(frozenset(JSON_SCHEMA_KINDS[name] for name in names)
                           if names and all(name in JSON_SCHEMA_KINDS for name in names) else frozenset(BASE_KINDS)
                           for names in declared)
        objects = [index for index, (natives, _) in enumerate(branches) if "object" in natives]
        discriminator = Discriminator.of([context.target_of(schemas[index]) for index in objects],
                                         tuple(branches[index][1] for index in objects), context)
        return Union(branches, types, KindRule.admitting(types, context), one_of, json_kinds, discriminator)

    def fits(self, value: object) -> bool:
        return all(union.fits(value) for union in self.unions)

    def collect(self, value: object, path: tuple, found) -> None:
        for union in self.unions:
            union.collect(value, path, found)

    def cast(self, value: object, caster) -> object:
        # Two unions beside each other are not cast below (see `compile.exact.casts_below`).
        return self.unions[0].cast(value, caster) if len(self.unions) == 1 else value
