"""`turngate proxy`: an MCP server behind a gate that checks every tool call's arguments.

    turngate proxy [--table T] [--casts] [--steps FILE] [--privacy full|metadata-only] -- COMMAND [ARGS...]
    python -m turngate.mcp.proxy [the same]

The proxy starts COMMAND, an MCP server speaking stdio, and serves MCP on its own stdin and
stdout: a client configures the proxy where it configured the server. It relays JSON-RPC
messages line by line, as the bytes they came as, both ways, and steps in at one place: a
`tools/call` is checked against the input schema the server listed for that tool, and a call
that does not fit is answered by the proxy with a tool error result (`isError: true`)
carrying turngate's Refused text; the server never sees it. With `--casts`, a call that fits
only after an exact cast ("5" for an integer) is sent cast. `--steps FILE` appends a run
step per call (JSON lines, for `turngate stats` and `turngate timeline`).

The modules, by concern:

- `relay`: the lines between the client and the server, and the lines that wait while the
  proxy lists the tools itself;
- `call_gate`: the decision on one `tools/call`;
- `tool_list`: the server's tools, read from its answers, read again after `list_changed`;
- `own_requests`: the proxy's own `tools/list` requests, with ids no client uses;
- `steps_log`: the run steps of `--steps`;
- `messages`: JSON-RPC messages, in plain `json` (no SDK import: the proxy starts fast);
- `pipes`: the byte streams, cut into lines;
- `server_process`: starting and stopping the server, and its exit code;
- `run`: one run, from the server's start to its end;
- `command`: the command line, and `add_proxy_command` for `turngate`'s.

Needs `anyio` (the `mcp` extra), imported only when the proxy runs.
"""

from .command import add_proxy_command, main

__all__ = ["add_proxy_command", "main"]
