"""Checking: a value that fits costs its root's rules' tests and nothing else. Only a value
that does not fit is looked at again, from the root rule that failed, by the `collect`
functions built at compile time, which descend only where a child's test fails and note
each finding with its path, worded by the table; the walk stops at the first finding past
the table's cap, so a million mismatches cost what eleven do.

What a finding says is most often fixed by the schema alone: at the root, a required
argument missing, or a list or object sent where a property admits neither, is said the
same whatever was sent. The root's rules word those findings when the schema is compiled
(`root_collect`), and a refusal hands them out again, as a compiled validator has its
messages written into its code.

A host's rule kind may instead yield `Finding`s from `findings(value, walk)`; `Walk` gives
it the same means (report, descend, visit) over the same list.
"""

from __future__ import annotations

from functools import partial
from typing import Callable

from .rules import NO_MEMBER, Finding
from .table import Table
from .verdict import PASSED, Mismatch, Verdict
from .verdict import new_tuple as _new_tuple
from .wording import host_facts, words_for

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

    def add_made(self, mismatch: Mismatch) -> None:
        """A finding worded when the schema was compiled (see `root_parts`)."""
        if len(self) >= self.cap:
            raise _Enough
        self.append(mismatch)




def found_class(table: Table) -> type[Found]:
    """The table's `Found`: made once per table, so a check makes its list in one step."""
    made = table.made
    if Found not in made:
        made[Found] = type("Found", (Found,), {"__slots__": (), "cap": table.limit["mismatches"],
                                               "table": table, "words": table.wordings})
    return made[Found]


def words_maker(table: Table) -> Callable[[str], Callable | None]:
    """`words_of(code)`: the table's words for findings of `code`, for a rule to word at
    compile time what it can hand out wherever it is certain (see `root_parts`); None for a
    code a host's rule kind declares facts for, since its words might read more than the
    rule knows to be fixed."""
    made = table.made
    hosted = made.get(words_maker)
    if hosted is None:
        # Read when the table is first used, as its wordings are.
        hosted = made[words_maker] = frozenset(code for code in table.messages_by_code if host_facts(code))
    wordings = table.wordings
    return lambda code: None if code in hosted else wordings.get(code) or words_for(table, code)


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


def rule_parts(entries: tuple) -> tuple:
    """A node's rules as the walk uses them: each with its test (None for a rule that tests
    each part itself, such as members and elements: testing it as a whole first would test
    every argument twice), its `collect`, and whether a mismatch it reports stops the node."""
    return tuple((None if getattr(rule, "tests_parts", False) else rule.fits, collector(rule), stops)
                 for rule, stops in entries)


def root_parts(entries: tuple, table: Table) -> tuple:
    """As `rule_parts`, for the root: a rule that has a `root_collect` (a `collect` for the
    path `()` that hands out findings made at compile time) collects with that instead."""
    words_of = words_maker(table)
    return tuple((fits, rule.root_collect(words_of) if hasattr(rule, "root_collect") else collect_rule, stops)
                 for (fits, collect_rule, stops), (rule, _) in zip(rule_parts(entries), entries))


def collect_parts(parts: tuple, value: object, path: tuple, found: Found) -> None:
    """Each rule whose test fails (or that tests its parts itself), in order, until one
    that stops."""
    for fits, collect_rule, stops in parts:
        if fits is None:
            collect_rule(value, path, found)
        elif not fits(value):
            collect_rule(value, path, found)
            if stops:
                return


def node_collector(entries: tuple) -> Collect:
    """A node's `collect`, only called for a value its `fits` refused: so a node of one rule
    goes straight to that rule's."""
    if len(entries) == 1:
        return collector(entries[0][0])
    return partial(collect_parts, rule_parts(entries))


def root_check(root, table: Table) -> Callable[[object], Verdict]:
    """The check of one call's arguments: the root's rules tested one by one, as its `fits`
    would test them, so that a refusal begins collecting at the rule that failed (the rules
    before it passed, so they have nothing to report)."""
    tests = tuple(rule.fits for rule, _ in root.entries)
    refused = _refusal(root_parts(root.entries, table), table)
    if not tests:
        return lambda value: PASSED
    if len(tests) == 1:
        (first,) = tests
        return lambda value: PASSED if first(value) else refused(value, 0)
    if len(tests) == 2:
        first, second = tests

        def check_two(value: object) -> Verdict:
            if not first(value):
                return refused(value, 0)
            return PASSED if second(value) else refused(value, 1)
        return check_two
    if len(tests) == 3:
        first, second, third = tests

        def check_three(value: object) -> Verdict:
            if not first(value):
                return refused(value, 0)
            if not second(value):
                return refused(value, 1)
            return PASSED if third(value) else refused(value, 2)
        return check_three

    def check_each(value: object) -> Verdict:
        for index, test in enumerate(tests):
            if not test(value):
                return refused(value, index)
        return PASSED
    return check_each


def _refusal(parts: tuple, table: Table) -> Callable[[object, int], Verdict]:
    """The verdict on a value whose root rule `start` failed: the mismatches of that rule
    and those after it, at most the table's cap, worded (PASSED if they find nothing)."""
    found_type, from_rule = found_class(table), tuple(_parts_collector(parts[start:]) for start in range(len(parts)))

    def refused(value: object, start: int) -> Verdict:
        found = found_type()
        try:
            from_rule[start](value, (), found)
        except _Enough:
            return _new_tuple(Verdict, (False, tuple(found), True))
        return _new_tuple(Verdict, (False, tuple(found), False)) if found else PASSED
    return refused


def _parts_collector(parts: tuple) -> Collect:
    """`collect_parts` over `parts`; a last rule that tests its parts itself (members, most
    often) is called straight away."""
    if len(parts) == 1 and parts[0][0] is None:
        return parts[0][1]
    return partial(collect_parts, parts)
