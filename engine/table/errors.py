"""Errors a table load reports: where (file, line, column) and why, in one sentence."""

from __future__ import annotations

from attrs import frozen

from ..values.quoting import ELLIPSIS, escaped


class TableError(Exception):
    """A table that cannot be loaded."""

    file: str
    line: int | None
    column: int | None
    reason: str

    def __init__(self, file: str, line: int | None, column: int | None, reason: str):
        shown = escaped(file if len(file) <= 160 else ELLIPSIS + file[-159:])  # a path may be anything
        where = shown if line is None else f"{shown}:{line}:{column}"
        super().__init__(f"{where}: {reason}.")
        self.file, self.line, self.column, self.reason = file, line, column, reason


@frozen
class Position:
    """Where an entry of a table file starts."""

    file: str
    line: int | None  # lark's tokens may in principle lack one; a table's never do
    column: int | None

    def error(self, reason: str) -> TableError:
        return TableError(self.file, self.line, self.column, reason)
