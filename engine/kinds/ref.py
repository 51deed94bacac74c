"""`ref`: a `$ref`, resolved when the schema is compiled; the value is judged by its target."""

from __future__ import annotations

from typing import Any, Callable, ClassVar

from attrs import field, frozen

from .contracts import CompiledNode, SchemaContext


@frozen
class RefRule:
    """The value is judged by the node the reference leads to (see `compile.refs`)."""

    codes: ClassVar[tuple[str, ...]] = ()
    facts: ClassVar[tuple[str, ...]] = ()
    target: CompiledNode
    fits: Callable[[object], bool] = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "fits", self.target.fits)

    @classmethod
    def from_node(cls, node: dict[str, Any], context: SchemaContext) -> RefRule | None:
        target = context.referenced() if "$ref" in node else None
        return None if target is None or context.trivial(target) else cls(target)

    def collect(self, value: object, path: tuple[Any, ...], found: Any) -> None:
        self.target.collect(value, path, found)

    def cast(self, value: object, caster: Any) -> object:
        return self.target.cast(value, caster)
