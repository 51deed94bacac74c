"""Links: how a compiled node is reached from a place other than where it was compiled, so
that each schema node is compiled once however many `$ref`s lead to it, cycles included.

A node is compiled at one depth (the shallowest a reference asks for it, see `compiler`).
Reached from a place deeper than that (a `$ref` back to the root, one of four thousand), it
would judge the value as if it sat higher than it does, and a cycle would judge without end:
so such a link counts, while a value is checked or cast, how much deeper than its compiled
depth the walk now is (per thread), and past the table's depth limit it judges nothing, as
a node compiled below that limit would. Every step of a walk then adds one level, whichever
link it crosses, so a walk is never more than twice the limit deep. A link reached from the
target's own depth, or from a shallower one, costs nothing more than the node itself.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .node import Node


class _Offset(threading.local):
    """How much deeper than their compiled depth the nodes of the current walk are."""

    levels = 0


_OFFSET = _Offset()


class Placed:
    """A schema node (under one base URI) and where it is compiled: its depth, and its node
    once made (None while it waits, or is being compiled)."""

    __slots__ = ("schema", "scope", "depth", "pointer", "node", "started")
    schema: object
    scope: object
    depth: int
    pointer: str
    started: bool

    def __init__(self, schema: object, scope: object, depth: int, pointer: str):
        self.schema, self.scope, self.depth, self.pointer = schema, scope, depth, pointer
        self.node: Node | None = None
        self.started = False


class Link:
    """A compiled node as reached from depth `depth`: its test, walk and cast, guarded by the
    depth limit where the place is deeper than the node was compiled (see the module).

    Made before its node may be (a `$ref` to a node still waiting, or to one of its own
    ancestors): its `fits` is then a stand-in that calls the bound test, since a parent
    composes its children's tests when it is made; `bind` is called once all are compiled."""

    __slots__ = ("placed", "depth", "fits", "collect", "cast", "_fits")
    fits: Callable[[object], bool]
    collect: Callable[[object, tuple[Any, ...], Any], None]
    cast: Callable[[object, Any], object]
    _fits: Callable[[object], bool]
    placed: Placed
    depth: int
    passing_types = None
    type_rule = None
    casting = None

    def __init__(self, placed: Placed, depth: int, limit: int):
        self.placed, self.depth = placed, depth
        if placed.node is not None:
            self.bind(limit)
            return
        self.fits = lambda value: self._fits(value)

    @property
    def judges_nothing(self) -> bool:
        return self.placed.node is not None and self.placed.node.judges_nothing

    @property
    def inert(self) -> bool:
        return self.placed.node is not None and self.placed.node.inert

    def bind(self, limit: int) -> None:
        node: Node = self.placed.node  # type: ignore[assignment]  # bound once every node is compiled
        shift, room = self.depth - self.placed.depth, limit - self.placed.depth
        fits = node.fits if shift <= 0 else _guarded_fits(node.fits, shift, room)
        if not hasattr(self, "fits"):
            self.fits = fits
        self._fits = fits
        self.collect = node.collect if shift <= 0 else _guarded_collect(node.collect, shift, room)
        self.cast = node.cast if shift <= 0 else _guarded_cast(node.cast, shift, room)


def _guarded_fits(fits: Callable[[object], bool], shift: int, room: int) -> Callable[[object], bool]:
    def guarded(value: object) -> bool:
        levels = _OFFSET.levels + shift
        if levels > room:
            return True  # past the depth limit nothing is judged
        _OFFSET.levels = levels
        try:
            return fits(value)
        finally:
            _OFFSET.levels = levels - shift
    return guarded


def _guarded_collect(collect: Callable[..., Any], shift: int, room: int) -> Callable[[object, tuple[Any, ...], Any], None]:
    def guarded(value: object, path: tuple[Any, ...], found: Any) -> None:
        levels = _OFFSET.levels + shift
        if levels > room:
            return
        _OFFSET.levels = levels
        try:
            collect(value, path, found)
        finally:
            _OFFSET.levels = levels - shift
    return guarded


def _guarded_cast(cast: Callable[..., Any], shift: int, room: int) -> Callable[[object, Any], object]:
    def guarded(value: object, caster: Any) -> object:
        levels = _OFFSET.levels + shift
        if levels > room:
            return value
        _OFFSET.levels = levels
        try:
            return cast(value, caster)
        finally:
            _OFFSET.levels = levels - shift
    return guarded
