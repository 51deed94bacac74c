"""The command line: `turngate proxy [options] -- COMMAND [ARGS...]`, also run as
`python -m turngate.mcp.proxy`.

Exit codes of the proxy itself: 2 for unusable options (an unknown table, a steps file that
cannot be opened, no `anyio`), 127 and 126 for a server command that is not found or cannot
be run (each told in one sentence on stderr), 128+N when signal N stopped the proxy;
otherwise the server's own exit code.

`turngate` builds its whole command line from `add_proxy_command` at every start, so the
relay and everything that needs `anyio` (the `mcp` extra) is imported only when the proxy
runs: without the extra, the other commands work, and this one says what to install.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from ...check.schema import resolve_table
from ...table.errors import TableError
from ...turn.steps import PRIVACY_LEVELS
from .call_gate import CallGate
from .steps_log import StepLog
from .tool_list import ToolList

PROG = "turngate proxy"
DESCRIPTION = "Serve an MCP server over stdio, checking every tool call's arguments before the server sees it."
USAGE = "%(prog)s [--table T] [--casts] [--steps FILE] [--privacy full|metadata-only] -- COMMAND [ARGS...]"
UNUSABLE = 2
INTERNAL_ERROR = 70  # as `turngate` itself: a bug to report
INSTALL_MCP = ("the proxy needs anyio (part of the MCP SDK); install it with: python3 -m pip install 'mcp>=2.3,<3' "
               "(in a checkout of turngate: python3 -m pip install -e '.[mcp]').")


def say(text: str) -> None:
    sys.stderr.write(f"{PROG}: {text}\n")


def add_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--table", metavar="T", help="a shipped table's name or a .rules file (default: adr246)")
    parser.add_argument("--casts", action="store_true",
                        help='send a call that fits only after an exact cast ("5" for an integer) cast')
    parser.add_argument("--steps", metavar="FILE", help="append a run step per call to FILE (JSON lines)")
    parser.add_argument("--privacy", choices=PRIVACY_LEVELS, default="full",
                        help="what the steps keep; metadata-only keeps nothing the model sent (default: full)")
    # Not `dest="command"`: `turngate` keeps the name of the subcommand there.
    parser.add_argument("server_command", nargs="+", metavar="COMMAND",
                        help="the MCP server to start (after --), with its arguments")
    parser.set_defaults(run=run_proxy)
    return parser


def add_proxy_command(subparsers) -> argparse.ArgumentParser:
    """The `proxy` subcommand, on the `turngate` command line's subparsers. Its `run`
    default takes the parsed arguments and returns the exit code."""
    proxy = subparsers.add_parser("proxy", help="serve an MCP server over stdio, checking each tool call first",
                                  description=DESCRIPTION, usage=USAGE)
    return add_options(proxy)


def parser() -> argparse.ArgumentParser:
    return add_options(argparse.ArgumentParser(prog=PROG, description=DESCRIPTION, usage=USAGE))


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exit_:  # --help, or options argparse refused (it said why)
        return exit_.code if isinstance(exit_.code, int) else UNUSABLE
    try:
        return run_proxy(args)
    except Exception as error:  # noqa: BLE001  (a bug of turngate's: one sentence, as `turngate proxy` says it)
        say(f"turngate itself failed ({error.__class__.__name__}); this is a bug, please report it.")
        return INTERNAL_ERROR


class _Unusable(Exception):
    """An option that cannot be used; the text is one sentence."""


def run_proxy(args: argparse.Namespace) -> int:
    """Check the options, then serve until the server or the client ends."""
    try:
        import anyio

        from .run import serve
        from .server_process import ServerNotStarted
    except ImportError:
        say(INSTALL_MCP)
        return UNUSABLE
    try:
        tools = ToolList(resolve_table(args.table), args.casts)  # the table is read once, here
        gate = CallGate(tools, StepLog(_open_steps(args.steps), args.privacy) if args.steps else None)
    except (TableError, _Unusable) as error:
        say(str(error))
        return UNUSABLE
    try:
        return anyio.run(serve, gate, args.server_command, backend="asyncio")
    except ServerNotStarted as error:
        say(str(error))
        return error.code
    except KeyboardInterrupt:  # before the signal handlers are in place, or a second Ctrl-C
        return 130


def _open_steps(path: str) -> TextIO:
    try:
        return open(path, "a", encoding="utf-8")
    except OSError as error:
        raise _Unusable(f'the steps file "{path}" cannot be opened ({error.strerror or error}).') from None
