"""What a rule kind reports, and the walk a host's rule kind reports through.

The engine's kinds note each mismatch with `collect(value, path, found)`; a host's kind may
instead yield `Finding`s from `findings(value, walk)`, and the engine adds the path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Protocol

if TYPE_CHECKING:
    from .contracts import CompiledNode

class EngineSignal(Exception):
    """Raised by the engine through a rule's walk (the cap of findings reached): never the
    rule's own doing, so never reported as a host's rule kind failing."""


#: A finding about the value itself, not about one of its members.
NO_MEMBER: Any = object()

class Found(Protocol):
    """Where a walk notes each mismatch it finds (a check's list of them)."""

    def add(self, path: tuple[Any, ...], code: str, facts: dict[str, Any]) -> None: ...


#: `collect(value, path, found)`: note each mismatch of a value a test refused.
Collect = Callable[[object, tuple[Any, ...], Any], None]


class Finding(NamedTuple):
    """A mismatch a rule found: its code, the facts its message is made of, and the member
    (object key) of the value it is about, if it is about one member."""

    code: str
    facts: dict[str, Any]
    member: Any = NO_MEMBER


class Walk:
    """What a host's `findings(value, walk)` may do: report a finding here (or at a member),
    or look into a child node below or at this place."""

    __slots__ = ("path", "found")
    path: tuple[Any, ...]
    found: Found

    def __init__(self, path: tuple[Any, ...], found: Found):
        self.path, self.found = path, found

    def report(self, finding: Finding) -> None:
        code, facts, member = finding
        self.found.add(self.path if member is NO_MEMBER else (*self.path, member), code, facts)

    def descend(self, key: str | int, node: CompiledNode, value: object) -> None:
        if not node.fits(value):
            node.collect(value, (*self.path, key), self.found)

    def visit(self, node: CompiledNode, value: object) -> None:
        if not node.fits(value):
            node.collect(value, self.path, self.found)


def collector(rule: Any) -> Collect:
    """A rule's `collect`, or one made from its `findings` (the form hosts write)."""
    collect: Collect | None = getattr(rule, "collect", None)
    if collect is not None:
        return collect

    def collect_findings(value: object, path: tuple[Any, ...], found: Found) -> None:
        walk = Walk(path, found)
        for finding in rule.findings(value, walk):
            walk.report(finding)
    return collect_findings
