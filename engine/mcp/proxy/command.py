"""The command line: `turngate proxy [options] (-- COMMAND [ARGS...] | --url URL)`, also run
as `python -m turngate.mcp.proxy`; with `--listen HOST:PORT` it serves Streamable HTTP.

Exit codes of the proxy itself: 2 for unusable options (an unknown table, a steps file that
cannot be opened, a header that is not `Name: value`, no `anyio`, `--otel` where
OpenTelemetry is not installed or an `OTEL_*` variable it cannot follow), 127 and 126 for a server
command that is not found or cannot be run (each told in one sentence on stderr), 128+N
when signal N stopped the proxy; otherwise the server's own exit code (0 in front of a
remote server, and for `--listen` stopped by SIGINT or SIGTERM).

`turngate` builds its whole command line from `add_proxy_command` at every start, so the
relay and everything that needs `anyio` (the `mcp` extra) is imported only when the proxy
runs: without the extra, the other commands work, and this one says what to install. Nor
is the judging core imported at start (see `core`): the proxy is serving in a tenth of a
second, where the core and a table take twice that. OpenTelemetry is imported only with
`--otel`.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from ...table.entries import Table
    from ...turn.telemetry import Telemetry

PROG = "turngate proxy"
DESCRIPTION = """\
Put an MCP server behind the gate: every tool call's arguments are checked against the
schema the server listed before the server sees the call. The server is a command started
over stdio (after --) or a remote one over Streamable HTTP (--url); the proxy serves its
client over stdio, or over Streamable HTTP with --listen."""
USAGE = ("%(prog)s [--table T] [--casts] [--steps FILE] [--privacy full|metadata-only] [--otel] "
         "[--listen HOST:PORT [--allow-origin ORIGIN]...] (-- COMMAND [ARGS...] | --url URL [--header 'NAME: VALUE']...)")
EPILOG = """\
examples:
  turngate proxy --steps steps.jsonl -- python3 -m turngate.mcp.demo_server
  OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 turngate proxy --otel -- uvx mcp-server-time
  turngate proxy --url https://mcp.example.com/mcp --header 'Authorization: Bearer ${TOKEN}'
  turngate proxy --listen 127.0.0.1:8808 -- uvx mcp-server-git --repository .
  turngate proxy --listen 127.0.0.1:8808 --url https://mcp.example.com/mcp"""
UNUSABLE = 2
INTERNAL_ERROR = 70  # as `turngate` itself: a bug to report
INSTALL_MCP = ("the proxy needs anyio (part of the MCP SDK); install it with: python3 -m pip install 'mcp>=2.3,<3' "
               "(in a checkout of turngate: python3 -m pip install -e '.[mcp]').")
NO_SERVER = ("give the server to put behind the gate: -- COMMAND [ARGS...] (a server over stdio) or --url URL "
             "(one over Streamable HTTP).")

#: What the run steps may keep (`turn.steps.PRIVACY_LEVELS`, which the tests hold equal).
PRIVACY_LEVELS = ("full", "metadata-only")


def say(text: str) -> None:
    sys.stderr.write(f"{PROG}: {text}\n")


def add_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--table", metavar="T", help="a shipped table's name or a .rules file (default: adr246)")
    parser.add_argument("--casts", action="store_true",
                        help='send a call that fits only after an exact cast ("5" for an integer) cast')
    parser.add_argument("--steps", metavar="FILE", help="append a run step per call to FILE (JSON lines)")
    parser.add_argument("--privacy", choices=PRIVACY_LEVELS,
                        help="what the steps and --otel keep; metadata-only keeps nothing the model sent "
                        "(default: full for the steps, metadata-only for --otel)")
    parser.add_argument("--otel", action="store_true",
                        help="report each tool call to OpenTelemetry as a turn (a span, counters), exported as the "
                        "standard OTEL_* variables say (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME...); needs "
                        "the otel extra")
    parser.add_argument("--url", metavar="URL", help="a remote MCP server's Streamable HTTP endpoint, instead of "
                        "a COMMAND")
    parser.add_argument("--header", metavar="'NAME: VALUE'", action="append", default=[],
                        help="a header sent with every request to --url (${VAR} in VALUE is taken from the "
                        "environment); may be given again")
    parser.add_argument("--listen", metavar="HOST:PORT", help="serve Streamable HTTP at http://HOST:PORT/mcp "
                        "instead of stdio (127.0.0.1 keeps it to this machine)")
    parser.add_argument("--allow-origin", metavar="ORIGIN", action="append", default=[],
                        help="a web page's origin that may reach --listen besides this machine's; may be given again")
    # Not `dest="command"`: `turngate` keeps the name of the subcommand there.
    parser.add_argument("server_command", nargs="*", metavar="COMMAND",
                        help="the MCP server to start (after --), with its arguments")
    parser.set_defaults(run=run_proxy)
    return parser


