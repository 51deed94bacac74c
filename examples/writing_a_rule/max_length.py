"""A host's own rule kind: text no longer than the schema's `maxLength`."""

from collections.abc import Iterator
from typing import Any, ClassVar

from attrs import frozen

import turngate


@frozen
class MaxLengthRule:
    codes: ClassVar[tuple[str, ...]] = ("too-long",)        # the mismatch codes it reports
    facts: ClassVar[tuple[str, ...]] = ("limit", "length")  # what its messages may use beyond the engine's own
    limit: int

    @classmethod
    def from_node(cls, node: dict[str, Any], context: object) -> "MaxLengthRule | None":  # read once, at compile time
        limit = node.get("maxLength")
        return cls(limit) if type(limit) is int and limit >= 0 else None

    def fits(self, value: object) -> bool:  # every call: fast, no allocation
        return type(value) is not str or len(value) <= self.limit

    def findings(self, value: str, walk: object) -> Iterator[turngate.Finding]:  # only for a value that does not fit
        yield turngate.Finding("too-long", {"limit": self.limit, "length": len(value)})


turngate.register_rule_kind("max-length", MaxLengthRule)
