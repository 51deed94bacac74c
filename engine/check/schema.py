"""The public face of compiling: `compile_schema`, and a bounded cache keyed by content."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Callable

from attrs import field, frozen

from ..compile.casting import Cast, Caster
from ..compile.compiled_table import compiled_table
from ..compile.compiler import compile_node
from ..compile.exact import verdicts_kept
from ..compile.node import Node
from ..kinds.verdict import Verdict
from ..table.entries import Table
from ..table.loading import load_table
from .refusal import root_check


@frozen
class CompiledSchema:
    """A schema read once into rule objects; immutable, reusable, safe to share between
    threads."""

    root: Node
    table: Table
    cast_root: Node | None = None  # the tree casts walk, when compiled with casts

    check: Callable[[object], Verdict] = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        """`check(arguments)`: the verdict on one call's arguments (decoded JSON). A call
        that fits costs the root's rules' tests and returns the shared passing verdict."""
        object.__setattr__(self, "check", root_check(self.root, compiled_table(self.table)))

    def cast(self, arguments: object) -> Cast:
        """A passing call's arguments with each exact cast applied (see `engine.casts`): a
        new object where anything changed, the same object where nothing did; the caller's
        object is never changed."""
        if self.cast_root is None:
            raise ValueError("this schema was compiled without casts; compile it with casts=True")
        caster = Caster()
        with verdicts_kept():
            cast = self.cast_root.cast(arguments, caster)
        return Cast(cast, dict.fromkeys(caster.changed), dict.fromkeys(caster.not_cast))

    def refusal(self, tool: str, verdict: Verdict) -> str:
        """The text a refused call of `tool` is answered with."""
        return compiled_table(self.table).words.refusal(tool, verdict)


def resolve_table(table: Table | str | Path | None) -> Table:
    if isinstance(table, Table):
        return table
    return default_table() if table is None else load_table(table)


@lru_cache(maxsize=1)
def default_table() -> Table:
    """The default table, read once per process (compiling must not touch the disk)."""
    return load_table()


def compile_schema(schema: object, table: Table | str | Path | None = None, casts: bool = False) -> CompiledSchema:
    """Compile any JSON value as a schema under a table (default `adr246`); never raises on
    the schema: what cannot be judged is skipped. With `casts`, also the tree `cast` walks
    (it keeps typed nodes that judge nothing, so checking does not pay for it)."""
    table = resolve_table(table)
    cast_root = compile_node(schema, table, for_casts=True) if casts else None
    return CompiledSchema(compile_node(schema, table), table, cast_root)


class SchemaCache:
    """Compiled schemas by content and table, least recently used dropped past `size`."""

    def __init__(self, size: int = 1024):
        self.size = size
        self._entries: OrderedDict[tuple, CompiledSchema] = OrderedDict()
        self._lock = threading.Lock()

    def compile(self, schema: object, table: Table | str | Path | None = None,
                casts: bool = False) -> CompiledSchema:
        table = resolve_table(table)
        try:
            key = (id(table), casts, json.dumps(schema, separators=(",", ":"), allow_nan=True))
        except (TypeError, ValueError, RecursionError):
            return compile_schema(schema, table, casts)
        with self._lock:
            compiled = self._entries.get(key)
            if compiled is not None and compiled.table is table:
                self._entries.move_to_end(key)
                return compiled
        compiled = compile_schema(schema, table, casts)
        with self._lock:
            self._entries[key] = compiled
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return compiled

    def __len__(self) -> int:
        return len(self._entries)
