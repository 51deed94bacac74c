"""The tools as the client sees them: the list each `tools/call` is judged by, and whether it
is still current.

The list is learned from the server's answers. A client's own listing is read on its way
through, page by page, and once complete (or continued by the proxy, when a call comes
before the client asked for every page) it is the list. It stops being current when:

- the server says its tools changed (`notifications/tools/list_changed`, on a 2026-07-28
  `subscriptions/listen` stream or, before that version, on its own);
- its `ttlMs` has passed (0: at once; in a 2026-07-28 session an absent `ttlMs` is 0, as
  the specification has it) — unless the proxy holds a listen stream that would have told
  it of a change since the list was asked for;
- the client reads the list again (the client has a reason to);
- the proxy's listen stream ends (no change is told from then on).

A call is then judged by a list read afresh (see `Session`); where none can be read, the
call is not judged by an old one: it goes to the server, which judges it as without the
proxy. A name the list lacks has the list read again once (a server may add a tool without
a word), and not again for that name until the list changes.
"""

from __future__ import annotations

import time
from typing import Callable

from .core import Core
from .listing import KnownList, Listing
from .messages import Message, id_key, is_request, params_of

Clock = Callable[[], float]


class ToolList:
    core: Core
    clock: Callable[[], float]
    changes: int
    learned: int
    received: float

    def __init__(self, core: Core, clock: Clock = time.monotonic):
        self.core, self.clock = core, clock
        self.known: KnownList | None = None
        self.server_info: object = None
        self.changes = 0  # change notices seen so far
        self.learned = 0  # `changes` when the known list was asked for
        self.expires: float | None = None  # when the known list's ttlMs passes; None: never
        self.received = 0.0  # when the known list came
        self.watched: int | None = None  # the listen stream that would tell of its changes
        self.checked: set[str] = set()  # names the known list was read afresh for, and lacks
        self.modern = False  # a 2026-07-28 session: an absent ttlMs is 0
        self.client_listings: dict[str, Listing] = {}  # by the request id of each page asked
        self.pending: Listing | None = None  # the client's newest listing, not complete yet

    def current(self, stream: int | None, since: float | None = None) -> bool:
        """Whether the known list may judge calls now, or a call that came at `since`; a
        list that came after the call is current for it, whatever its ttl. `stream`: the
        epoch of the listen stream the proxy holds (None: none)."""
        if self.known is None or self.learned != self.changes:
            return False
        if self.watched is not None and self.watched == stream:
            return True
        if since is not None and self.received >= since:
            return True
        return self.expires is None or self.clock() < self.expires

    def wants(self, name: str) -> bool:
        """Whether a call of `name` has the list read again first: the list lacks it, and
        was not read afresh for it."""
        known = self.known
        return known is not None and not known.offers(name) and not known.unreadable and name not in self.checked

    def changed(self) -> None:
        self.changes += 1

    def stream_lost(self, epoch: int) -> None:
        if self.watched == epoch:
            self.watched = None

    # the client's listings

    def client_asked(self, message: Message, stream: int | None) -> None:
        """A client's `tools/list`: the first page starts a listing; the next page of the
        client's newest listing continues it."""
        if not is_request(message, "tools/list"):
            return
        cursor = params_of(message).get("cursor")
        if cursor is None:
            self.changed()  # the client reads the list again: so does the proxy, before the next call
            self.pending = Listing(self.changes, stream)
        elif self.pending is None or cursor != self.pending.cursor:
            return
        self.client_listings[id_key(message["id"])] = self.pending

    def client_answered(self, message: Message, stream: int | None) -> None:
        """The server's answer to a page the client asked for."""
        listing = self.client_listings.pop(id_key(message.get("id")), None)
        if listing is None or listing.complete:
            return
        if not listing.add(message.get("result")):
            if listing is self.pending:
                self.pending = None
            return
        if listing.complete:
            self.adopt(listing, stream)

    # adopting a list

    def continued(self, stream: int | None) -> Listing:
        """What a fresh read starts from: the client's listing under way, when no change
        came since it began, or a new one."""
        pending = self.pending
        if pending is not None and not pending.complete and pending.changes == self.changes and pending.pages:
            return pending.copy()
        return Listing(self.changes, stream)

    def adopt(self, listing: Listing, stream: int | None, checked: tuple[str, ...] = ()) -> None:
        """A complete listing becomes the list; `stream`: the epoch of the proxy's stream,
        open or opening (a list asked for under it is watched by it, once it is held);
        `checked`: the names it was read for."""
        if listing is self.pending:
            self.pending = None
        if self.known is not None and self.learned > listing.changes:
            return  # a newer list came first
        before = self.known
        same = before is not None and before.entries == listing.entries  # the same list stays compiled
        known = self.known = before if same and before is not None else KnownList(listing.entries, self.core)
        self.learned = listing.changes
        self.received = self.clock()
        self.server_info = listing.server_info if listing.server_info is not None else self.server_info
        ttl = listing.ttl_ms if listing.ttl_ms is not None else (0 if self.modern else None)
        self.expires = None if ttl is None else self.clock() + ttl / 1000
        self.watched = listing.epoch if listing.epoch is not None and listing.epoch == stream else None
        # Names read afresh for stay so while the list is the same one: "until the list changes".
        kept = self.checked if before is not None and before.names == known.names else set()
        self.checked = {name for name in (*kept, *checked) if not known.offers(name)}
