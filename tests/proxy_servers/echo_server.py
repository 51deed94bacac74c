"""A minimal MCP server in plain Python (no SDK: it starts in a tenth of the time), which
handles one message at a time, as a simple synchronous server does. One tool: `echo(text)`.
It stands in for what no SDK server sends: malformed tool lists, and a server that cannot
take text ids.

When the client is initialized, if the client said it has roots, the server asks for them
and handles nothing else until the answer comes (what arrives meanwhile waits, in order):
the proxy must not wait for its own `tools/list` while holding back the client's answer. A
batch (a JSON list, MCP 2025-03-26) is answered as a batch. Its process id is written to the
file named by `TURNGATE_TEST_PID`, when set.

`TURNGATE_ECHO_TOOLS` says how it lists its tools: `paged`, in two pages (`echo`, then
`shout`); `broken`, an error for every `tools/list`; `malformed`, one list with an entry of
each malformed kind beside `echo`; `null-id`, a request with a text id is answered with an
error whose id is null (it cannot read such ids); `silent`, such a request is not answered.
"""

from __future__ import annotations

import json
import os
import sys

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
TOOLS = {"tools": [{"name": "echo", "inputSchema": TEXT}]}
MALFORMED = {"tools": [
    "shout",  # not an object
    {"name": 5, "inputSchema": TEXT},  # a name that is not text
    {"name": "whisper"},  # no inputSchema
    {"name": "tally", "inputSchema": "an object, please"},  # a schema that is not an object
    {"name": "twice", "inputSchema": TEXT}, {"name": "twice", "inputSchema": {"type": "object"}},  # two schemas
    {"name": "echo", "inputSchema": TEXT},
]}
PAGES = {None: {"tools": [{"name": "echo", "inputSchema": TEXT}], "nextCursor": "page-2"},
         "page-2": {"tools": [{"name": "shout", "inputSchema": TEXT}]}}


def tools_list(message: dict) -> dict:
    mode = os.environ.get("TURNGATE_ECHO_TOOLS")
    if mode == "broken":
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": "no tools today"}}
    if mode == "malformed":
        return {"jsonrpc": "2.0", "id": message["id"], "result": MALFORMED}
    result = PAGES[message.get("params", {}).get("cursor")] if mode == "paged" else TOOLS
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def send(message: dict | list) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(message: dict) -> None:
    reply = answered(message)
    if reply is not None:
        send(reply)


def answered(message: dict) -> dict | None:
    method, request_id = message.get("method"), message.get("id")
    mode = os.environ.get("TURNGATE_ECHO_TOOLS")
    if isinstance(request_id, str) and mode in ("null-id", "silent") and "method" in message:
        if mode == "silent":
            return None
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request: id"}}
    if method == "initialize":
        return {"jsonrpc": "2.0", "id": request_id, "result": {
            "protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "echo", "version": "1"}}}
    if method == "tools/list":
        return tools_list(message)
    if method == "tools/call" and type(request_id) in (str, int):  # a call sent as a notification gets no answer
        text = message["params"].get("arguments", {}).get("text")
        text = text.upper() if message["params"]["name"] == "shout" and isinstance(text, str) else text
        return {"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}]}}
    if method == "ping":
        return {"jsonrpc": "2.0", "id": request_id, "result": {}}
    return None


def main() -> None:
    if os.environ.get("TURNGATE_TEST_PID"):
        with open(os.environ["TURNGATE_TEST_PID"], "w", encoding="utf-8") as pid:
            pid.write(str(os.getpid()))
    lines = iter(sys.stdin)
    has_roots = False
    for line in lines:
        message = json.loads(line)
        if isinstance(message, list):
            replies = [reply for reply in map(answered, message) if reply is not None]
            if replies:
                send(replies)
            continue
        if message.get("method") == "initialize":
            has_roots = "roots" in message["params"]["capabilities"]
        if message.get("method") != "notifications/initialized" or not has_roots:
            answer(message)
            continue
        send({"jsonrpc": "2.0", "id": "roots-1", "method": "roots/list"})
        backlog = []
        for waiting in map(json.loads, lines):  # nothing is handled until the roots come
            if waiting.get("id") == "roots-1" and "method" not in waiting:
                break
            backlog.append(waiting)
        for waiting in backlog:
            answer(waiting)


if __name__ == "__main__":
    main()
