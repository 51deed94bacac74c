"""A `tools/list` listing page by page, and the list it makes once complete.

A listing ends at a page without `nextCursor`, and also at a cursor that is empty (some
servers send `""` for "no more") or one it was given before (a server that repeats its
cursor would be followed for ever). A complete list is read entry by entry: a malformed
entry (not an object, a name that is not text, no `inputSchema` or one that is not an
object, a name listed twice with two schemas) leaves that one tool unjudged, and the others
judged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .messages import SERVER_INFO_KEY, meta_of

if TYPE_CHECKING:
    from ...turn.gate import Toolset
    from .core import Core

#: A listing longer than this is taken to loop, and ends there.
MOST_TOOL_PAGES = 1000


class Listing:
    """The pages of one listing so far, and the cursor of the next."""

    changes: int
    epoch: int | None
    pages: int

    def __init__(self, changes: int, epoch: int | None):
        #: The change notices seen when its first page was asked for (see `ToolList`), and
        #: the proxy's listen stream it was asked under (None: none was open).
        self.changes, self.epoch = changes, epoch
        self.entries: list[object] = []
        self.cursors: set[str] = set()
        self.cursor: str | None = None  # the next page's; None once complete
        self.pages = 0
        self.ttl_ms: float | None = None  # the shortest `ttlMs` of its pages
        self.server_info: object = None

    def copy(self) -> Listing:
        """The listing so far, to be continued apart from the original (which the client
        may go on with at the same time)."""
        other = Listing(self.changes, self.epoch)
        other.entries, other.cursors, other.cursor = list(self.entries), set(self.cursors), self.cursor
        other.pages, other.ttl_ms, other.server_info = self.pages, self.ttl_ms, self.server_info
        return other

    @property
    def complete(self) -> bool:
        return self.pages > 0 and self.cursor is None

    def add(self, result: object) -> bool:
        """Add a page; False when the result is not a page of tools (the listing fails)."""
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list):
            return False
        assert isinstance(result, dict)
        self.entries.extend(tools)
        self.pages += 1
        ttl = result.get("ttlMs")
        if isinstance(ttl, (int, float)) and not isinstance(ttl, bool) and ttl >= 0 \
                and (self.ttl_ms is None or ttl < self.ttl_ms):
            self.ttl_ms = ttl
        self.server_info = meta_of(result).get(SERVER_INFO_KEY, self.server_info)
        cursor = result.get("nextCursor")
        if type(cursor) is not str or not cursor or cursor in self.cursors or self.pages >= MOST_TOOL_PAGES:
            self.cursor = None
        else:
            self.cursors.add(cursor)
            self.cursor = cursor
        return True


class KnownList:
    """A complete list: the tools judged (name -> schema), those offered but unjudged, and
    whether some entry named no tool the proxy can read (then a name not in the list may
    be that entry's, and is not refused as unknown)."""

    core: Core
    entries: list[object]
    unreadable: bool

    def __init__(self, entries: list[object], core: Core):
        self.core, self.entries = core, entries
        self.schemas: dict[str, object] = {}
        self.unjudged: set[str] = set()
        self.unreadable = False
        for entry in entries:
            self._read(entry)
        self._toolset: Toolset | None = None
        self.errors: dict[str, Exception] = {}  # a host's rule kind raised compiling these

    def _read(self, entry: object) -> None:
        name = entry.get("name") if isinstance(entry, dict) else None
        if type(name) is not str:
            self.unreadable = True
            return
        assert isinstance(entry, dict)
        schema = entry.get("inputSchema")
        if name in self.unjudged:
            return
        if name in self.schemas:
            if self.schemas[name] != schema:  # which of the two a call means, no one can say
                del self.schemas[name]
                self.unjudged.add(name)
        elif isinstance(schema, dict):
            self.schemas[name] = schema
        else:
            self.unjudged.add(name)

    @property
    def names(self) -> set[str]:
        return {*self.schemas, *self.unjudged}

    def offers(self, name: str) -> bool:
        return name in self.schemas or name in self.unjudged

    def judges(self, name: str) -> bool:
        return name not in self.unjudged and (name in self.schemas or not self.unreadable)

    def toolset(self) -> Toolset:
        """The judged tools compiled, once (on the first call that needs them)."""
        if self._toolset is None:
            self._toolset, failed, self.errors = self.core.toolset(self.schemas)
            for name in failed:
                del self.schemas[name]
                self.unjudged.add(name)
        return self._toolset
