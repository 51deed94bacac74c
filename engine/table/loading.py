"""Loading a rule table: a `.rules` file parsed (`parsing`), merged over the table it
extends, every reference checked (`validation`), and a frozen `Table` returned.

Any error names the file, line and column of the entry at fault and says what is wrong.
"""

from __future__ import annotations

import json
import threading
from functools import lru_cache
from pathlib import Path

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


_cache: dict[tuple, Table] = {}
_cache_lock = threading.Lock()


def load_table(name_or_path: str | Path = DEFAULT_TABLE) -> Table:
    """A shipped table by name (`adr246`, the default), or a `.rules` file by path."""
    reference = str(name_or_path)
    shipped = shipped_tables()
    path = shipped[reference] if reference in shipped else Path(reference).resolve()
    if not path.is_file():
        known = ", ".join(shipped) or "none"
        raise TableError(_shown(path), None, None,
                         f"there is no table file here, and no shipped table of that name ({known})")
    key = (path, path.stat().st_mtime_ns)
    with _cache_lock:
        table = _cache.get(key)
        if table is None:
            table = _cache[key] = check_table(*_load_entries(path, ()), _shown(path))
    return table


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
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


def _parent_entries(header: Sourced, path: Path, chain: tuple[Path, ...]) -> list[Sourced]:
    parent = header.item.parent
    shipped = shipped_tables()
    if header.item.parent_is_path:
        parent_path = (path.parent / parent).resolve()
        if not parent_path.is_file():
            raise header.position.error(f"the table file {json.dumps(parent)} to extend does not exist")
    elif parent in shipped:
        parent_path = shipped[parent].resolve()
    else:
        known = ", ".join(shipped) or "none"
        raise header.position.error(f'there is no shipped table "{parent}" to extend (shipped: {known})')
    if parent_path in (*chain, path):
        raise header.position.error(f"extending {json.dumps(parent)} makes a cycle of tables")
    return _load_entries(parent_path, (*chain, path))[1]


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


def _describe(key: tuple) -> str:
    category, name, *rest = key
    if category == "message" and rest and rest[0]:
        return f'message for "{name}" with {" ".join(rest[0])}'
    if category == "skip" and rest and rest[0] is not None:
        return f'skip {name} {json.dumps(rest[0])}'
    return f'{category} "{name}"'
