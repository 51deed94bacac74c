"""One client session as the gate sees it: the list its calls are judged by, kept current
with the proxy's own requests (see `ToolList` for when it is read again).

The proxy asks the server through an `Upstream`: over a line relay (stdio, or a remote
server behind `--url`) its requests go on the same wire as the client's (`OwnRequests`);
behind `--listen` with a remote server they are HTTP requests of their own. Reading the
list again costs the calls that need it one round trip; a server that does not answer
costs one short wait per session (see `own_requests`), after which the calls are judged
by the lists the client reads, or go on unjudged where there is none.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import anyio

from .core import Core
from .listing import Listing
from .messages import PROTOCOL_VERSION_KEY, TOOLS_CHANGED, Message, envelope, is_answer, is_request
from .subscription import Subscription
from .tool_list import Clock, ToolList


class Upstream(Protocol):
    """How the proxy asks the server itself."""

    given_up: bool  # the server did not answer one of the proxy's requests: ask nothing more
    stream: Subscription | None

    async def ask(self, method: str, params: dict[str, Any]) -> object: ...

    async def wait_for(self, answered: anyio.Event) -> bool: ...

    async def listen(self, params: dict[str, Any]) -> object: ...


class Session:
    core: Core
    upstream: Upstream
    tools: ToolList
    stream: Subscription

    def __init__(self, core: Core, upstream: Upstream, clock: Clock = time.monotonic):
        self.core, self.upstream = core, upstream
        self.tools = ToolList(core, clock)
        self.stream = Subscription(self.tools.changed, self.tools.stream_lost)
        upstream.stream = self.stream
        self.envelope: dict[str, Any] = {}  # the client's newest 2026-07-28 envelope
        self._reading = anyio.Lock()

    # client -> server

    async def client_request(self, message: object) -> None:
        """A client message on its way to the server (not a call): its envelope, and its
        `tools/list`, whose answer the proxy reads. In a 2026-07-28 session the proxy's
        stream is opened before the client's first listing, so that the list it learns is
        one the stream would tell a change of."""
        if not isinstance(message, dict):
            return
        found = envelope(message)
        if found:
            self.envelope = found
            self.tools.modern = PROTOCOL_VERSION_KEY in found
        if is_request(message, "tools/list") and self.tools.modern and self.stream.wanted():
            await self.stream.open(self.upstream.listen, self.envelope)
        self.tools.client_asked(message, self.stream.active_epoch)

    # server -> client

    def server_message(self, message: Message) -> None:
        """A message from the server on its way to the client."""
        if message.get("method") == TOOLS_CHANGED:
            self.tools.changed()
        elif is_answer(message) and self.tools.client_listings:
            self.tools.client_answered(message, self.stream.active_epoch)

    # before calls are judged

    def wants_list(self, names: list[str], since: float | None = None) -> bool:
        """Whether the list is to be read before calls of `names` (that came at `since`) are judged."""
        if self.upstream.given_up:
            return False
        return not self.tools.current(self.stream.held_epoch, since) or any(map(self.tools.wants, names))

    async def read_list(self, names: list[str]) -> None:
        """Read the list afresh, once for calls that wait together."""
        async with self._reading:
            if not self.wants_list(names):
                return
            if self.tools.modern and self.stream.wanted():
                await self.stream.open(self.upstream.listen, self.envelope)
                if not await self.upstream.wait_for(self.stream.settled):
                    return  # it does not answer the proxy's requests
            listing = self.tools.continued(self.stream.active_epoch)
            if await self._pages(listing):
                self.tools.adopt(listing, self.stream.active_epoch, tuple(names))

    async def _pages(self, listing: Listing) -> bool:
        while not listing.complete:
            params: dict[str, Any] = {"_meta": self.envelope} if self.envelope else {}
            if listing.cursor is not None:
                params["cursor"] = listing.cursor
            if not listing.add(await self.upstream.ask("tools/list", params)):
                return False
        return True

    def judging(self, name: str, since: float | None = None) -> bool:
        """Whether a call of `name` (that came at `since`) can be judged now: the list is
        current for it and judges it."""
        tools = self.tools
        known = tools.known
        if known is None or not tools.current(self.stream.held_epoch, since) or tools.wants(name):
            return False
        known.toolset()  # compiled now: a schema that cannot be compiled leaves its tool unjudged
        return known.judges(name)
