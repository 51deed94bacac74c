"""`union`: `anyOf`/`oneOf` whose branches are all plain typed nodes, judged as a union."""

from __future__ import annotations

from typing import ClassVar

from attrs import frozen

from ..values.kinds import kind_of
from .contracts import CompiledNode, SchemaContext
from .kind import KindRule


@frozen
class Union:
    """One `anyOf` or `oneOf` of plain typed branches: each branch's node, and the base
    kinds its types are made for (which branches a value can belong to at all)."""

    branches: tuple[tuple[frozenset[str], CompiledNode], ...]
    types: tuple[str, ...]
    kind: KindRule | None
    one_of: bool = False  # `oneOf`: exactly one branch may hold a value

    def holders(self, value: object) -> list[CompiledNode]:
        """The branches a value can belong to at all: those whose declared types are made
        for its kind (every other branch refuses it by its type)."""
        kind = kind_of(value)
        return [node for natives, node in self.branches if kind in natives]

    def branch_for(self, value: object) -> CompiledNode | None:
        """The one branch a value can belong to, if only one can; a valid value is valid
        under it, so judging it there refuses nothing valid."""
        found = self.holders(value)
        return found[0] if len(found) == 1 else None

    def fits(self, value: object) -> bool:
        if self.kind is not None and not self.kind.fits(value):
            return False
        branch = self.branch_for(value)
        return branch is None or branch.fits(value)

    def collect(self, value: object, path: tuple, found) -> None:
        if self.kind is not None and not self.kind.fits(value):
            self.kind.collect(value, path, found)
        elif (branch := self.branch_for(value)) is not None and not branch.fits(value):
            branch.collect(value, path, found)

    def cast(self, value: object, caster) -> object:
        """A value one branch can hold is cast by that branch. One no branch can hold is cast
        by the first branch whose cast it then fits exactly (for `oneOf`, that branch alone)."""
        holders = self.holders(value)
        if holders:
            return holders[0].cast(value, caster) if len(holders) == 1 else value
        for index, (_, branch) in enumerate(self.branches):
            probe = caster.probe()
            cast = branch.cast(value, probe)
            if cast is not value and self._holds_only(index, cast):
                caster.merge(probe)
                return cast
        caster.note(False)
        return value

    def _holds_only(self, chosen: int, value: object) -> bool:
        """Whether the branch at `chosen` holds the value exactly (for `oneOf`, it alone:
        by place, since equal branches share one compiled node)."""
        casting = self.branches[chosen][1].casting
        judge = casting and casting.judge
        if not judge or judge(value) is not True:
            return False
        return not self.one_of or all(
            node.casting is not None and node.casting.judge(value) is False
            for index, (_, node) in enumerate(self.branches) if index != chosen)


@frozen
class UnionRule:
    """The value's kind must be admitted by a branch ("must be text or null"), and a value
    only one branch can hold is judged by that branch."""

    codes: ClassVar = ("kind",)
    facts: ClassVar = ()
    unions: tuple[Union, ...]

    @classmethod
    def from_node(cls, node: dict, context: SchemaContext) -> UnionRule | None:
        unions = []
        for keyword in ("anyOf", "oneOf"):  # read only by the drafts that define them (not draft-03)
            if isinstance(node.get(keyword), list) and context.draft.defines(keyword):
                branches = tuple((context.natives_of(branch), context.child(branch, keyword, index))
                                 for index, branch in enumerate(node[keyword]))
                types = tuple(dict.fromkeys(t for branch in node[keyword] for t in context.types_of(branch)))
                unions.append(Union(branches, types, KindRule.admitting(types, context), keyword == "oneOf"))
        return cls(tuple(unions)) if unions else None

    def fits(self, value: object) -> bool:
        return all(union.fits(value) for union in self.unions)

    def collect(self, value: object, path: tuple, found) -> None:
        for union in self.unions:
            union.collect(value, path, found)

    def cast(self, value: object, caster) -> object:
        # Two unions beside each other are not cast below (see `compile.exact.casts_below`).
        return self.unions[0].cast(value, caster) if len(self.unions) == 1 else value
