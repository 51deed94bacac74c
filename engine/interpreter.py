"""Checking: walk the compiled rule tree over the arguments.

A value that fits costs one `fits` pass and allocates nothing. Only a value that does not fit
is walked again for its findings, with the path kept on one stack; the walk stops after one
finding more than the table's cap, so a million mismatches cost what eleven do.
"""

from __future__ import annotations

from .compiler import Node
from .messages import render_message
from .rules import NO_MEMBER, Finding
from .table import Table
from .verdict import PASSED, Mismatch, Verdict


class _Enough(Exception):
    """One finding more than the cap: the list is cut, so there is nothing more to learn."""


class Walk:
    """One check's state: the path to the node being visited and what was found so far."""

    __slots__ = ("path", "found", "cap")

    def __init__(self, cap: int):
        self.path: list = []
        self.found: list[tuple[tuple, str, dict]] = []
        self.cap = cap

    def visit(self, node: Node, value: object) -> None:
        for rule, stops in node.entries:
            if rule.fits(value):
                continue
            for finding in rule.findings(value, self):
                self.report(finding)
            if stops:
                return

    def descend(self, key: str | int, node: Node, value: object) -> None:
        if node.fits(value):
            return
        self.path.append(key)
        self.visit(node, value)
        self.path.pop()

    def report(self, finding: Finding) -> None:
        path = tuple(self.path)
        if finding.member is not NO_MEMBER:
            path += (finding.member,)
        self.found.append((path, finding.code, finding.facts))
        if len(self.found) > self.cap:
            raise _Enough


def check(root: Node, table: Table, value: object) -> Verdict:
    if root.fits(value):
        return PASSED
    cap = table.limit["mismatches"]
    walk = Walk(cap)
    try:
        walk.visit(root, value)
    except _Enough:
        pass
    if not walk.found:
        return PASSED
    mismatches = tuple(
        Mismatch(path, code, render_message(table, code, facts, path))
        for path, code, facts in walk.found[:cap]
    )
    return Verdict(ok=False, mismatches=mismatches, truncated=len(walk.found) > cap)
