"""The upstream model of the LiteLLM guardrail's tests and benchmark: a small OpenAI-compatible
server on 127.0.0.1 (`POST /v1/chat/completions`, plain JSON or server-sent events) that
answers each request with the next reply of its script and records every request it was
sent. Standard library only, run in a thread of the test process."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from attrs import field, frozen


@frozen
class Reply:
    """A turn (text, then calls `(id, tool, arguments)`), an HTTP error `status`, or either
    sent after `delay` seconds."""

    calls: tuple[tuple[str, str, object], ...] = field(default=(), converter=tuple)
    text: str | None = None
    status: int = 200
    delay: float = 0.0
    usage: tuple[int, int] = (11, 7)


def turn(calls: list[tuple[str, str, object]], text: str | None = None, **more: Any) -> Reply:
    return Reply(tuple(calls), text, **more)


def tool_calls(reply: Reply) -> list[dict[str, Any]]:
    return [{"id": call_id, "type": "function",
             "function": {"name": tool, "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments)}}
            for call_id, tool, arguments in reply.calls]


def completion(reply: Reply, number: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.calls:
        message["tool_calls"] = tool_calls(reply)
    prompt, completion_tokens = reply.usage
    return {"id": f"chatcmpl-up{number}", "object": "chat.completion", "created": 1_700_000_000 + number,
            "model": "scripted", "system_fingerprint": "fp_scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.calls else "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion_tokens,
                      "total_tokens": prompt + completion_tokens}}


def deltas(reply: Reply) -> list[dict[str, Any]]:
    """The reply as an OpenAI stream's deltas: the text in two pieces, then each call's id and
    name, then its arguments in two pieces."""
    found: list[dict[str, Any]] = []
    if reply.text:
        half = len(reply.text) // 2
        found += [{"role": "assistant", "content": reply.text[:half]}, {"content": reply.text[half:]}]
    for index, call in enumerate(tool_calls(reply)):
        arguments = call["function"]["arguments"]
        half = len(arguments) // 2
        found.append({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                      "function": {"name": call["function"]["name"], "arguments": ""}}]})
        found += [{"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
                  for piece in (arguments[:half], arguments[half:])]
    return found


def events(reply: Reply, number: int, usage: bool) -> list[dict[str, Any]]:
    head = {"id": f"chatcmpl-up{number}", "object": "chat.completion.chunk", "created": 1_700_000_000 + number,
            "model": "scripted", "system_fingerprint": "fp_scripted"}
    chunks = [head | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]} for delta in deltas(reply)]
    chunks.append(head | {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls" if reply.calls else "stop"}]})
    if usage:
        prompt, completion_tokens = reply.usage
        chunks.append(head | {"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion_tokens,
                                                       "total_tokens": prompt + completion_tokens}})
    return chunks


class ScriptedUpstream:
    """`script(...)` the replies of the next requests; `requests` holds every body sent.
    Past the script, `default` answers (an error, unless it is set)."""

    def __init__(self, default: Reply = Reply(status=599)) -> None:
        self.default = default
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def script(self, *replies: Reply) -> None:
        with self.lock:
            self.replies.clear()
            self.replies.extend(replies)
            self.requests.clear()

    def next(self, body: dict[str, Any]) -> tuple[Reply, int]:
        with self.lock:
            self.requests.append(body)
            reply = self.replies.popleft() if self.replies else self.default
            return reply, len(self.requests)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # the test output stays quiet
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                reply, number = upstream.next(body)
                time.sleep(reply.delay)
                if reply.status != 200:
                    self._send(reply.status, "application/json",
                               json.dumps({"error": {"message": "scripted failure", "type": "server_error"}}).encode())
                elif body.get("stream"):
                    usage = bool((body.get("stream_options") or {}).get("include_usage"))
                    stream = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n"
                                      for event in events(reply, number, usage))
                    self._send(200, "text/event-stream", stream + b"data: [DONE]\n\n")
                else:
                    self._send(200, "application/json", json.dumps(completion(reply, number)).encode())

            def _send(self, status: int, kind: str, payload: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("content-type", kind)
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # the proxy timed out and left
                    pass

        return Handler
