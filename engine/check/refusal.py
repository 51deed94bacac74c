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

from typing import Any, Callable

from ..compile.compiled_table import CompiledTable
from ..compile.node import Node, steps_walker, walk_steps
from ..kinds.finding import EngineSignal, collector
from ..kinds.verdict import PASSED, Mismatch, Verdict, new_tuple
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
        self.append(new_tuple(Mismatch, (path, code, self.wording(code)(facts, path))))

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


def root_check(root: Node, table: CompiledTable) -> Callable[[object], Verdict]:
    """The check of one call's arguments: the root's rules tested one by one, as its `fits`
    would test them, so that a refusal begins collecting at the rule that failed (the rules
    before it passed, so they have nothing to report). A host calling from too deep in its
    own stack for the check's recursion has it made again on a fresh stack (`values.stack`):
    the `try` of each check costs nothing until then."""
    tests = tuple(rule.fits for rule, _ in root.entries)
    refused = _refusal(root_walk_steps(root.entries, table), table)
    if not tests:
        return lambda value: PASSED
    checks = {1: _check_one, 2: _check_two, 3: _check_three}
    return checks.get(len(tests), _check_each)(tests, refused)


Refused = Callable[[object, int], Verdict]


def _check_one(tests: tuple[Any, ...], refused: Refused) -> Callable[[object], Verdict]:
    (first,) = tests

    def check_one(value: object) -> Verdict:
        try:
            return PASSED if first(value) else refused(value, 0)
        except RecursionError as error:
            return again_on_a_fresh_stack(error, _checked, (first,), refused, value)
    return check_one


def _check_two(tests: tuple[Any, ...], refused: Refused) -> Callable[[object], Verdict]:
    first, second = tests

    def check_two(value: object) -> Verdict:
        try:
            if not first(value):
                return refused(value, 0)
            return PASSED if second(value) else refused(value, 1)
        except RecursionError as error:
            return again_on_a_fresh_stack(error, _checked, (first, second), refused, value)
    return check_two


def _check_three(tests: tuple[Any, ...], refused: Refused) -> Callable[[object], Verdict]:
    first, second, third = tests

    def check_three(value: object) -> Verdict:
        try:
            if not first(value):
                return refused(value, 0)
            if not second(value):
                return refused(value, 1)
            return PASSED if third(value) else refused(value, 2)
        except RecursionError as error:
            return again_on_a_fresh_stack(error, _checked, (first, second, third), refused, value)
    return check_three


def _check_each(tests: tuple[Any, ...], refused: Refused) -> Callable[[object], Verdict]:
    def check_each(value: object) -> Verdict:
        try:
            for index, test in enumerate(tests):
                if not test(value):
                    return refused(value, index)
            return PASSED
        except RecursionError as error:
            return again_on_a_fresh_stack(error, _checked, tests, refused, value)
    return check_each


def _checked(tests: tuple[Any, ...], refused: Refused, value: object) -> Verdict:
    """A check made again (on a fresh stack): what each `_check_*` does. (Made by name rather
    than by the check itself, so that no check keeps a reference to itself.)"""
    for index, test in enumerate(tests):
        if not test(value):
            return refused(value, index)
    return PASSED


def _refusal(steps: tuple[Any, ...], table: CompiledTable) -> Callable[[object, int], Verdict]:
    """The verdict on a value whose root rule `start` failed: the mismatches of that rule
    and those after it, at most the table's cap, worded (PASSED if they find nothing)."""
    found_type = mismatch_list_class(table)
    from_rule = tuple(steps_walker(steps[start:]) for start in range(len(steps)))

    def refused(value: object, start: int) -> Verdict:
        found = found_type()
        try:
            from_rule[start](value, (), found)
        except _CapReached:
            return new_tuple(Verdict, (False, tuple(found), True))
        return new_tuple(Verdict, (False, tuple(found), False)) if found else PASSED
    return refused
