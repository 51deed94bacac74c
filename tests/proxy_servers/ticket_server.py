"""The project's test server (tests/mcp_server.py) with what the proxy's tests need besides
its tools, run over stdio: `python tests/proxy_servers/ticket_server.py`.

Added here: a resource, a resource template, a prompt and a completion; `slow`, which takes
a while (to be cancelled); `set_estimate`, whose `hours` the server validates strictly (it
refuses "5" for an integer itself, so a cast is seen to matter); `enable_archive`, which
adds the tool `archive_ticket` and (unless told not to) tells the client the tool list
changed; and `survey`, which reports progress, logs, and asks the client for an elicitation,
a sampling, its roots and a ping before it answers. Every call is recorded as the base
server records it (`TURNGATE_TEST_CALLS`); the process id is written to the file named by
`TURNGATE_TEST_PID`, when set, so a test can tell whether the server still runs.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path
from typing import Annotated, Literal

import anyio
import mcp_types as types
from mcp.server.mcpserver import Context
from mcp.server.streamable_http import EventMessage, EventStore
from pydantic import BaseModel, Field

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from mcp_server import record, server  # noqa: E402  (the base server, extended in place)

# Logging, sampling and roots are deprecated in the 2026-07-28 revision; survey uses them all.
warnings.filterwarnings("ignore", message="The .* capability is deprecated")


@server.tool()
def set_estimate(ticket: int, hours: Annotated[int, Field(strict=True)]) -> str:
    """Set a ticket's estimate in hours."""
    record("set_estimate", {"ticket": ticket, "hours": hours})
    return f"Ticket {ticket} estimated at {hours} hours."


def archive_ticket(ticket: int, reason: Literal["done", "duplicate"]) -> str:
    """Archive a ticket."""
    record("archive_ticket", {"ticket": ticket, "reason": reason})
    return f"Ticket {ticket} archived ({reason})."


@server.tool()
async def enable_archive(ctx: Context, notify: bool = True) -> str:
    """Offer the archive_ticket tool from now on (and say so, unless told not to)."""
    record("enable_archive", {})
    server.add_tool(archive_ticket)
    if notify:
        await ctx.notify_tools_changed()  # on the listen streams of 2026-07-28
        if ctx.request_context.protocol_version != "2026-07-28":
            await ctx.session.send_tool_list_changed()
    return "archive_ticket is offered now."


class Answer(BaseModel):
    sure: bool


@server.tool()
async def survey(ticket: int, ctx: Context) -> str:
    """Ask the client a few things about a ticket."""
    record("survey", {"ticket": ticket})
    await ctx.report_progress(1, 3, "asking")
    await ctx.info(f"surveying ticket {ticket}")
    elicited = await ctx.elicit(f"Close ticket {ticket}?", schema=Answer)
    sampled = await ctx.session.create_message(
        [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=f"Summarize {ticket}"))],
        max_tokens=20, related_request_id=ctx.request_id)
    roots = await ctx.session.list_roots()
    await ctx.session.send_ping()
    await ctx.report_progress(3, 3, "done")
    return (f"elicited {elicited.action} {elicited.data.sure if elicited.data else None}; "
            f"sampled {sampled.content.text}; roots {[str(root.uri) for root in roots.roots]}")


@server.tool()
async def slow(seconds: float) -> str:
    """Take a while (for cancellation)."""
    record("slow", {"seconds": seconds})
    await anyio.sleep(seconds)
    record("slow done", {"seconds": seconds})
    return "done"


@server.tool()
async def pause(ctx: Context) -> str:
    """Close this call's event stream (over HTTP, with an event store), then answer: the
    client must resume the stream to get the answer (SEP-1699's polling)."""
    await ctx.report_progress(1, 2, "pausing")
    await ctx.close_sse_stream()
    await anyio.sleep(0.5)
    return "resumed"


@server.resource("tickets://open", mime_type="application/json")
def open_tickets() -> str:
    """The open tickets."""
    return json.dumps([{"ticket": 7, "title": "Login fails"}])


@server.resource("tickets://archive")
def archive() -> str:
    """Every archived ticket: a long text (some megabytes), to pass through as one line."""
    return "\n".join(f"Ticket {n}: archived, caf\u00e9 \u2603." for n in range(100_000))


@server.resource("tickets://{number}")
def ticket(number: str) -> str:
    """One ticket."""
    return f"Ticket {number}: Login fails."


@server.prompt()
def triage(title: str, severity: str = "low") -> str:
    """Triage a ticket."""
    return f"Triage the ticket {title!r} of severity {severity}."


@server.completion()
async def complete(ref, argument, context) -> types.Completion | None:
    if argument.name == "severity":
        return types.Completion(values=[v for v in ("low", "high") if v.startswith(argument.value)])
    return None


class MemoryEvents(EventStore):
    """The events of every stream, kept so that a client resumes a stream that dropped (the
    SDK's server asks its host for this store)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, object]] = []  # event id, stream id, message

    async def store_event(self, stream_id: str, message: object) -> str:
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: object) -> str | None:
        found = next((stream for event_id, stream, _ in self.events if event_id == last_event_id), None)
        if found is None:
            return None
        for event_id, stream, message in self.events[int(last_event_id):]:
            if stream == found and message is not None:
                await send_callback(EventMessage(message, event_id))  # type: ignore[operator]
        return found


if __name__ == "__main__":
    if os.environ.get("TURNGATE_TEST_PID"):
        Path(os.environ["TURNGATE_TEST_PID"]).write_text(str(os.getpid()), encoding="utf-8")
    if sys.argv[1:2] == ["--http"]:  # Streamable HTTP under uvicorn, streams resumable
        import uvicorn
        uvicorn.run(server.streamable_http_app(event_store=MemoryEvents(), retry_interval=100), host="127.0.0.1",
                    port=int(sys.argv[2]), log_level="warning")
    else:
        server.run("stdio")
