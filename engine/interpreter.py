"""Checking: a value that fits costs its root's `fits` test and nothing else. Only a value
that does not fit is looked at again, by the `collect` functions built at compile time, which
descend only where a child's test fails and note each finding with its path; the walk stops
one finding past the table's cap, so a million mismatches cost what eleven do.

A host's rule kind may instead yield `Finding`s from `findings(value, walk)`; `Walk` gives
it the same means (report, descend, visit) over the same list.
"""

from __future__ import annotations

from typing import Callable

from .rules import NO_MEMBER, Finding
from .table import Table
from .verdict import PASSED, Mismatch, Verdict
from .wording import words_for

Collect = Callable[[object, tuple, "Found"], None]


class _Enough(Exception):
    """One finding more than the cap: the list is cut, so there is nothing more to learn."""


class Found(list):
    """The mismatches of one check, in order, each worded as it is found (the walk is cut
    once the cap is reached, so one finding past it is noted but never worded). Each table
    has its own subclass (`found_class`) holding its cap and wordings."""

    __slots__ = ()
    cap: int
    table: Table
    words: dict

    def add(self, path: tuple, code: str, facts: dict) -> None:
        if len(self) >= self.cap:
            raise _Enough
        words = self.words.get(code) or words_for(self.table, code)
        self.append(_new_tuple(Mismatch, (path, code, words(facts, path))))


_new_tuple = tuple.__new__


def found_class(table: Table) -> type[Found]:
    """The table's `Found`: made once per table, so a check makes its list in one step."""
    made = table.made
    if Found not in made:
        made[Found] = type("Found", (Found,), {"__slots__": (), "cap": table.limit["mismatches"],
                                               "table": table, "words": table.wordings})
    return made[Found]


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


def refusal_check(root, table: Table) -> Callable[[object], Verdict]:
    """The check of a value whose root test failed: its mismatches, at most the table's
    cap, worded (PASSED if the root's rules find nothing after all)."""
    found_type, collect = found_class(table), root.collect

    def refused(value: object) -> Verdict:
        found = found_type()
        try:
            collect(value, (), found)
        except _Enough:
            return _new_tuple(Verdict, (False, tuple(found), True))
        return _new_tuple(Verdict, (False, tuple(found), False)) if found else PASSED
    return refused
