"""A minimal MCP server in plain Python (no SDK: it starts in a tenth of the time), which
handles one message at a time, as a simple synchronous server does. One tool: `echo(text)`.

When the client is initialized, if the client said it has roots, the server asks for them
and handles nothing else until the answer comes (what arrives meanwhile waits, in order):
the proxy must not wait for its own `tools/list` while holding back the client's answer. A
batch (a JSON list) is not answered. Its process id is written to the file named by
`TURNGATE_TEST_PID`, when set.

`TURNGATE_ECHO_TOOLS=paged` lists the tools in two pages (`echo`, then `shout`);
`TURNGATE_ECHO_TOOLS=broken` answers every `tools/list` with an error.
"""

from __future__ import annotations

import json
import os
import sys

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
TOOLS = {"tools": [{"name": "echo", "inputSchema": TEXT}]}
PAGES = {None: {"tools": [{"name": "echo", "inputSchema": TEXT}], "nextCursor": "page-2"},
         "page-2": {"tools": [{"name": "shout", "inputSchema": TEXT}]}}


def tools_list(message: dict) -> dict:
    mode = os.environ.get("TURNGATE_ECHO_TOOLS")
    if mode == "broken":
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": "no tools today"}}
    result = PAGES[message.get("params", {}).get("cursor")] if mode == "paged" else TOOLS
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(message: dict) -> None:
    method, request_id = message.get("method"), message.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": request_id, "result": {
            "protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "echo", "version": "1"}}})
    elif method == "tools/list":
        send(tools_list(message))
    elif method == "tools/call" and request_id is not None:  # a call sent as a notification gets no answer
        text = message["params"].get("arguments", {}).get("text")
        text = text.upper() if message["params"]["name"] == "shout" and isinstance(text, str) else text
        send({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}]}})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": request_id, "result": {}})


def main() -> None:
    if os.environ.get("TURNGATE_TEST_PID"):
        with open(os.environ["TURNGATE_TEST_PID"], "w", encoding="utf-8") as pid:
            pid.write(str(os.getpid()))
    lines = iter(sys.stdin)
    has_roots = False
    for line in lines:
        message = json.loads(line)
        if isinstance(message, list):
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
