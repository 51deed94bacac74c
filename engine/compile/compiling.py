"""What reading a node (`reading`) and answering a rule kind (`context`) ask of the schema
being compiled: the side of `compiler.Compilation` they see, so that neither imports the
compiler that imports them."""

from __future__ import annotations

from typing import Protocol

from .compiled_table import CompiledTable
from .drafts import Draft
from .links import Link
from .node import Node
from .refs import RefScope


class Compiling(Protocol):
    """A schema being compiled (`compiler.Compilation`), as a node's reading sees it."""

    @property
    def table(self) -> CompiledTable: ...

    @property
    def draft(self) -> Draft: ...

    @property
    def visits(self) -> list[tuple[str, str | None]] | None: ...

    @property
    def for_casts(self) -> bool: ...

    def node(self, schema: object, depth: int, pointer: str, scope: RefScope) -> Node | Link: ...

    def judged_plain_leaf(self, schema: dict[str, object], depth: int) -> bool: ...

    def plain_leaf(self, schema: dict[str, object], depth: int, pointer: str, scope: RefScope) -> Node: ...

    def followed(self, node: object, scope: RefScope) -> tuple[object, RefScope] | None: ...

    def target(self, schema: object, depth: int, scope: RefScope) -> Node | Link: ...
