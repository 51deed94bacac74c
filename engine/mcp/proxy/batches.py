"""JSON-RPC batches (MCP 2025-03-26): one answer per batch.

The calls of a batch are judged one by one. The ones that fit go on to the server as a
batch (the line as it came when nothing was taken out of it), and the refused ones are
answered by the proxy, in the same batch answer as the server's: their answers wait for the
server's batch and join it. Where nothing that goes on is answered (only notifications are
left), the proxy's answers are the batch answer, at once.
"""

from __future__ import annotations

from collections.abc import Sequence

from .messages import Message, allowed_id, id_key


class BatchAnswers:
    def __init__(self) -> None:
        #: The ids of the requests of each batch sent on, and the proxy's answers waiting for them.
        self.waiting: list[tuple[set[str], list[Message]]] = []

    def expect(self, sent: Sequence[object], answers: list[Message]) -> bool:
        """Keep `answers` for the server's answer to the batch `sent`; False when the server
        will answer none of it (then they are the batch's answer now)."""
        ids = {id_key(m["id"]) for m in sent if isinstance(m, dict) and "method" in m and allowed_id(m)}
        if ids:
            self.waiting.append((ids, answers))
        return bool(ids)

    def settle(self, message: object) -> tuple[object, list[Message] | None]:
        """The server's message with the proxy's answers joined in, where it answers a batch
        they wait for; and answers to write after it, as a batch of their own, where the
        server answered that batch piece by piece (it had no batch to join)."""
        if isinstance(message, list):
            keys = {id_key(m.get("id")) for m in message if isinstance(m, dict)}
            for entry in self.waiting:
                if entry[0] & keys:
                    self.waiting.remove(entry)
                    return [*message, *entry[1]], None
            return message, None
        if isinstance(message, dict) and "id" in message and "method" not in message:
            key = id_key(message["id"])
            for entry in self.waiting:
                if key in entry[0]:
                    entry[0].discard(key)
                    if not entry[0]:
                        self.waiting.remove(entry)
                        return message, entry[1]
                    break
        return message, None
