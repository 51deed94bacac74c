"""Loading a rule table: a `.rules` file parsed (`parsing`), merged over the table it
extends, every reference checked (`validation`), and a frozen `Table` returned.

Any error names the file, line and column of the entry at fault and says what is wrong.
"""

from __future__ import annotations

import errno
import json
import stat
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..values.quoting import quote_text
from .entries import Table
from .errors import TableError
from .parsing import Drop, Header, Placed, Sourced, entry_key, parse_table_file
from .validation import check_table

_PACKAGE = Path(__file__).resolve().parent.parent
#: Installed from a wheel, the tables sit in the package; in a checkout, beside it.
RULES_DIRS = (_PACKAGE / "rules", _PACKAGE.parent / "rules")
DEFAULT_TABLE = "adr246"


def shipped_tables() -> dict[str, Path]:
    """The tables that ship with turngate, by name."""
    return dict(_shipped())


@lru_cache(maxsize=1)
def _shipped() -> tuple[tuple[str, Path], ...]:
    for folder in RULES_DIRS:
        if folder.is_dir():
            return tuple((path.stem, path) for path in sorted(folder.glob("*.rules")))
    return ()


_cache: dict[tuple[Any, ...], Table] = {}
_cache_lock = threading.Lock()


def load_table(name_or_path: str | Path = DEFAULT_TABLE) -> Table:
    """A shipped table by name (`adr246`, the default), or a `.rules` file by path. Any
    failure to read one is a `TableError` saying why in a sentence."""
    reference = str(name_or_path)
    shipped = shipped_tables()
    path = shipped[reference] if reference in shipped else Path(reference)
    try:
        path, changed = table_file(path)
    except _Missing:
        known = ", ".join(shipped) or "none"
        raise TableError(_shown(path), None, None,
                         f"there is no table file here, and no shipped table of that name ({known})") from None
    except _Unreadable as error:
        raise TableError(_shown(path), None, None, str(error)) from None
    key = (path, changed)
    with _cache_lock:
        table = _cache.get(key)
        if table is None:
            table = _cache[key] = check_table(*_load_entries(path, ()), _shown(path))
    return table


class _Missing(Exception):
    """No file at a table's path."""


class _Unreadable(Exception):
    """A table's path that leads to no file that can be read; the text says why."""


def table_file(path: Path) -> tuple[Path, int]:
    """A table file's resolved path and when it last changed; `_Missing` or `_Unreadable`
    (saying why) for a path that leads to no readable file."""
    try:
        resolved = path.resolve()
        status = resolved.stat()
    except FileNotFoundError:
        raise _Missing from None
    except ValueError:  # a NUL character: no system has such a path
        raise _Unreadable("the path holds a NUL character, so no file has it") from None
    except RuntimeError:  # Python 3.11's resolve() on a loop of symbolic links
        raise _Unreadable("the path is a loop of symbolic links") from None
    except OSError as error:
        raise _Unreadable(_os_problem(error)) from None
    if stat.S_ISDIR(status.st_mode):
        raise _Unreadable("this is a folder, not a table file")
    if not stat.S_ISREG(status.st_mode):
        raise _Unreadable("this is not a regular file")
    return resolved, status.st_mtime_ns


def _os_problem(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "the path is a loop of symbolic links"
    if error.errno == errno.ENAMETOOLONG:
        return "the path is too long for this system"
    if isinstance(error, PermissionError):
        return "the table cannot be read (permission denied)"
    return f"the table cannot be read ({(error.strerror or error.__class__.__name__).lower()})"


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except (ValueError, OSError):  # elsewhere; or the working folder is gone
        return str(path)


def _load_entries(path: Path, chain: tuple[Path, ...]) -> tuple[str, list[Sourced]]:
    """A table's name and merged entries with their positions (what a child builds on)."""
    items = parse_table_file(path, _shown(path))
    header, items = _split_header(items)
    merged: list[Sourced] = []
    if header is not None and header.item.parent is not None:
        merged = _parent_entries(header, path, chain)
    for item in items:
        _merge(merged, item)
    return (header.item.name if header else path.stem), merged


def _split_header(items: list[Sourced]) -> tuple[Sourced | None, list[Sourced]]:
    headers = [i for i, item in enumerate(items) if isinstance(item.item, Header)]
    if headers and headers[0] != 0:
        raise items[headers[0]].position.error("the table line must come first")
    if len(headers) > 1:
        raise items[headers[1]].position.error("a file holds one table; this is a second table line")
    return (items[0], items[1:]) if headers else (None, items)


#: Tables extending tables: how long a chain may be (each link is read recursively).
LONGEST_CHAIN = 32


def _parent_entries(header: Sourced, path: Path, chain: tuple[Path, ...]) -> list[Sourced]:
    parent = header.item.parent
    shipped = shipped_tables()
    if len(chain) >= LONGEST_CHAIN:
        raise header.position.error(f"the tables this one extends form a chain of more than {LONGEST_CHAIN} "
                                    "(at most that many may extend each other)")
    if header.item.parent_is_path:
        try:
            parent_path = table_file(path.parent / parent)[0]
        except _Missing:
            raise header.position.error(f"the table file {_quoted(parent)} to extend does not exist") from None
        except _Unreadable as error:
            raise header.position.error(f"the table file {_quoted(parent)} to extend cannot be used: {error}") from None
    elif parent in shipped:
        parent_path = shipped[parent].resolve()
    else:
        known = ", ".join(shipped) or "none"
        raise header.position.error(f'there is no shipped table "{parent}" to extend (shipped: {known})')
    if parent_path in (*chain, path):
        raise header.position.error(f"extending {_quoted(parent)} makes a cycle of tables")
    return _load_entries(parent_path, (*chain, path))[1]


def _quoted(path: str) -> str:
    """A path a table names, quoted as JSON and cut (a sentence names it, whatever its length)."""
    return quote_text(path, 120, keep_end=True)


def _merge(merged: list[Sourced], item: Sourced) -> None:
    entry = item.item
    keys = [entry_key(_plain(m.item)) for m in merged]
    if isinstance(entry, Drop):
        if entry.key not in keys:
            raise item.position.error(f"there is no {_describe(entry.key)} to drop")
        del merged[keys.index(entry.key)]
        return
    key = entry_key(_plain(entry))
    index = keys.index(key) if key in keys else None
    if isinstance(entry, Placed) and entry.place is not None:
        if index is not None:
            del merged[index]
            keys.pop(index)
        anchor = ("rule", entry.anchor)
        if anchor not in keys:
            raise item.position.error(f'there is no rule "{entry.anchor}" to place this rule {entry.place}')
        at = keys.index(anchor) + (entry.place == "after")
        merged.insert(at, item)
    elif index is not None:
        merged[index] = item
    else:
        merged.append(item)


def _plain(item: object) -> object:
    return item.entry if isinstance(item, Placed) else item


def _describe(key: tuple[Any, ...]) -> str:
    category, name, *rest = key
    if category == "message" and rest and rest[0]:
        return f'message for "{name}" with {" ".join(rest[0])}'
    if category == "skip" and rest and rest[0] is not None:
        return f'skip {name} {json.dumps(rest[0])}'
    return f'{category} "{name}"'
