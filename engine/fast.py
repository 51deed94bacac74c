"""The `fits` functions of compiled nodes and rules, built once at compile time.

Checking a value that fits is the hot path of every turn, so each rule's test is a closure
over what it read from the schema (sets, dicts and child functions bound as local names),
and a node's test calls its rules' tests directly, without a loop where it has few. No
function here allocates for a value that fits.
"""

from __future__ import annotations

from typing import Callable

from .values import LIST_TYPES, Unjudged, kind_of, loose_form

Fits = Callable[[object], bool]


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


def kind_fits(admitted: frozenset, refused: frozenset, slow: Callable[[object], bool]) -> Fits:
    """The kind test: a set look-up by exact type (`admitted` and `refused`: the types that
    pass or fail outright); subclasses and narrower kinds go slow."""
    def fits(value: object) -> bool:
        kind = type(value)
        if kind in admitted:
            return True
        if kind in refused:
            return False
        return slow(value)
    return fits


def enum_fits(exact: frozenset, forms: dict) -> Fits:
    def fits(value: object) -> bool:
        if type(value) is str:
            if value in exact:
                return True
        elif value is None:
            return True
        try:
            return loose_form(value) in forms
        except Unjudged:
            # Not something JSON makes: not judged. Too deep to compare: equals no member.
            return kind_of(value) is None
    return fits


def required_fits(names: tuple[str, ...], null_refused: tuple[str, ...]) -> Fits:
    def fits(value: object) -> bool:
        if type(value) is not dict and not isinstance(value, dict):
            return True
        for name in names:
            if name not in value:
                return False
        for name in null_refused:
            if value[name] is None:
                return False
        return True
    return fits


_MISSING: object = object()


def members_fits(tests: dict[str, Fits | None], passing: dict[str, frozenset], closed: bool,
                 extra: Fits | None) -> Fits:
    """Each argument by its property's test (None: nothing to test); an argument no
    property names is refused when closed, else tested by `extra`, if any. An argument
    whose type alone passes its property (`passing`) costs a set look-up, not a call."""
    lookup, passing_types = tests.get, passing.get
    undeclared: object = False if closed else extra

    def fits(value: object) -> bool:
        if type(value) is not dict and not isinstance(value, dict):
            return True
        for key, item in value.items():
            types = passing_types(key)
            if types is not None and type(item) in types:
                continue
            test = lookup(key, _MISSING)
            if test is _MISSING:
                test = undeclared
                if test is False:
                    return False
            if test is not None and not test(item):
                return False
        return True
    return fits


def elements_fits(by_position: tuple[Fits, ...], rest: Fits | None, rest_passing: frozenset | None) -> Fits:
    if not by_position and rest is not None:
        passing = rest_passing or frozenset()

        def fits(value: object) -> bool:
            if type(value) is not list and not isinstance(value, LIST_TYPES):
                return True
            for item in value:
                if type(item) not in passing and not rest(item):
                    return False
            return True
        return fits
    count = len(by_position)

    def fits_by_position(value: object) -> bool:
        if type(value) is not list and not isinstance(value, LIST_TYPES):
            return True
        for index, item in enumerate(value):
            test = by_position[index] if index < count else rest
            if test is None:
                return True
            if not test(item):
                return False
        return True
    return fits_by_position
