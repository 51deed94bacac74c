"""The tools the server offers, as the proxy knows them: the schemas each `tools/call` is
judged by.

The list is read from the server's own answers. When the client lists the tools (one page,
no cursor), the proxy reads the answer on its way through; when the client has not listed
since the server said `notifications/tools/list_changed`, the proxy lists the tools itself,
every page, before it judges the next call (see `Relay`). A list the proxy cannot read
judges nothing: every call then goes to the server, which judges it as it would without the
proxy.
"""

from __future__ import annotations

from typing import Awaitable, Callable

from ...formats import FormatError, mcp_calls
from ...kinds.hosted import RuleKindError
from ...table.entries import Table
from ...turn.gate import Toolset
from ..gate import MOST_TOOL_PAGES
from .messages import id_key, is_request, params_of

#: The proxy's own request to the server: method and params in, the result out (None for an
#: error or no answer in time).
Ask = Callable[[str, dict], Awaitable[object]]


class ToolList:
    """The server's tools and whether they must be read again before the next call."""

    def __init__(self, table: Table, casts: bool):
        self.table, self.casts = table, casts
        self.toolset: Toolset | None = None  # None: no list could be read, nothing is judged
        self.failed: RuleKindError | None = None  # a host's rule kind raised reading the list
        self.stale = True  # read the list before judging the next call
        self.changes = 0  # list_changed notifications seen so far
        # A client's tools/list in flight, by request id: the changes seen when it was asked.
        # Its answer is up to date only if no change came in between.
        self.client_lists: dict[str, int] = {}

    def offers(self, tool: str) -> bool:
        return self.toolset is not None and tool in self.toolset.compiled

    def adopt(self, result: object) -> None:
        """The tools of a complete `tools/list` result; a result of another shape judges nothing."""
        self.failed = None
        try:
            self.toolset = Toolset(mcp_calls.tools(result), self.table, casts=self.casts)
        except (FormatError, TypeError):
            self.toolset = None
        except RuleKindError as error:  # every call is answered with it: never a silent pass
            self.toolset, self.failed = None, error

    def client_asked(self, message: object) -> None:
        """Note a client's `tools/list` of the first page, whose answer the proxy will read."""
        if is_request(message, "tools/list") and "cursor" not in params_of(message):
            self.client_lists[id_key(message["id"])] = self.changes  # type: ignore[index]

    def observe(self, message: dict) -> None:
        """A message from the server, before the client sees it: a list_changed makes the
        list stale; the answer to the client's own tools/list becomes the list calls are
        judged by, unless it has more pages (the proxy then reads them all itself)."""
        if message.get("method") == "notifications/tools/list_changed":
            self.changes += 1
            self.stale = True
            return
        if "method" in message or not self.client_lists:
            return
        changes = self.client_lists.pop(id_key(message.get("id")), None)
        result = message.get("result")
        if changes is None or not isinstance(result, dict) or "nextCursor" in result:
            return
        self.adopt(result)
        self.stale = self.changes != changes

    async def fetch(self, ask: Ask, request_envelope: dict) -> None:
        """Read the server's tools, every page, with the proxy's own requests."""
        changes, tools, cursor = self.changes, [], None
        for _ in range(MOST_TOOL_PAGES):
            params: dict = {"_meta": request_envelope} if request_envelope else {}
            if cursor is not None:
                params["cursor"] = cursor
            result = await ask("tools/list", params)
            if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
                # The calls that waited go on unjudged; the next call has the list read again.
                self.toolset, self.stale = None, False
                return
            tools.extend(result["tools"])
            cursor = result.get("nextCursor")
            if not isinstance(cursor, str):
                break
        self.adopt({"tools": tools})
        self.stale = self.changes != changes  # a change while listing: this list may be old
