"""The judging part of turngate, as the proxy uses it: loaded on first use, not at start.

The proxy starts in a fraction of the time `import turngate.turn.gate` and reading a table
take, so that a client waits for the server alone: the table is read and the core imported
in a thread of their own once the server is started (`warm_up`), while the client and the
server greet each other; the first call finds them ready. A table file the user names is
read at once, so that a mistake in it stops the proxy before any server starts.

With `--otel`, each call judged is reported to OpenTelemetry as a turn of its own (gate
"proxy"), and each call let through unjudged as an "unjudged" one; without it nothing of
OpenTelemetry is imported.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...formats.mcp_calls import ToolResult
    from ...table.entries import Table
    from ...turn.calls import TurnVerdict
    from ...turn.gate import Toolset
    from ...turn.telemetry import Telemetry

_PACKAGE = Path(__file__).resolve().parent.parent.parent
#: Where the shipped tables are, as `table.loading` finds them (without importing it: it
#: imports lark); `tests/test_proxy_units.py` holds the two readings equal.
RULES_DIRS = (_PACKAGE / "rules", _PACKAGE.parent / "rules")


def is_shipped(name: str) -> bool:
    return "/" not in name and any((folder / f"{name}.rules").is_file() for folder in RULES_DIRS)


def read_table(name: str) -> Table:
    """A table file (or a name that is neither a shipped table nor a file), read now;
    `TableError` says what is wrong with it."""
    from ...check.schema import resolve_table
    return resolve_table(name)


class Core:
    """The table calls are judged by and the functions that judge them, loaded once, and
    the telemetry each decision is reported with (None: none)."""

    table_option: Table | str | None
    casts: bool
    telemetry: None | Telemetry

    def __init__(self, table: Table | str | None, casts: bool, telemetry: Telemetry | None = None):
        self.table_option, self.casts = table, casts
        self.telemetry = None if telemetry is None else telemetry.for_gate("proxy")
        self._lock = threading.Lock()
        self._table: Table | None = None

    def warm_up(self) -> None:
        """Load everything in a thread, so that the first call does not wait for it. The
        thread is a daemon: a run that ends first does not wait for it."""
        threading.Thread(target=self.table, name="turngate-warm-up", daemon=True).start()

    def table(self) -> Table:
        with self._lock:
            if self._table is None:
                from ...check.schema import resolve_table
                from ...compile.compiled_table import compiled_table
                from ...formats import mcp_calls  # noqa: F401  (the answers' shape, used at the first refusal)
                from ...turn import gate  # noqa: F401
                self._table = resolve_table(self.table_option)
                compiled_table(self._table)
            return self._table

    def toolset(self, schemas: dict[str, object]) -> tuple[Toolset, set[str], dict[str, Exception]]:
        """The tools' schemas compiled; the names of those that could not be (a server's
        schema is input from outside, and one the compiler fails on leaves that tool
        unjudged, not the proxy stopped); and, by name, the `RuleKindError` a host's rule kind
        raised compiling one (its calls are answered with it: never a silent pass)."""
        from ...kinds.hosted import RuleKindError
        from ...turn.gate import SHARED_CACHE, Toolset
        errors: dict[str, Exception]
        table, failed, errors = self.table(), set(), {}
        for name, schema in schemas.items():
            try:
                SHARED_CACHE.compile(schema, table, self.casts)
            except RuleKindError as error:
                errors[name] = error
            except Exception:  # noqa: BLE001  (see above: never a traceback for a server's schema)
                failed.add(name)
        usable = {name: schema for name, schema in schemas.items() if name not in failed and name not in errors}
        return Toolset(usable, table, casts=self.casts), failed, errors

    def check(self, call: dict[str, Any], toolset: Toolset) -> TurnVerdict | Exception:
        """The verdict on one call, reported as a turn; where a host's rule kind raised,
        its `RuleKindError`."""
        from ...kinds.hosted import RuleKindError
        from ...turn.gate import check_turn
        try:
            return check_turn([call], toolset, telemetry=self.telemetry)
        except RuleKindError as error:
            return error

    def unjudged(self, tool: str, offered: bool, call_id: object) -> None:
        """Report a call sent on without being judged (see `call_gate`)."""
        if self.telemetry is not None:
            self.telemetry.unjudged(tool, offered, call_id)

    @staticmethod
    def answer(verdict: TurnVerdict) -> ToolResult:
        """The tool error result of a refused call, as the MCP format writes it."""
        from ...formats import mcp_calls
        return mcp_calls.answers(verdict)[0]
