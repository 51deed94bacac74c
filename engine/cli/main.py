"""The `turngate` command line.

Exit codes: 0 the arguments fit (the call may run), 1 refused, 2 unusable input, which is
told in one sentence on standard error, never as a traceback. `timeline` and `stats` exit 1
when some lines of the record file are not steps (the first few are reported, the rest
counted), 2 when none is. 3 when a rule kind of a `--plugin` raised while it was used (one
sentence names it: the call was neither refused nor let through). 70 when turngate itself
failed (a bug: one sentence asks for a report). 130 when interrupted (Ctrl-C), 141 when
standard output was closed before everything was written (`| head -1`): both quietly, with
no traceback.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys

from ..mcp.proxy.command import add_proxy_command
from ..table.errors import TableError
from .commands_check import add_check_commands
from .commands_steps import add_steps_commands
from .coverage_report import add_coverage_command
from .demo import add_demo_command
from ..kinds.hosted import RuleKindError
from ..values.quoting import quote_text
from .io import CLOSED_PIPE, INTERNAL_ERROR, INTERRUPTED, PLUGIN_FAILED, UNUSABLE, InputError, warn
from .turn_file import add_turn_command

DESCRIPTION = """\
Check a model's tool-call arguments against the tool's JSON Schema, and answer a bad call
with exact one-sentence messages. Every file argument may be - to read standard input."""

EPILOG = """\
examples:
  turngate check examples/update_page_metadata.schema.json examples/update_page_metadata.bad.json
  echo '{"uid": 42}' | turngate check examples/get_page.schema.json -
  turngate check SCHEMA.json ARGUMENTS.json --table strict --json
  turngate check --plugin examples/writing_a_rule/max_length.py \\
      --table examples/writing_a_rule/host.rules SCHEMA.json ARGUMENTS.json
  turngate batch examples/corpus.jsonl
  turngate check-turn examples/turn.anthropic.json --json
  turngate timeline examples/steps.jsonl | head -3
  turngate stats examples/steps.jsonl --by code
  turngate coverage examples/get_page.schema.json --table strict
  turngate proxy --steps steps.jsonl -- python3 -m turngate.mcp.demo_server
  turngate demo

exit codes:
  0    the arguments fit, the turn may run, the report was made
  1    refused (check, batch, check-turn); some lines are not run steps (timeline, stats)
  2    unusable input (a file, a table, a plugin, a corpus line), told in one sentence
  3    a rule kind of a --plugin raised while checking: neither refused nor let through
  70   turngate itself failed (a bug), told in one sentence: please report it
  130  interrupted (Ctrl-C)
  141  standard output was closed early (e.g. by head)

Run "turngate COMMAND --help" for a command's arguments."""


def version() -> str:
    try:
        return f"turngate {importlib.metadata.version('turngate')}"
    except importlib.metadata.PackageNotFoundError:
        return "turngate (version unknown: the distribution is not installed)"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="turngate", description=DESCRIPTION, epilog=EPILOG,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("--version", action="version", version=version(),
                     help="print the installed version and exit")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                  help="what to do; each command has its own --help")
    add_check_commands(commands)
    add_turn_command(commands)
    add_steps_commands(commands)
    add_coverage_command(commands)
    add_proxy_command(commands)
    add_demo_command(commands)
    return top


def _run(argv: list[str] | None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as done:  # --help, --version, or a usage error (exit 2)
        return done.code if isinstance(done.code, int) else UNUSABLE
    try:
        done_with: int = args.run(args)
        return done_with
    except InputError as error:
        text = str(error)
        warn(text[:1].lower() + text[1:])
    except TableError as error:
        hint = " (give the module that registers it with --plugin MODULE)" \
            if error.reason.startswith("there is no rule kind") else ""
        warn(f"{str(error)[:-1]}{hint}.")
    except RuleKindError as error:
        warn(f"{str(error)[:-1]}, so nothing was decided.")
        return PLUGIN_FAILED
    return UNUSABLE


def main(argv: list[str] | None = None) -> int:
    """Run the command line; the exit code is returned, never raised."""
    try:
        status = _run(argv)
        sys.stdout.flush()  # a closed pipe is found here, not at the interpreter's exit
        return status
    except BrokenPipeError:
        _stdout_to_devnull()
        return CLOSED_PIPE
    except KeyboardInterrupt:
        return INTERRUPTED
    except Exception as error:  # noqa: BLE001  (a bug of turngate's: one sentence, never a traceback)
        warn(f"turngate itself failed ({quote_text(error.__class__.__name__ + ': ' + str(error), 160)}); "
             "this is a bug, please report it with the command that did it.")
        return INTERNAL_ERROR


def _stdout_to_devnull() -> None:
    """What is still buffered for standard output goes nowhere, so Python's flush at exit
    does not fail again ("Exception ignored ... BrokenPipeError")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
