"""An MCP server for the tests, run over stdio: `python tests/mcp_server.py`.

Its tools' input schemas are the ones pydantic generates for the SDK's `MCPServer` (what
FastMCP became in mcp 2): optional fields (`anyOf` with null), a nested model and an enum
class (`$ref` to `$defs`), a `Literal` (an inline `enum`) and lists. Every call it receives
is appended as a JSON line to the file named by `TURNGATE_TEST_CALLS`, so a test can tell
what reached it.
"""

from __future__ import annotations

import enum
import json
import os
from typing import Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

server = MCPServer("turngate-test")


class Priority(str, enum.Enum):
    low = "low"
    high = "high"


class Person(BaseModel):
    name: str
    email: str | None = None


def record(tool: str, arguments: dict) -> None:
    with open(os.environ["TURNGATE_TEST_CALLS"], "a", encoding="utf-8") as calls:
        calls.write(json.dumps({"tool": tool, "arguments": arguments}, sort_keys=True) + "\n")


@server.tool()
def create_ticket(title: str, kind: Literal["bug", "feature"], labels: list[str] | None = None,
                  reporter: Person | None = None, priority: Priority = Priority.low,
                  estimate: int | None = None) -> str:
    """Open a ticket."""
    arguments = {"title": title, "kind": kind, "labels": labels, "priority": priority.value, "estimate": estimate,
                 "reporter": None if reporter is None else reporter.model_dump()}
    record("create_ticket", arguments)
    return f"Ticket opened: {title} ({kind}, {priority.value})."


@server.tool()
def assign(ticket: int, people: list[Person]) -> str:
    """Assign a ticket to people."""
    record("assign", {"ticket": ticket, "people": [person.model_dump() for person in people]})
    return f"Ticket {ticket} assigned to {', '.join(person.name for person in people)}."


if __name__ == "__main__":
    server.run("stdio")
