"""turngate: check a model's tool-call arguments against the tool's JSON Schema before a
turn runs, and say what does not fit in exact one-sentence messages (ADR 246)."""

from .errors import TableError
from .loader import load_table, shipped_tables
from .registry import register_rule_kind
from .rules import Finding
from .schema import CompiledSchema, SchemaCache, compile_schema
from .table import Table
from .turn import Call, CallAnswer, Toolset, TurnVerdict, check_turn
from .verdict import Mismatch, Verdict

__all__ = [
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
