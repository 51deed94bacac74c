"""`union`: `anyOf`/`oneOf` whose branches are all plain typed nodes, judged as a union.

A value is judged by a branch only where every valid value must be valid under it: the one
branch made for its kind, or, among several object branches, the one a discriminating
constant names (pydantic's discriminated unions: each branch's `type` property a `const` or
a one-member `enum`). The branches a value can belong to are looked up by its kind, never
searched, so a union of a thousand branches checks a value in the time of one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

from attrs import field, frozen

from ..values.kinds import BASE_KINDS, JSON_SCHEMA_KINDS, kind_of
from .contracts import CompiledNode, SchemaContext
from .kind import KindRule

#: A value no branch holds is cast by trying branches in order, at most `CAST_TRIES` (a node
#: that several equal branches share is tried once); and a `oneOf` cast is made only where at
#: most `CAST_RIVALS` other branches could hold the cast value (each must be asked whether it
#: does). Past these a value is left as sent.
CAST_TRIES, CAST_RIVALS = 4, 16
_JSON_SCHEMA_NAMES = frozenset(JSON_SCHEMA_KINDS)
#: Drafts that define `const` (a discriminator may be one there).
_CONST_DRAFTS = frozenset({"draft-06", "draft-07", "2019-09", "2020-12"})


@frozen
class Discriminator:
    """A property every object branch fixes to a text of its own: which branch an object
    can belong to, by what it holds there."""

    name: str
    by_literal: dict[str, Any] = field(eq=False)  # the text -> the one branch that fixes it

    def branch(self, value: dict[str, Any]) -> CompiledNode | None:
        literal = value.get(self.name)
        return self.by_literal.get(literal) if type(literal) is str else None


def discriminating(targets: list[Any], const: bool) -> tuple[str, dict[str, int]] | None:
    """The property the object branches' schemas (`targets`, their refs followed) all fix,
    and the place of each branch by the text only it fixes there."""
    if len(targets) < 2:
        return None
    fixed = [_literals(target, const) for target in targets]
    shared = set(fixed[0]).intersection(*fixed[1:])
    name = next((name for name in fixed[0] if name in shared), None)
    if name is None:
        return None
    literals = Counter(each[name] for each in fixed)
    places = {each[name]: place for place, each in enumerate(fixed) if literals[each[name]] == 1}
    return (name, places) if places else None


def _literals(schema: object, const: bool) -> dict[str, str]:
    """Each property a schema fixes to one text: `const` (where the draft has it) or an
    `enum` of one member."""
    properties = schema.get("properties") if type(schema) is dict else None
    found: dict[str, str] = {}
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
    cast_order: tuple[int, ...] = ()  # the branches a cast tries, in order
    by_kind: dict[str | None, Any] = field(init=False, eq=False, repr=False)  # kind -> the nodes made for it
    json_holders: dict[str | None, Any] = field(init=False, eq=False, repr=False)  # kind -> indexes of branches

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "by_kind", {kind: tuple(self.branches[index][1] for index in holders)
                                             for kind, holders in _by_kind(tuple(n for n, _ in self.branches)).items()})
        kinds = self.json_kinds or (frozenset(BASE_KINDS),) * len(self.branches)
        object.__setattr__(self, "json_holders", _by_kind(kinds))

    def holders(self, value: object) -> tuple[CompiledNode, ...]:
        """The branches a value can belong to at all: those whose declared types are made
        for its kind (every other branch refuses it by its type); of several object
        branches, the one its discriminating constant names, if any."""
        found: tuple[CompiledNode, ...] = self.by_kind.get(kind_of(value), ())
        if len(found) > 1 and self.discriminator is not None and type(value) is dict:
            chosen = self.discriminator.branch(value)
            return found if chosen is None else (chosen,)
        return found

    def fits(self, value: object) -> bool:
        if self.kind is not None and not self.kind.fits(value):
            return False
        found = self.holders(value)
        return len(found) != 1 or found[0].fits(value)

    def collect(self, value: object, path: tuple[Any, ...], found: Any) -> None:
        if self.kind is not None and not self.kind.fits(value):
            self.kind.collect(value, path, found)
        elif len(holders := self.holders(value)) == 1 and not holders[0].fits(value):
            holders[0].collect(value, path, found)

    def cast(self, value: object, caster: Any) -> object:
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
            if cast is not value and self._holds_only(index, cast, caster):
                caster.merge(probe)
                return cast
        caster.note(False)
        return value

    def _holds_only(self, chosen: int, value: object, caster: Any) -> bool:
        """Whether the branch at `chosen` holds the value exactly (for `oneOf`, it alone:
        by place, since equal branches share one compiled node; a branch whose types JSON
        Schema reads as refusing the value's kind cannot hold it). Each rival asked spends a
        unit of the cast's budget."""
        casting = self.branches[chosen][1].casting
        judge = casting and casting.judge
        if not judge or judge(value) is not True:
            return False
        if not self.one_of:
            return True
        rivals = self.json_holders.get(kind_of(value), range(len(self.branches)))
        if len(rivals) > CAST_RIVALS + 1:
            return False
        for index in rivals:
            if index != chosen:
                caster.spend()
                rival = self.branches[index][1].casting
                if rival is None or rival.judge(value) is not False:
                    return False
        return True


def _by_kind(kinds_per_branch: Sequence[frozenset[str]]) -> dict[str, tuple[int, ...]]:
    """Per kind of value, the places of the branches whose kinds hold it."""
    return {kind: tuple(index for index, kinds in enumerate(kinds_per_branch) if kind in kinds) for kind in BASE_KINDS}


def _judging(natives: Sequence[frozenset[str]]) -> set[int]:
    """The branches a value is judged by: each alone in holding some kind of value."""
    return {holders[0] for holders in _by_kind(natives).values() if len(holders) == 1}


def _cast_order(schemas: list[Any], triable: list[int], keyword: str, context: SchemaContext,
                nodes: dict[int, CompiledNode]) -> tuple[int, ...]:
    """Of the branches at `triable`, the first `CAST_TRIES` whose nodes differ (equal plain
    branches share one), compiled into `nodes`."""
    order: list[int] = []
    seen: set[int] = set()
    for index in triable:
        if len(order) == CAST_TRIES:
            break
        node = nodes[index] = context.child(schemas[index], keyword, index)
        if id(node) not in seen:
            seen.add(id(node))
            order.append(index)
    return tuple(order)


@frozen
class UnionRule:
    """The value's kind must be admitted by a branch ("must be text or null"), and a value
    only one branch can hold is judged by that branch."""

    codes: ClassVar[tuple[str, ...]] = ("kind",)
    facts: ClassVar[tuple[str, ...]] = ()
    unions: tuple[Union, ...]

    @classmethod
    def from_node(cls, node: dict[str, Any], context: SchemaContext) -> UnionRule | None:
        if "anyOf" not in node and "oneOf" not in node:
            return None
        unions = [cls._union(node[keyword], keyword == "oneOf", context)
                  for keyword in ("anyOf", "oneOf")  # read only by the drafts that define them (not draft-03)
                  if isinstance(node.get(keyword), list) and context.draft.defines(keyword)]
        return cls(tuple(unions)) if unions else None

    @staticmethod
    def _union(schemas: list[Any], one_of: bool, context: SchemaContext) -> Union:
        """The union, its branches compiled only where a value can be judged or cast by one
        (a branch that is not alone in holding any kind of value, in a union of a thousand,
        is never asked)."""
        keyword = "oneOf" if one_of else "anyOf"
        declared = [context.types_of(branch) for branch in schemas]
        natives = [context.natives_of(branch) for branch in schemas]
        json_kinds = tuple(frozenset(JSON_SCHEMA_KINDS[name] for name in names)
                           if names and _JSON_SCHEMA_NAMES.issuperset(names) else frozenset(BASE_KINDS)
                           for names in declared)
        objects = [index for index, made_for in enumerate(natives) if "object" in made_for]
        discriminated = discriminating([context.target_of(schemas[index]) for index in objects],
                                       context.draft.name in _CONST_DRAFTS)
        needed = _judging(natives) | ({objects[place] for place in discriminated[1].values()} if discriminated else set())
        nodes: dict[int, CompiledNode] = {}
        # A `oneOf` cast to a kind more than `CAST_RIVALS` others hold is never made: a branch
        # that casts only to such kinds is not tried; the rivals of the others are compiled.
        crowded = {kind for kind, holders in _by_kind(json_kinds).items()
                   if one_of and len(holders) > CAST_RIVALS + 1}
        triable = [index for index, kinds in enumerate(json_kinds) if not kinds <= crowded]
        cast_order = _cast_order(schemas, triable, keyword, context, nodes) if context.casts else ()
        if context.casts and one_of:
            needed |= {index for kind, holders in _by_kind(json_kinds).items() if kind not in crowded
                       for index in holders}
        for index, branch in enumerate(schemas):
            if index not in nodes:
                nodes[index] = context.child(branch, keyword, index) if index in needed \
                    else context.unused(branch, keyword, index)
        discriminator = discriminated and Discriminator(
            discriminated[0], {text: nodes[objects[place]] for text, place in discriminated[1].items()})
        types = tuple(dict.fromkeys(name for names in declared for name in names))
        return Union(tuple(zip(natives, (nodes[index] for index in range(len(schemas))))), types,
                     KindRule.admitting(types, context), one_of, json_kinds, discriminator or None, cast_order)

    def fits(self, value: object) -> bool:
        return all(union.fits(value) for union in self.unions)

    def collect(self, value: object, path: tuple[Any, ...], found: Any) -> None:
        for union in self.unions:
            union.collect(value, path, found)

    def cast(self, value: object, caster: Any) -> object:
        # Two unions beside each other are not cast below (see `compile.exact.casts_below`).
        return self.unions[0].cast(value, caster) if len(self.unions) == 1 else value
