"""The gate in front of an MCP server: a client session whose tool calls are checked a turn
at a time, locally, against the schemas the server listed, before any is sent.

A refused turn sends nothing to the server and charges nothing to the external call
budget; every call gets the gate's answer as a `CallToolResult` with `isError`. An accepted
turn sends its calls in order, each charged once, and returns the server's results.

Needs the MCP SDK (the `mcp` extra); `mcp` is imported only when a
result is built, so the rest of the package works without it.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Iterable, Mapping

from attrs import field, frozen

from ..values.converters import as_tuple
from ..extras import missing_extra
from ..formats import mcp_calls
from ..table.entries import Table
from ..turn.calls import Call, TurnVerdict, id_key
from ..turn.gate import Toolset, check_turn
from ..turn.telemetry import Telemetry

#: A server that hands out more pages of tools than this is taken to loop.
MOST_TOOL_PAGES = 1000


@frozen
class GatedTurn:
    """What became of a turn: whether its calls were sent, its calls (ids given or by
    position, arguments decoded), and one `mcp.types.CallToolResult` per call in the order
    of the turn: the server's, or the gate's answer."""

    sent: bool
    calls: tuple[Call, ...] = field(converter=as_tuple)
    results: tuple[Any, ...] = field(converter=as_tuple)
    verdict: TurnVerdict


class GatedSession:
    """Wraps an initialized `mcp.ClientSession` or an entered `mcp.Client` (anything with
    their `list_tools` and `call_tool`). `charge(call)` is called once per call actually
    sent, before it is sent: the host's external call budget, which may raise to stop the
    turn. With `telemetry`, each turn decided is reported to OpenTelemetry (gate "mcp")."""

    session: Any
    table: Table | str | None
    charge: Callable[[Call], object] | None
    telemetry: None | Telemetry

    def __init__(self, session: Any, table: Table | str | None = None,
                 charge: Callable[[Call], object] | None = None, telemetry: Telemetry | None = None):
        self.session, self.table, self.charge = session, table, charge
        self.telemetry = None if telemetry is None else telemetry.for_gate("mcp")
        self.tools: tuple[Any, ...] = ()
        self.toolset: Toolset | None = None

    async def list_tools(self) -> tuple[Any, ...]:
        """The server's tools (every page), whose input schemas the gate now judges by."""
        tools: list[Any] = []
        cursor = None
        for _ in range(MOST_TOOL_PAGES):
            listed = await self._tools_page(cursor)
            tools.extend(listed.tools)
            cursor = listed.next_cursor
            if cursor is None:
                break
        self.tools = tuple(tools)
        self.toolset = Toolset({tool.name: tool.input_schema for tool in tools}, self.table)
        return self.tools

    async def _tools_page(self, cursor: str | None) -> Any:
        if cursor is None:
            return await self.session.list_tools()
        # `ClientSession` takes the cursor in request params, the high-level `mcp.Client` as is.
        if "params" in inspect.signature(self.session.list_tools).parameters:
            return await self.session.list_tools(params=_mcp_types().PaginatedRequestParams(cursor=cursor))
        return await self.session.list_tools(cursor=cursor)

    async def call_turn(self, calls: Iterable[Call | Mapping[str, Any]]) -> GatedTurn:
        """Gate a turn of `tools/call` params (`{"name", "arguments"}`, or JSON-RPC requests,
        or `engine.Call`s); send its calls only when every one fits. Calls without an id
        are known by their place in the turn: "call_1", "call_2", ..."""
        if self.toolset is None:
            await self.list_tools()
        turn = mcp_calls.calls(list(calls))
        verdict = check_turn(turn, self.toolset, telemetry=self.telemetry)
        if not verdict.ok:
            return GatedTurn(False, turn, _refusals(turn, verdict), verdict)
        results = []
        for call in verdict.calls:
            if self.charge is not None:
                self.charge(call)
            results.append(await self.session.call_tool(call.tool, call.arguments))
        return GatedTurn(True, verdict.calls, results, verdict)


def _refusals(turn: tuple[Call, ...], verdict: TurnVerdict) -> list[Any]:
    """The gate's answer for each call of a refused turn; calls sharing an id share it."""
    results = [_mcp_types().CallToolResult.model_validate(result) for result in mcp_calls.answers(verdict)]
    by_id = {id_key(answer.call_id): result for answer, result in zip(verdict.answers, results)}
    return [by_id[id_key(call.id)] for call in turn]


def _mcp_types() -> Any:
    """`mcp.types`, imported when first needed (the MCP SDK is an extra)."""
    try:
        import mcp.types
    except ImportError as error:  # the extra is missing, or of a release it does not allow
        raise missing_extra("mcp", __name__, error) from error
    return mcp.types
