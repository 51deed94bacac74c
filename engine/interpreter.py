"""Checking: a value that fits costs its root's `fits` test and nothing else. Only a value
that does not fit is looked at again, by the `collect` functions built at compile time, which
descend only where a child's test fails and note each finding with its path; the walk stops
one finding past the table's cap, so a million mismatches cost what eleven do.

A host's rule kind may instead yield `Finding`s from `findings(value, walk)`; `Walk` gives
it the same means (report, descend, visit) over the same list.
"""

from __future__ import annotations

from typing import Callable

from .messages import render_message
from .rules import NO_MEMBER, Finding
from .table import Table
from .verdict import PASSED, Mismatch, Verdict

Collect = Callable[[object, tuple, "Found"], None]


class _Enough(Exception):
    """One finding more than the cap: the list is cut, so there is nothing more to learn."""


class Found(list):
    """The findings of one check, as (path, code, facts), in order."""

    __slots__ = ("cap",)

    def add(self, path: tuple, code: str, facts: dict) -> None:
        self.append((path, code, facts))
        if len(self) > self.cap:
            raise _Enough


class Walk:
    """What a host's `findings(value, walk)` may do: report a finding here (or at a member),
    or look into a child node below or at this place."""

    __slots__ = ("path", "found")

    def __init__(self, path: tuple, found: Found):
        self.path, self.found = path, found

    def report(self, finding: Finding) -> None:
        code, facts, member = finding
        self.found.add(self.path if member is NO_MEMBER else (*self.path, member), code, facts)

    def descend(self, key: str | int, node, value: object) -> None:
        if not node.fits(value):
            node.collect(value, (*self.path, key), self.found)

    def visit(self, node, value: object) -> None:
        if not node.fits(value):
            node.collect(value, self.path, self.found)


def collector(rule) -> Collect:
    """A rule's `collect`, or one made from its `findings` (the form hosts write)."""
    collect = getattr(rule, "collect", None)
    if collect is not None:
        return collect

    def collect_findings(value: object, path: tuple, found: Found) -> None:
        walk = Walk(path, found)
        for finding in rule.findings(value, walk):
            walk.report(finding)
    return collect_findings


def node_collector(entries: tuple) -> Collect:
    """A node's `collect`: each rule whose test fails, in order, until one that stops. A
    rule that tests each part itself (members, elements) is not tested as a whole first:
    that would test every argument twice. A node's `collect` is only called for a value its
    `fits` refused, so a node of one rule goes straight to that rule's."""
    if len(entries) == 1:
        return collector(entries[0][0])
    parts = tuple((None if getattr(rule, "tests_parts", False) else rule.fits, collector(rule), stops)
                  for rule, stops in entries)

    def collect(value: object, path: tuple, found: Found) -> None:
        for fits, collect_rule, stops in parts:
            if fits is None:
                collect_rule(value, path, found)
            elif not fits(value):
                collect_rule(value, path, found)
                if stops:
                    return
    return collect


def check_refused(root, table: Table, value: object, cap: int) -> Verdict:
    """The verdict on a value whose root test failed: collect and word its findings (at
    most `cap`, the table's limit)."""
    found = Found()
    found.cap = cap
    try:
        root.collect(value, (), found)
    except _Enough:
        pass
    if not found:
        return PASSED
    cut = len(found) > cap
    mismatches = tuple([Mismatch(path, code, render_message(table, code, facts, path))
                        for path, code, facts in (found[:cap] if cut else found)])
    return Verdict(False, mismatches, cut)
