"""`turngate proxy`: an MCP server behind a gate that checks every tool call's arguments.

    turngate proxy [--table T] [--casts] [--steps FILE] [--privacy full|metadata-only] [--otel]
                   [--listen HOST:PORT [--allow-origin ORIGIN]...]
                   (-- COMMAND [ARGS...] | --url URL [--header 'NAME: VALUE']...)
    python -m turngate.mcp.proxy [the same]

The proxy starts COMMAND, an MCP server speaking stdio (or reaches a remote one over
Streamable HTTP, `--url`), and serves MCP on its own stdin and stdout (or over Streamable
HTTP, `--listen`): a client configures the proxy where it configured the server. It relays
JSON-RPC messages as the bytes they came as, both ways, and steps in at one place: a
`tools/call` is checked against the input schema of the list the client sees, and a call
that does not fit is answered by the proxy with a tool error result (`isError: true`)
carrying turngate's Refused text; the server never sees it. With `--casts`, a call that
fits only after an exact cast ("5" for an integer) is sent cast. `--steps FILE` appends a
run step per call (JSON lines, for `turngate stats` and `turngate timeline`); `--otel`
reports each call to OpenTelemetry, set up from the `OTEL_*` variables.

The modules, by concern:

- `relay`: the lines between the client and the server; `reading`: a line cut and decoded
  as the servers read it; `batches`: one answer per batch;
- `session`: one client session's gate and the list it judges by; `tool_list`, `listing`:
  that list, page by page, and when it stops being current; `subscription`: the proxy's
  `subscriptions/listen` stream (2026-07-28); `own_requests`: the proxy's own requests;
- `call_gate`: the decision on one `tools/call`; `core`: turngate's judging core, loaded on
  first use (the proxy starts without it);
- `steps_log`: the run steps of `--steps`;
- `messages`: JSON-RPC messages, in plain `json` (no SDK import: the proxy starts fast);
- `pipes`: the byte streams, cut into lines;
- `server_process`: starting and stopping the server, and its exit code;
- `run`: one run over stdio; `http/`: the Streamable HTTP modes;
- `command`: the command line, and `add_proxy_command` for `turngate`'s.

Needs `anyio` (the `mcp` extra), and over HTTP its httpx2, Starlette and uvicorn, imported
only when the proxy runs.
"""

from .command import add_proxy_command, main

__all__ = ["add_proxy_command", "main"]
