"""A compiled schema node, and how it composes its rules' tests and walks, once, when the
schema is compiled.

Checking a value that fits is the hot path of every turn, so a node's test calls its rules'
tests directly, without a loop where it has few; each rule's own test is a closure over what
it read from the schema (see `kinds`). A node's walk (`collect`) runs only for a value its
test refused, and goes through its rules in order until one that `stops`.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

from attrs import field, frozen

from ..values.converters import as_tuple
from ..kinds.finding import Collect, collector
from ..kinds.kind import KindRule
from .casting import Casting, cast_node

Fits = Callable[[object], bool]


@frozen
class Node:
    """A compiled schema node: its rules in table order, each with whether a mismatch it
    reports ends the node; its declared types and what they admit (for casts); and, for a
    node that is not judged, why (coverage reports it)."""

    entries: tuple[tuple[Any, bool], ...] = field(converter=as_tuple, default=())
    skipped: str | None = None
    types: tuple[str, ...] | None = None
    admitted: frozenset[str] = frozenset()
    casting: Casting | None = None  # in a tree compiled for casts
    fits: Fits = field(init=False, eq=False, repr=False)
    _walk: Collect | None = field(init=False, default=None, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        entries = self.entries
        object.__setattr__(self, "fits", entries[0][0].fits if len(entries) == 1 else
                           all_of(tuple([rule.fits for rule, _ in entries])))

    @property
    def collect(self) -> Collect:
        """The node's walk, made when a value is first refused here: most nodes never refuse
        one, and the root's refusals walk from `check.refusal`'s own steps."""
        walk = self._walk
        if walk is None:
            walk = node_walk(self.entries)
            object.__setattr__(self, "_walk", walk)  # made alike by any thread that races here
        return walk

    @property
    def type_rule(self) -> KindRule | None:
        """The node's one rule when it judges by type alone: the types whose values it
        passes or refuses outright let a parent skip `fits`, or word a refusal at compile
        time."""
        if len(self.entries) == 1 and type(self.entries[0][0]) is KindRule:
            return self.entries[0][0]
        return None

    @property
    def passing_types(self) -> frozenset[type] | None:
        """The exact types whose values this node passes by their type alone."""
        rule = self.type_rule
        return None if rule is None else rule.passing_types

    @property
    def judges_nothing(self) -> bool:
        return not self.entries

    @property
    def inert(self) -> bool:
        """Nothing to check and nothing to cast."""
        return not self.entries and not self.types

    def cast(self, value: object, caster: Any) -> object:
        """The value with the exact casts this node and those below it allow (see `casting`)."""
        return cast_node(self, value, caster)


def fits_everything(value: object) -> bool:
    return True


def all_of(tests: tuple[Fits, ...]) -> Fits:
    """One test that passes when each of `tests` passes, in order."""
    if not tests:
        return fits_everything
    if len(tests) == 1:
        return tests[0]
    if len(tests) == 2:
        first, second = tests
        return lambda value: first(value) and second(value)
    if len(tests) == 3:
        first, second, third = tests
        return lambda value: first(value) and second(value) and third(value)

    def each_fits(value: object) -> bool:
        for test in tests:
            if not test(value):
                return False
        return True
    return each_fits


def walk_steps(entries: tuple[Any, ...], collect_of: Callable[[Any], Collect] = collector) -> tuple[Any, ...]:
    """A node's rules as its walk takes them: each with its test (None for a rule that tests
    as it walks, such as members and elements: testing it as a whole first would test every
    argument twice), its `collect` (as `collect_of` gives it), and whether a mismatch it
    reports stops the node."""
    return tuple((None if getattr(rule, "tests_as_it_walks", False) else rule.fits, collect_of(rule), stops)
                 for rule, stops in entries)


def walk(steps: tuple[Any, ...], value: object, path: tuple[Any, ...], found: Any) -> None:
    """Each rule whose test fails (or that tests as it walks), in order, until one that
    stops."""
    for fits, collect_rule, stops in steps:
        if fits is None:
            collect_rule(value, path, found)
        elif not fits(value):
            collect_rule(value, path, found)
            if stops:
                return


def steps_walker(steps: tuple[Any, ...]) -> Collect:
    """`walk` over `steps`; a last rule that tests as it walks (members, most often) is
    called straight away."""
    if len(steps) == 1 and steps[0][0] is None:
        last: Collect = steps[0][1]
        return last
    return partial(walk, steps)


def node_walk(entries: tuple[Any, ...]) -> Collect:
    """A node's `collect`, only called for a value its `fits` refused: so a node of one rule
    goes straight to that rule's."""
    if len(entries) == 1:
        return collector(entries[0][0])
    return partial(walk, walk_steps(entries))