def add_proxy_command(subparsers: Any) -> argparse.ArgumentParser:
    """The `proxy` subcommand, on the `turngate` command line's subparsers. Its `run`
    default takes the parsed arguments and returns the exit code."""
    proxy = subparsers.add_parser("proxy", help="put an MCP server behind the gate, checking each tool call first",
                                  description=DESCRIPTION, usage=USAGE, epilog=EPILOG,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    return add_options(proxy)


def parser() -> argparse.ArgumentParser:
    return add_options(argparse.ArgumentParser(prog=PROG, description=DESCRIPTION, usage=USAGE, epilog=EPILOG,
                                               formatter_class=argparse.RawDescriptionHelpFormatter))


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

        from .core import Core
        from .server_process import ServerNotStarted
        from .steps_log import StepLog
    except ImportError:
        say(INSTALL_MCP)
        return UNUSABLE
    with ExitStack() as held:
        try:
            where = _where(args)
            table = _table(args.table)
            telemetry = _telemetry(args, held)
            steps = StepLog(_open_steps(args.steps), args.privacy or "full") if args.steps else None
        except _Unusable as error:
            say(str(error))
            return UNUSABLE
        try:
            return anyio.run(_serve, args, where, Core(table, args.casts, telemetry), steps, backend="asyncio")
        except ServerNotStarted as error:
            say(str(error))
            return error.code
        except KeyboardInterrupt:  # before the signal handlers are in place, or a second Ctrl-C
            return 130


def _where(args: argparse.Namespace) -> dict[str, Any]:
    """The server and the client's side, checked: the headers read, the address parsed."""
    if bool(args.server_command) == bool(args.url):
        raise _Unusable(NO_SERVER if not args.url else "give the server once: -- COMMAND or --url, not both.")
    if args.header and not args.url:
        raise _Unusable("--header goes with --url: it is sent with every request to the server.")
    if args.allow_origin and not args.listen:
        raise _Unusable("--allow-origin goes with --listen: it names web pages that may reach the proxy.")
    if args.url and not args.url.lower().startswith(("http://", "https://")):
        raise _Unusable(f'the server\'s URL "{args.url}" is not an http:// or https:// address.')
    from .http.wire import HeaderError, header_option, listen_address
    try:
        headers = [header_option(text) for text in args.header]
        listen = listen_address(args.listen) if args.listen else None
    except HeaderError as error:
        raise _Unusable(str(error)) from None
    return {"headers": headers, "listen": listen}


async def _serve(args: argparse.Namespace, where: dict[str, Any], core: Any, steps: Any) -> int:
    if where["listen"] is not None:
        from .http.listen_run import serve_http
        return await serve_http(core, steps, where["listen"], tuple(args.allow_origin), args.server_command,
                                args.url, where["headers"])
    if args.url:
        from .http.remote_run import serve_remote
        return await serve_remote(core, steps, args.url, where["headers"])
    from .run import serve
    return await serve(core, steps, args.server_command)


def _table(option: str | None) -> Table | str | None:
    """A shipped table is read when the core is loaded; a table file now, so that a mistake
    in it stops the proxy before any server starts."""
    from .core import is_shipped, read_table
    if option is None or is_shipped(option):
        return option
    from ...table.errors import TableError
    try:
        return read_table(option)
    except TableError as error:
        raise _Unusable(str(error)) from None


def _telemetry(args: argparse.Namespace, held: ExitStack) -> Telemetry | None:
    """With `--otel`, OpenTelemetry set up from the `OTEL_*` variables until the run ends (what
    is left is sent then); else None, and nothing of it imported."""
    if not args.otel:
        return None
    from ...turn.otlp import otlp_telemetry
    from ...turn.telemetry import TelemetryError
    try:
        return held.enter_context(otlp_telemetry(privacy=args.privacy or "metadata-only"))
    except TelemetryError as error:
        raise _Unusable(str(error)) from None


def _open_steps(path: str) -> TextIO:
    try:
        return open(path, "a", encoding="utf-8")
    except OSError as error:
        raise _Unusable(f'the steps file "{path}" cannot be opened ({error.strerror or error}).') from None
