"""`turngate demo`: a recorded model turn replayed against the example MCP server, with no
API key and no network. The first turn has a bad call and is refused, so nothing reaches
the server; the model's next turn, written after it read the answers, runs.

The recorded turns are `mcp/demo_turn.json` in the package; the server is
`turngate.mcp.demo_server`, started over stdio with the Python that runs the demo.
"""

from __future__ import annotations

from typing import Any, Callable

import argparse
import os
import sys
from pathlib import Path

from ..mcp.gate import GatedSession, GatedTurn
from .io import FITS, InputError, read_json_file, write_line
from .turn_file import answer_lines, call_line, shown

DEMO_TURN_FILE = Path(__file__).resolve().parent.parent / "mcp" / "demo_turn.json"
INSTALL_MCP = ("the demo needs the MCP SDK; install it with: python3 -m pip install 'turngate[mcp]' "
               "(in a checkout of turngate: python3 -m pip install -e '.[mcp]').")


def run_demo(args: argparse.Namespace) -> int:
    try:
        import anyio
        import mcp  # noqa: F401  (only to tell a missing extra apart from a failing server)
    except ImportError:
        raise InputError(INSTALL_MCP) from None
    turns = recorded_turns()
    closed: list[BrokenPipeError] = []

    def say(line: str) -> None:
        try:
            write_line(line, flush=True)
        except BrokenPipeError as error:  # the reader of standard output went away
            closed.append(error)
            raise

    try:
        anyio.run(replay, turns, say)
    except Exception as error:  # anyio gathers what went wrong into exception groups
        if closed:
            raise closed[0] from None
        raise InputError(f"the example MCP server could not be run ({_innermost(error)}).") from None
    return FITS


def add_demo_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`demo`, added to the command line's subcommands."""
    demo = commands.add_parser(
        "demo", help="replay a recorded model turn against the example MCP server",
        description="Replay a recorded model turn against the example MCP server, with no API key and no "
                    "network: the first turn is refused before it reaches the server, the corrected one "
                    "runs (needs the MCP SDK: the mcp extra).")
    demo.set_defaults(run=run_demo)


def recorded_turns() -> list[dict[str, Any]]:
    path = DEMO_TURN_FILE
    recorded = read_json_file(str(path), "demo turn")
    turns = recorded.get("turns") if isinstance(recorded, dict) else None
    if not isinstance(turns, list) or not all(isinstance(turn, dict) and "calls" in turn for turn in turns):
        raise InputError(f'the demo turn file "{path}" has no "turns" with "calls".')
    return turns


async def replay(turns: list[dict[str, Any]], say: Callable[[str], None]) -> None:
    """Each recorded turn through the gate to the server, told with `say` line by line."""
    from mcp import ClientSession, StdioServerParameters, stdio_client
    # The SDK passes a server only a safe part of the environment; a measured test run
    # (coverage's variables) measures the server too.
    measured = {name: value for name, value in os.environ.items() if name.startswith("COVERAGE_")}
    server = StdioServerParameters(command=sys.executable, args=["-m", "turngate.mcp.demo_server"], env=measured)
    sent: list[Any] = []
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        gated = GatedSession(session, charge=sent.append)
        tools = await gated.list_tools()
        say("turngate demo: a recorded model turn, gated before it reaches an MCP server.")
        say(f"Server: python -m turngate.mcp.demo_server over stdio, offering {', '.join(t.name for t in tools)}.")
        for number, turn in enumerate(turns, 1):
            outcome = await gated.call_turn(turn["calls"])
            say("")
            for line in turn_lines(number, turn.get("note"), outcome):
                say(line)
            say(f"Calls sent to the server so far: {len(sent)}.")


def turn_lines(number: int, note: object, outcome: GatedTurn) -> list[str]:
    about = f" ({note})" if isinstance(note, str) else ""
    count = len(outcome.calls)
    lines = [f"Turn {number}{about}: {count} call{'' if count == 1 else 's'}",
             *("  " + call_line(call) for call in outcome.calls)]
    if not outcome.sent:
        lines.append("Refused: nothing was sent to the server; each call gets this answer:")
        for answer in outcome.verdict.answers:
            lines.extend("  " + line for line in answer_lines(answer))
        return lines
    lines.append("Accepted: every call was sent to the server, which answered:")
    for call, result in zip(outcome.calls, outcome.results):
        text = "\n".join(item.text for item in result.content if getattr(item, "type", None) == "text")
        marker = " (error)" if result.is_error else ""
        lines.extend(f"  {line}" for line in f"[{shown(call.id)}] {shown(call.tool)}{marker}: {text}".split("\n"))
    return lines


def _innermost(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{error.__class__.__name__}: {error}".rstrip(": ")
