"""turngate: check a model's tool-call arguments against the tool's JSON Schema before a
turn runs, and say what does not fit in exact one-sentence messages (ADR 246).

Every name below is imported on first use (PEP 562), so `import turngate` costs little: a
command that needs only part of the package (`turngate proxy`, which judges nothing until
the first call) does not pay for the rest at its start."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what a type checker and an editor see; at run time, `__getattr__` below
    from . import formats
    from .check import convert
    from .check.convert import from_data, to_data
    from .check.schema import CompiledSchema, SchemaCache, compile_schema
    from .compile.casting import Cast
    from .formats.gating import Gated
    from .kinds.finding import Finding
    from .kinds.hosted import RuleKindError
    from .kinds.registry import register_rule_kind
    from .kinds.verdict import Mismatch, Verdict
    from .table.entries import Table
    from .table.errors import TableError
    from .table.loading import load_table, shipped_tables
    from .turn.calls import Call, CallAnswer, TurnVerdict
    from .turn.gate import Toolset, check_turn
    from .turn.loop import Loop, Tool
    from .turn.steps import RunStep, dump_steps, load_steps, refused_steps
    from .turn.telemetry import Telemetry, TelemetryError
    from .values.jsonvalue import JSON, JSONObject

#: Each public name and the module it comes from; a name that is a module is its own.
_SOURCES = {
    "Loop": ".turn.loop", "Tool": ".turn.loop",
    "RunStep": ".turn.steps", "dump_steps": ".turn.steps", "load_steps": ".turn.steps",
    "refused_steps": ".turn.steps",
    "Cast": ".compile.casting",
    "Gated": ".formats.gating",
    "convert": ".check.convert", "from_data": ".check.convert", "to_data": ".check.convert",
    "formats": ".formats",
    "Call": ".turn.calls", "CallAnswer": ".turn.calls", "TurnVerdict": ".turn.calls",
    "Toolset": ".turn.gate", "check_turn": ".turn.gate",
    "CompiledSchema": ".check.schema", "SchemaCache": ".check.schema", "compile_schema": ".check.schema",
    "Finding": ".kinds.finding",
    "Mismatch": ".kinds.verdict", "Verdict": ".kinds.verdict",
    "Table": ".table.entries",
    "TableError": ".table.errors",
    "load_table": ".table.loading", "shipped_tables": ".table.loading",
    "register_rule_kind": ".kinds.registry",
    "RuleKindError": ".kinds.hosted",
    "Telemetry": ".turn.telemetry", "TelemetryError": ".turn.telemetry",
    "JSON": ".values.jsonvalue", "JSONObject": ".values.jsonvalue",
}
_MODULES = {"convert", "formats"}

#: The release; pyproject.toml reads it from here.
__version__ = "0.1.0"

__all__ = [
    "Loop",
    "RunStep",
    "Tool",
    "dump_steps",
    "load_steps",
    "refused_steps",
    "Telemetry",
    "TelemetryError",
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
    "RuleKindError",
    "shipped_tables",
    "JSON",
    "JSONObject",
]


def __getattr__(name: str) -> object:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(source, __name__)
    value = module if name in _MODULES else getattr(module, name)
    globals()[name] = value  # once: the next use is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
