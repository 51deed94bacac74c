"""The public face of compiling: `compile_schema`, and a bounded cache keyed by content."""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Callable

from attrs import field, frozen

from ..compile.budget import JUDGING, CastTooCostly, Judging
from ..compile.casting import Cast, Caster
from ..compile.compiled_table import compiled_table
from ..compile.compiler import compile_node
from ..compile.coverage import not_judged
from ..compile.node import Node
from ..kinds.verdict import ALL_JUDGED, Verdict
from ..table.entries import Table
from ..table.loading import load_table
from ..values.stack import again_on_a_fresh_stack
from .refusal import root_check


@frozen
class CompiledSchema:
    """A schema read once into rule objects; immutable, reusable, safe to share between
    threads."""

    root: Node
    table: Table
    cast_root: Node | None = None  # the tree casts walk, when compiled with casts
    #: How many of the schema's nodes the table does not judge, per reason (`compile.coverage`).
    unjudged: Mapping[str, int] = field(default=ALL_JUDGED, kw_only=True, eq=False)

    check: Callable[[object], Verdict] = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        """`check(arguments)`: the verdict on one call's arguments (decoded JSON). A call
        that fits costs the root's rules' tests and returns the schema's passing verdict."""
        object.__setattr__(self, "check", root_check(self.root, compiled_table(self.table), self.unjudged))

    def cast(self, arguments: object) -> Cast:
        """A passing call's arguments with each exact cast applied (see `engine.casts`): a
        new object where anything changed, the same object where nothing did; the caller's
        object is never changed."""
        if self.cast_root is None:
            raise ValueError("this schema was compiled without casts; compile it with casts=True")
        judging = Judging()  # verdicts kept, and the budget, for this cast (`compile.budget`)
        caster = Caster(judging)
        token = JUDGING.set(judging)
        try:
            cast = self.cast_root.cast(arguments, caster)
        except CastTooCostly:  # judging its casts would cost more than a cast may: none is made
            return Cast(arguments, (), ((),))  # type: ignore[arg-type]
        except RecursionError as error:  # called from deep in the host's stack (`values.stack`)
            return again_on_a_fresh_stack(error, self.cast, arguments)
        finally:
            JUDGING.reset(token)
        return Cast(cast, dict.fromkeys(caster.changed), dict.fromkeys(caster.not_cast))  # type: ignore[arg-type]

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
    try:
        cast_root = compile_node(schema, table, for_casts=True) if casts else None
        return CompiledSchema(compile_node(schema, table), table, cast_root, unjudged=not_judged(schema, table))
    except RecursionError as error:  # called from deep in the host's stack (`values.stack`)
        return again_on_a_fresh_stack(error, compile_schema, schema, table, casts)


def content_key(schema: object) -> bytes:
    """What tells schemas apart by content, every value of its own type: 1, 1.0 and true, a
    list and a tuple, the key "1" and a key 1, are all different (JSON text writes some of
    them alike). `pickle` writes each exactly, in C, faster than `json.dumps`, and an object
    met twice once (a schema that contains itself costs its size). Equal schemas that share
    their parts differently may get different keys: each is then compiled once."""
    return pickle.dumps(schema, protocol=5)


class SchemaCache:
    """Compiled schemas by content and table, least recently used dropped past `size`."""

    def __init__(self, size: int = 1024):
        self.size = size
        self._entries: OrderedDict[tuple[Any, ...], CompiledSchema] = OrderedDict()
        self._lock = threading.Lock()

    def compile(self, schema: object, table: Table | str | Path | None = None,
                casts: bool = False) -> CompiledSchema:
        table = resolve_table(table)
        try:
            key = (id(table), casts, content_key(schema))
        except Exception:  # noqa: BLE001  (a host's object pickle cannot write, or nested too deeply)
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
