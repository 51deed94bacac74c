"""The proxy's own `subscriptions/listen` stream in a 2026-07-28 session.

In that version a server tells of a changed tool list only on such a stream: a request
whose answer is the stream, acknowledged first (`notifications/subscriptions/acknowledged`,
with the filter the server honours), then one notification per change, each tagged in
`_meta` with the listen request's id. The proxy opens one for tool list changes when it
first needs the list, where the server offers it (a server that does not answers the
request with an error, and the list's `ttlMs` alone says how long it stays current); the
frames of its stream are the proxy's and never reach the client. The client's own streams
pass through as they are (a change they tell is noted all the same).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable

import anyio

from .messages import TOOLS_CHANGED, Message, params_of

if TYPE_CHECKING:
    from anyio import Event


LISTEN = "subscriptions/listen"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
TOOLS_FILTER = {"notifications": {"toolsListChanged": True}}

#: Starts the stream (the request sent): `params` in, the request id out (None: it could
#: not be sent). Its frames come back through `Subscription.frame`, its end through `ended`.
Open = Callable[[dict[str, Any]], Awaitable[object]]


class Subscription:
    """The state of the proxy's stream: none yet, opening, held (acknowledged with tool
    list changes honoured), or refused (the server does not offer one)."""

    on_change: Callable[[], None]
    on_lost: Callable[[int], None]
    epoch: int
    held: bool
    refused: bool
    settled: Event

    def __init__(self, on_change: Callable[[], None], on_lost: Callable[[int], None]):
        self.on_change, self.on_lost = on_change, on_lost
        self.epoch = 0  # one per stream opened; lists asked under it are told of its changes
        self.request_id: object = None
        self.held = False
        self.refused = False
        self.settled = anyio.Event()  # acknowledged, refused or ended: the wait for it is over

    @property
    def opening(self) -> bool:
        return self.request_id is not None and not self.held and not self.settled.is_set()

    @property
    def active_epoch(self) -> int | None:
        """The epoch lists are asked under: the stream's while opening or held."""
        return self.epoch if self.held or self.opening else None

    @property
    def held_epoch(self) -> int | None:
        return self.epoch if self.held else None

    def wanted(self) -> bool:
        """Whether to open a stream now: none is open or opening, and none was refused."""
        return not self.refused and not self.held and not self.opening

    async def open(self, send: Open, request_envelope: dict[str, Any]) -> None:
        self.epoch += 1
        self.held, self.settled = False, anyio.Event()
        params: dict[str, Any] = {**TOOLS_FILTER}
        if request_envelope:
            params["_meta"] = request_envelope
        self.request_id = await send(params)
        if self.request_id is None:  # the proxy asks the server nothing more
            self.settled.set()

    def frame(self, message: Message) -> None:
        """A notification of the proxy's stream."""
        method = message.get("method")
        if method == ACKNOWLEDGED:
            honoured = params_of(message).get("notifications")
            self.held = isinstance(honoured, dict) and honoured.get("toolsListChanged") is True
            self.refused = not self.held
            self.settled.set()
        elif method == TOOLS_CHANGED:
            self.on_change()

    def ended(self, message: Message) -> None:
        """The stream's final answer (the server closed it) or an error (none is offered)."""
        if "error" in message and not self.held:
            self.refused = True
        if self.held:
            self.on_lost(self.epoch)
        self.held, self.request_id = False, None
        self.settled.set()
