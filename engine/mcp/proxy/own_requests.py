"""The proxy's own requests to the server (only `tools/list`), and their answers, which the
client never sees.

Their ids start with a prefix no client uses: a fresh random one per run, as text, where
clients number their requests. The server's answer is told apart by that prefix, so the
proxy needs no table of the client's ids.
"""

from __future__ import annotations

import uuid
from typing import Awaitable, Callable

import anyio

from .messages import encode

#: Seconds the proxy waits for the server to answer one of its requests.
ANSWER_TIMEOUT = 30.0

Send = Callable[[bytes], Awaitable[None]]


class OwnRequests:
    def __init__(self, to_server: Send):
        self.to_server = to_server
        self.prefix = f"turngate-proxy-{uuid.uuid4().hex}-"
        #: The prefix as bytes: a line from the server without it is none of these answers,
        #: and is passed on without being parsed.
        self.mark = self.prefix.encode()
        self.asked = 0
        self.waiting: dict[str, list] = {}  # request id -> [answered event, result]

    async def ask(self, method: str, params: dict) -> object:
        """The result of a request to the server; None for an error or no answer in time."""
        self.asked += 1
        request_id = f"{self.prefix}{self.asked}"
        slot = self.waiting[request_id] = [anyio.Event(), None]
        request = {"jsonrpc": "2.0", "id": request_id, "method": method}
        await self.to_server(encode({**request, "params": params} if params else request))
        with anyio.move_on_after(ANSWER_TIMEOUT):
            await slot[0].wait()
        del self.waiting[request_id]
        return slot[1]

    def take_answer(self, message: dict) -> bool:
        """Whether a message from the server answers one of these requests (then it is kept
        from the client); a late answer, after the wait gave up, is the proxy's too."""
        request_id = message.get("id")
        if "method" in message or not isinstance(request_id, str) or not request_id.startswith(self.prefix):
            return False
        slot = self.waiting.get(request_id)
        if slot is not None:
            slot[1] = message.get("result")
            slot[0].set()
        return True
