"""An MCP server on the SDK's low-level `Server`, whose tool list is paged and whose schemas
change: `python tests/proxy_servers/catalog_server.py [--http PORT]` (stdio, or Streamable
HTTP under uvicorn on 127.0.0.1).

Tools: `note(text)`, `tag(label)`, `clip(url)`, `count(n)` (which reports its progress n
times), `wait(seconds)` (recorded again when done: a cancelled call is not) and `retype`,
which changes `note` to take `title` instead of `text` (and back), telling no one unless
`TURNGATE_NOTIFY` is set (then it publishes the change to `subscriptions/listen` streams,
2026-07-28, and sends `notifications/tools/list_changed`, before that version). Set by the
environment:

- `TURNGATE_PAGE`: tools per page of `tools/list` (default: all on one page);
- `TURNGATE_CURSOR`: `index` (default, the next page's index), `repeat` (the same cursor on
  every page: a listing that never ends but for the reader) or `empty` (`""` after the last);
- `TURNGATE_TTL_MS`: the `ttlMs` of every `tools/list` result (none by default);
- `TURNGATE_LISTEN`: serve `subscriptions/listen` (2026-07-28);
- `TURNGATE_TEST_CALLS`: a file every call is appended to, as a JSON line;
- `TURNGATE_TOKENS` (HTTP only): `admin=TOKEN,user=TOKEN`: a request without one of these
  bearer tokens is answered 401, and the admin's list has one more tool, `purge(days)`.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from mcp.server import Server
from mcp.server.caching import CacheHint
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged


def note_schema(field: str) -> dict[str, Any]:
    return {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}


SCHEMAS: dict[str, dict[str, Any]] = {
    "note": note_schema("text"),
    "tag": {"type": "object", "properties": {"label": {"type": "string", "enum": ["red", "blue"]}},
            "required": ["label"]},
    "clip": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
    "count": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    "wait": {"type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]},
    "retype": {"type": "object", "properties": {}},
}
BUS = InMemorySubscriptionBus()
PURGE = {"type": "object", "properties": {"days": {"type": "integer"}}, "required": ["days"]}


def role(ctx: Any) -> str | None:
    """The caller's role, from its bearer token (HTTP only)."""
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    tokens = dict(item.split("=", 1) for item in os.environ.get("TURNGATE_TOKENS", "").split(",") if "=" in item)
    given = headers.get("authorization", "").removeprefix("Bearer ") if headers is not None else ""
    return next((name for name, token in tokens.items() if token == given), None)


def record(tool: str, arguments: dict[str, Any]) -> None:
    if os.environ.get("TURNGATE_TEST_CALLS"):
        with open(os.environ["TURNGATE_TEST_CALLS"], "a", encoding="utf-8") as calls:
            calls.write(json.dumps({"tool": tool, "arguments": arguments}, sort_keys=True) + "\n")


def page_cursor(start: int, size: int) -> str | None:
    mode = os.environ.get("TURNGATE_CURSOR", "index")
    if mode == "repeat":
        return "again"
    if start + size < len(SCHEMAS):
        return str(start + size)
    return "" if mode == "empty" else None


async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    size = int(os.environ.get("TURNGATE_PAGE", len(SCHEMAS)))
    cursor = params.cursor if params is not None else None
    start = int(cursor) if cursor and cursor.isdigit() else 0
    names = list(SCHEMAS)[start:start + size]
    tools = [types.Tool(name=name, input_schema=SCHEMAS[name]) for name in names]
    if role(ctx) == "admin":
        tools.append(types.Tool(name="purge", input_schema=PURGE))
    return types.ListToolsResult(tools=tools, next_cursor=page_cursor(start, size))


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    record(params.name, arguments)
    if params.name == "count":
        for step in range(1, arguments["n"] + 1):
            await ctx.session.report_progress(step, arguments["n"], f"step {step}")
    if params.name == "wait":
        await anyio.sleep(arguments["seconds"])
        record("wait done", arguments)
    if params.name == "retype":
        field = "title" if "text" in SCHEMAS["note"]["properties"] else "text"
        SCHEMAS["note"] = note_schema(field)
        if os.environ.get("TURNGATE_NOTIFY"):
            await BUS.publish(ToolsListChanged())
            if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:  # 2026-07-28 has only the streams
                await ctx.session.send_tool_list_changed()
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"note takes {field} now")])
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"{params.name}: {json.dumps(arguments)}")])


def server() -> Server[Any]:
    ttl = os.environ.get("TURNGATE_TTL_MS")
    return Server("catalog", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool,
                  cache_hints={"tools/list": CacheHint(ttl_ms=int(ttl))} if ttl else None,
                  on_subscriptions_listen=ListenHandler(BUS) if os.environ.get("TURNGATE_LISTEN") else None)


async def serve_stdio() -> None:
    app = server()
    async with stdio_server() as (read, write):
        await app.run(read, write, app.create_initialization_options())


def serve_http(port: int) -> None:
    import uvicorn
    from starlette.responses import JSONResponse

    app = server().streamable_http_app()
    tokens = {item.split("=", 1)[1] for item in os.environ.get("TURNGATE_TOKENS", "").split(",") if "=" in item}

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers", [])) if scope["type"] == "http" else {}
        given = headers.get(b"authorization", b"").decode().removeprefix("Bearer ")
        if tokens and scope["type"] == "http" and given not in tokens:
            await JSONResponse({"error": "invalid_token"}, status_code=401,
                               headers={"www-authenticate": 'Bearer error="invalid_token"'})(scope, receive, send)
            return
        await app(scope, receive, send)

    uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        serve_http(int(sys.argv[2]))
    else:
        anyio.run(serve_stdio)
