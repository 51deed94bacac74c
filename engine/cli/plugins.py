"""`--table` and `--plugin`, shared by the commands that check: a plugin is a host's module,
imported before the table is loaded, so that the rule kinds it registers
(`turngate.register_rule_kind`) can be named in the host's table."""

from __future__ import annotations

import argparse
from typing import Any
import contextlib
import importlib
import importlib.util
from importlib.machinery import SourceFileLoader
import os
import sys
from pathlib import Path

from ..check.schema import resolve_table
from ..table.entries import Table
from ..table.loading import shipped_tables
from .io import InputError, read_text

TABLE_HELP = "a shipped table's name (adr246, strict, extended) or a .rules file (default: adr246)"
PLUGIN_HELP = ("a module to import before the table is loaded, so that the rule kinds it registers "
               "can be used: a module name importable from the current folder, or a path to a .py "
               "file (repeatable)")


def add_table_options(command: argparse.ArgumentParser, table_help: str = TABLE_HELP, **table: Any) -> None:
    command.add_argument("--table", metavar="NAME|FILE", help=table_help, **table)
    command.add_argument("--plugin", action="append", default=[], metavar="MODULE", help=PLUGIN_HELP)


def table_of(args: argparse.Namespace) -> Table:
    """The command's table, loaded after its plugins are imported."""
    import_plugins(args.plugin)
    check_table_file(args.table)
    return resolve_table(args.table)


def check_table_file(table: str | None) -> None:
    """A table given by the path of something that is there: a folder, text that is not UTF-8
    and an empty file are told as for any file (the loader tells the rest, with line and column)."""
    if table is not None and table not in shipped_tables() and os.path.exists(table):
        read_text(table, "table")


def import_plugins(plugins: list[str]) -> None:
    for plugin in plugins:
        if plugin.endswith(".py") or "/" in plugin or os.sep in plugin:
            _import_file(plugin)
        else:
            _import_module(plugin)


def _import_module(name: str) -> None:
    added = os.getcwd() not in sys.path
    if added:
        sys.path.insert(0, os.getcwd())
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name == name or name.startswith(f"{error.name}."):
            raise InputError(f'the plugin "{name}" is neither a module importable from the current folder '
                             "nor a .py file.") from None
        raise _failed(name, error) from None
    except (Exception, SystemExit) as error:  # noqa: BLE001  (the host's code: anything may go wrong)
        raise _failed(name, error) from None
    finally:
        if added:
            with contextlib.suppress(ValueError):
                sys.path.remove(os.getcwd())


def _import_file(path: str) -> None:
    file = Path(path)
    if not file.is_file():
        problem = "is a folder, not a file" if file.is_dir() else "does not exist"
        raise InputError(f'the plugin file "{path}" {problem}.')
    name = file.stem if file.stem.isidentifier() else "turngate_plugin"
    # Read as Python source whatever its suffix (a file named "rules/plugin" is a plugin too).
    spec = importlib.util.spec_from_file_location(name, file, loader=SourceFileLoader(name, str(file)))
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = module  # so that the module's classes can find their module
    folder = str(file.resolve().parent)
    sys.path.insert(0, folder)  # so that it can import its neighbours
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except (Exception, SystemExit) as error:  # noqa: BLE001  (the host's code: anything may go wrong)
        del sys.modules[name]
        raise _failed(path, error) from None
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(folder)


def _failed(plugin: str, error: BaseException) -> InputError:
    text = str(error).strip().split("\n")[0][:200].rstrip(".")
    reason = f"{error.__class__.__name__}: {text}" if text else error.__class__.__name__
    return InputError(f'the plugin "{plugin}" could not be imported ({reason}).')
