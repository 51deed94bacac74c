"""`elements`: each element of a list against its schema: by position (`prefixItems`, or a
list `items`, as the schema's draft reads them), the rest against `items`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Callable, ClassVar

from attrs import field, frozen

from ..values.kinds import LIST_TYPES
from .contracts import CompiledNode, SchemaContext


@frozen
class ElementsRule:
    """Each element against the node of its position, the rest against `rest`. A list sent
    where only an object is declared is not looked into."""

    codes: ClassVar[tuple[str, ...]] = ()
    facts: ClassVar[tuple[str, ...]] = ()
    tests_as_it_walks: ClassVar[bool] = True  # testing the whole first would test every element twice
    by_position: tuple[CompiledNode, ...]
    rest: CompiledNode | None
    fits: Callable[[object], bool] = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "fits", self._test())

    # ── Reading the schema ──────────────────────────────────────────────────────────────

    @classmethod
    def from_node(cls, node: dict[str, Any], context: SchemaContext) -> ElementsRule | None:
        """The nodes of the elements by position, and of the rest, as the draft reads
        `prefixItems` and `items` (see `compile.drafts`); a position the drafts that must
        agree read differently is held by a node that judges nothing. (Children are compiled
        from here, a frame per level fewer: compiling recurses once per level of depth.)"""
        if not context.judges_lists:
            return None
        items, prefix, draft = node.get("items"), node.get("prefixItems"), context.draft
        rest = None if items is None or isinstance(items, list) else context.child(items, "items")
        schemas: Sequence[object]
        positions: list[CompiledNode]
        keyword, schemas, positions = "items", (), []
        if isinstance(items, list):
            schemas = items if draft.item_list else ()
        elif isinstance(prefix, list) and draft.items_after_prefix:
            if draft.prefix_items:
                keyword, schemas = "prefixItems", prefix
            else:
                positions = [context.judging_nothing()] * len(prefix)
        for index, schema in enumerate(schemas):
            positions.append(context.child(schema, keyword, index))
        by_position = tuple(positions)
        rest = None if rest is None or context.trivial(rest) else rest
        while by_position and context.trivial(by_position[-1]) and rest is None:
            by_position = by_position[:-1]
        if not by_position and rest is None:
            return None
        return cls(by_position, rest)

    # ── Testing a value ─────────────────────────────────────────────────────────────────

    def _test(self) -> Callable[[object], bool]:
        rest: Callable[[object], bool] | None = self.rest and self.rest.fits  # type: ignore[assignment]
        if not self.by_position and rest is not None:
            passing = self.rest.passing_types or frozenset()  # type: ignore[union-attr]

            def fits(value: object) -> bool:
                if type(value) is not list and not isinstance(value, LIST_TYPES):
                    return True
                for item in value:
                    if type(item) not in passing and not rest(item):
                        return False
                return True
            return fits
        by_position = tuple(node.fits for node in self.by_position)
        count = len(by_position)

        def fits_by_position(value: object) -> bool:
            if type(value) is not list and not isinstance(value, LIST_TYPES):
                return True
            for index, item in enumerate(value):
                test = by_position[index] if index < count else rest
                if test is None:
                    return True
                if not test(item):
                    return False
            return True
        return fits_by_position

    # ── Reporting ───────────────────────────────────────────────────────────────────────

    def collect(self, value: Any, path: tuple[Any, ...], found: Any) -> None:
        if not isinstance(value, LIST_TYPES):
            return
        for index, (node, item) in enumerate(self._pairs(value)):
            if not node.fits(item):
                node.collect(item, (*path, index), found)

    def _pairs(self, value: Any) -> Iterator[tuple[CompiledNode, Any]]:
        positions = self.by_position
        for index, item in enumerate(value):
            node = positions[index] if index < len(positions) else self.rest
            if node is None:
                return
            yield node, item

    # ── Casting ─────────────────────────────────────────────────────────────────────────

    def cast(self, value: object, caster: Any) -> object:
        """Each element cast by its own node; a new list only where one changed."""
        if not isinstance(value, LIST_TYPES):
            return value
        cast = []
        for index, (node, item) in enumerate(self._pairs(value)):  # a loop: casting recurses once per level
            cast.append(caster.below(index, node, item))
        if all(new is old for new, old in zip(cast, value)):
            return value
        return [*cast, *list(value)[len(cast):]]
