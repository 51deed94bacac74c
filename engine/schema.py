"""The public face of compiling: `compile_schema`, and a bounded cache keyed by content."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path

from attrs import frozen

from .compiler import Node, compile_node
from .interpreter import check
from .loader import load_table
from .messages import refusal_text
from .table import Table
from .verdict import Verdict


@frozen
class CompiledSchema:
    """A schema read once into rule objects; immutable, reusable, safe to share between
    threads."""

    root: Node
    table: Table

    def check(self, arguments: object) -> Verdict:
        """The verdict on one call's arguments (decoded JSON)."""
        return check(self.root, self.table, arguments)

    def refusal(self, tool: str, verdict: Verdict) -> str:
        """The text a refused call of `tool` is answered with."""
        return refusal_text(self.table, tool, verdict)


def resolve_table(table: Table | str | Path | None) -> Table:
    if isinstance(table, Table):
        return table
    return load_table() if table is None else load_table(table)


def compile_schema(schema: object, table: Table | str | Path | None = None) -> CompiledSchema:
    """Compile any JSON value as a schema under a table (default `adr246`); never raises on
    the schema: what cannot be judged is skipped."""
    table = resolve_table(table)
    return CompiledSchema(compile_node(schema, table), table)


class SchemaCache:
    """Compiled schemas by content and table, least recently used dropped past `size`."""

    def __init__(self, size: int = 1024):
        self.size = size
        self._entries: OrderedDict[tuple, CompiledSchema] = OrderedDict()
        self._lock = threading.Lock()

    def compile(self, schema: object, table: Table | str | Path | None = None) -> CompiledSchema:
        table = resolve_table(table)
        try:
            key = (id(table), json.dumps(schema, separators=(",", ":"), allow_nan=True))
        except (TypeError, ValueError, RecursionError):
            return compile_schema(schema, table)
        with self._lock:
            compiled = self._entries.get(key)
            if compiled is not None and compiled.table is table:
                self._entries.move_to_end(key)
                return compiled
        compiled = compile_schema(schema, table)
        with self._lock:
            self._entries[key] = compiled
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return compiled

    def __len__(self) -> int:
        return len(self._entries)
