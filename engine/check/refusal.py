"""Checking one call's arguments: a value that fits costs its root's rules' tests and nothing
else. Only a value that does not fit is looked at again, from the root rule that failed, by
the walks the compiler composed, which descend only where a child's test fails and note each
finding with its path, worded by the table; the walk stops at the first finding past the
table's cap, so a million mismatches cost what eleven do.

What a finding says is most often fixed by the schema alone: at the root, a required
argument missing, or a list or object sent where a property admits neither, is said the
same whatever was sent. The root's rules word those findings when the schema is compiled
(their `root_collect`), and a refusal hands them out again, as a compiled validator has its
messages written into its code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from ..compile.compiled_table import CompiledTable
from ..compile.node import Node, steps_walker, walk_steps
from ..kinds.finding import EngineSignal, collector
from ..kinds.verdict import ALL_JUDGED, PASSED, Mismatch, Verdict, new_tuple
from ..values.stack import again_on_a_fresh_stack


class _CapReached(EngineSignal):
    """One finding more than the cap: the list is cut, so there is nothing more to learn."""


class MismatchList(list[Any]):
    """The mismatches of one check, in order, each worded as it is found (the walk is cut
    once the cap is reached, so one finding past it is noted but never worded). Each table
    has its own subclass (`mismatch_list_class`) holding its cap and its wording."""

    __slots__ = ()
    cap: int
    wording: Callable[[str], Callable[[dict[str, Any], tuple[Any, ...]], str]]

    def add(self, path: tuple[Any, ...], code: str, facts: dict[str, Any]) -> None:
        if len(self) >= self.cap:
            raise _CapReached
        self.append(new_tuple(Mismatch, (path, code, self.wording(code)(facts, path), facts)))

    def add_worded(self, mismatch: Mismatch) -> None:
        """A finding worded when the schema was compiled (see `root_walk_steps`)."""
        if len(self) >= self.cap:
            raise _CapReached
        self.append(mismatch)


def mismatch_list_class(table: CompiledTable) -> type[MismatchList]:
    """The table's `MismatchList`: made once per table, so a check makes its list in one step."""
    if table.mismatch_list_class is None:
        table.mismatch_list_class = type("MismatchList", (MismatchList,), {"__slots__": (), "cap": table.cap,
                                                     "wording": table.words.wording})
    return table.mismatch_list_class


def root_walk_steps(entries: tuple[Any, ...], table: CompiledTable) -> tuple[Any, ...]:
    """The root's rules as its walk takes them (see `compile.node.walk_steps`): a rule that
    has a `root_collect` (a `collect` for the path `()` that hands out findings worded at
    compile time) collects with that instead."""
    return walk_steps(entries, lambda rule: rule.root_collect(table.word) if hasattr(rule, "root_collect")
                      else collector(rule))


def root_check(root: Node, table: CompiledTable, unjudged: Mapping[str, int] = ALL_JUDGED) -> Callable[[object], Verdict]:
    """The check of one call's arguments: the root's rules tested one by one, as its `fits`
    would test them, so that a refusal begins collecting at the rule that failed (the rules
    before it passed, so they have nothing to report). Each verdict carries `unjudged`, what
    the table does not judge of the schema (`compile.coverage.not_judged`): the passing
    verdict is the shared one where that is nothing. A host calling from too deep in its own stack
    for the check's recursion has it made again on a fresh stack (`values.stack`): the `try`
    of each check costs nothing until then."""
    tests = tuple(rule.fits for rule, _ in root.entries)
    passed = PASSED if unjudged is ALL_JUDGED else new_tuple(Verdict, (True, (), False, unjudged))
    refused = _refusal(root_walk_steps(root.entries, table), table, passed)
    if not tests:
        return lambda value: passed
    checks = {1: _check_one, 2: _check_two, 3: _check_three}
    return checks.get(len(tests), _check_each)(tests, refused, passed)


Refused = Callable[[object, int], Verdict]


def _check_one(tests: tuple[Any, ...], refused: Refused, passed: Verdict) -> Callable[[object], Verdict]:
    (first,) = tests

    def check_one(value: object) -> Verdict:
        try:
            return passed if first(value) else refused(value, 0)
        except RecursionError as error:
            return again_on_a_fresh_stack(error, _checked, (first,), refused, passed, value)
    return check_one


def _check_two(tests: tuple[Any, ...], refused: Refused, passed: Verdict) -> Callable[[object], Verdict]:
    first, second = tests

    def check_two(value: object) -> Verdict:
        try:
            if not first(value):
                return refused(value, 0)
            return passed if second(value) else refused(value, 1)
        except RecursionError as error:
            return again_on_a_fresh_stack(error, _checked, (first, second), refused, passed, value)
    return check_two


def _check_three(tests: tuple[Any, ...], refused: Refused, passed: Verdict) -> Callable[[object], Verdict]:
    first, second, third = tests

    def check_three(value: object) -> Verdict:
        try:
            if not first(value):
                return refused(value, 0)
            if not second(value):
                return refused(value, 1)
            return passed if third(value) else refused(value, 2)
        except RecursionError as error:
            return again_on_a_fresh_stack(error, _checked, (first, second, third), refused, passed, value)
    return check_three


def _check_each(tests: tuple[Any, ...], refused: Refused, passed: Verdict) -> Callable[[object], Verdict]:
    def check_each(value: object) -> Verdict:
        try:
            for index, test in enumerate(tests):
                if not test(value):
                    return refused(value, index)
            return passed
        except RecursionError as error:
            return again_on_a_fresh_stack(error, _checked, tests, refused, passed, value)
    return check_each


def _checked(tests: tuple[Any, ...], refused: Refused, passed: Verdict, value: object) -> Verdict:
    """A check made again (on a fresh stack): what each `_check_*` does. (Made by name rather
    than by the check itself, so that no check keeps a reference to itself.)"""
    for index, test in enumerate(tests):
        if not test(value):
            return refused(value, index)
    return passed


def _refusal(steps: tuple[Any, ...], table: CompiledTable, passed: Verdict) -> Callable[[object, int], Verdict]:
    """The verdict on a value whose root rule `start` failed: the mismatches of that rule
    and those after it, at most the table's cap, worded (`passed` if they find nothing). The
    walk from each rule is made when a value is first refused (most schemas never refuse one)."""
    found_type, unjudged = mismatch_list_class(table), passed.unjudged
    from_rule: tuple[Any, ...] | None = None

    def refused(value: object, start: int) -> Verdict:
        nonlocal from_rule
        if from_rule is None:  # made alike by any thread that races here
            from_rule = tuple([steps_walker(steps[first:]) for first in range(len(steps))])
        found = found_type()
        try:
            from_rule[start](value, (), found)
        except _CapReached:
            return new_tuple(Verdict, (False, tuple(found), True, unjudged))
        return new_tuple(Verdict, (False, tuple(found), False, unjudged)) if found else passed
    return refused
