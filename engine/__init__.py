"""turngate: check a model's tool-call arguments against the tool's JSON Schema before a
turn runs, and say what does not fit in exact one-sentence messages (ADR 246)."""

from . import formats
from .check import convert
from .check.convert import from_data, to_data
from .check.schema import CompiledSchema, SchemaCache, compile_schema
from .compile.casting import Cast
from .formats.gating import Gated
from .kinds.finding import Finding
from .kinds.registry import register_rule_kind
from .kinds.verdict import Mismatch, Verdict
from .table.entries import Table
from .table.errors import TableError
from .table.loading import load_table, shipped_tables
from .turn.calls import Call, CallAnswer, TurnVerdict
from .turn.gate import Toolset, check_turn
from .turn.loop import Loop, Tool
from .turn.steps import RunStep, dump_steps, load_steps, refused_steps

#: The release; pyproject.toml reads it from here.
__version__ = "0.1.0"

__all__ = [
    "Loop",
    "RunStep",
    "Tool",
    "dump_steps",
    "load_steps",
    "refused_steps",
    "Cast",
    "Gated",
    "convert",
    "formats",
    "from_data",
    "to_data",
    "Call",
    "CallAnswer",
    "Toolset",
    "TurnVerdict",
    "check_turn",
    "CompiledSchema",
    "Finding",
    "Mismatch",
    "SchemaCache",
    "Table",
    "TableError",
    "Verdict",
    "compile_schema",
    "load_table",
    "register_rule_kind",
    "shipped_tables",
]
