"""The rule kinds that judge a value itself: its kind, enum membership, required arguments.

A rule kind reads its keywords in `from_node` (returning None where there is nothing to
judge), answers `fits` without allocating, and only when a value does not fit, notes each
mismatch with `collect(value, path, found)` (a host's kind may yield `Finding`s from
`findings(value, walk)` instead: the interpreter adds the path). The table gives the
wording. A rule kind may also `cast` a passing value (see `casts`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, ClassVar, NamedTuple

from attrs import field, frozen

from .fast import enum_fits, kind_fits, required_fits
from .verdict import Mismatch
from .verdict import new_tuple as _new_tuple
from .values import (KIND_BY_TYPE, REFINED_KINDS, Unjudged, base_kind, json_equal, kind_of,
                     loose_form, text_json)

if TYPE_CHECKING:
    from .compiler import NodeContext
    from .interpreter import Found

NO_MEMBER: Any = object()
#: No finding made at compile time (see `root_collect`).
NOTHING_MADE: dict = {}
#: `interpreter.words_maker`'s `words_of(code)`: the words of a code, or None.
WordsOf = Callable[[str], Any]
#: Values of the kinds whose findings never quote what they hold.
_STRUCTURE_SAMPLES = ([], {})
_UNKNOWN_TYPE: Any = object()


def collect_with(collect: Callable, made: dict) -> Callable:
    """A rule's `collect` at the root, handing out the findings in `made` (see `root_collect`)."""
    return lambda value, path, found: collect(value, path, found, made)


class Finding(NamedTuple):
    """A mismatch a rule found: its code, the facts its message is made of, and the member
    (object key) of the value it is about, if it is about one member."""

    code: str
    facts: dict
    member: Any = NO_MEMBER


def _admission(kind: str | None, admitted: frozenset[str]) -> object:
    """True or False for a kind of value, or the tests of the narrower kinds admitted."""
    if kind is None or kind in admitted:
        return True
    tests = tuple(REFINED_KINDS[k][1] for k in sorted(admitted) if k in REFINED_KINDS and base_kind(k) == kind)
    return tests or False


@frozen
class KindRule:
    """The value's kind must be admitted by at least one declared type."""

    codes: ClassVar = ("kind",)
    facts: ClassVar = ()
    types: tuple[str, ...]
    admitted: frozenset[str] = field(converter=frozenset)
    natives: frozenset[str] = field(converter=frozenset)  # the kinds the types are made for
    by_type: dict = field(eq=False, repr=False)
    fits: Callable[[object], bool] = field(init=False, eq=False, repr=False)
    #: The exact Python types whose values pass outright (no narrower kind's test needed).
    passing_types: frozenset = field(init=False, eq=False, repr=False)
    #: The exact Python types whose values are refused outright, whatever they hold.
    refused_types: frozenset = field(init=False, eq=False, repr=False)
    #: Per list or object type it refuses, the facts of its `kind` finding, the same
    #: whatever the list or object holds.
    structure_findings: dict = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "passing_types", frozenset(t for t, verdict in self.by_type.items() if verdict is True))
        object.__setattr__(self, "refused_types", frozenset(t for t, verdict in self.by_type.items() if verdict is False))
        object.__setattr__(self, "fits", kind_fits(self.passing_types, self.refused_types, self._fits_slowly))
        object.__setattr__(self, "structure_findings", {type(sample): self.finding(sample)[1] for sample in
                                                        _STRUCTURE_SAMPLES if type(sample) in self.refused_types})

    @classmethod
    def from_node(cls, node: dict, context: NodeContext) -> KindRule | None:
        if context.admitted_kinds is None:
            return None
        return cls.admitting(context.types, context)

    @classmethod
    def admitting(cls, types: tuple[str, ...], context: NodeContext):
        """A rule for what `types` admit; None when they admit every kind of value. The
        rule is immutable, so one per table and types serves every node that declares them."""
        made = context.table.made
        key = (cls, types)
        if key not in made:
            made[key] = cls._admitting(types, context)
        return made[key]

    @classmethod
    def _admitting(cls, types: tuple[str, ...], context: NodeContext):
        entries = [context.table.type_by_name[name] for name in types]
        admitted = frozenset(kind for entry in entries for kind in entry.admits)
        if admitted.issuperset(context.all_kinds):
            return None
        by_type = {python_type: _admission(kind, admitted) for python_type, kind in KIND_BY_TYPE.items()}
        return cls(types, admitted, {base_kind(entry.native) for entry in entries}, by_type)

    def _fits_slowly(self, value: object) -> bool:
        """A narrower kind's test, or a type JSON does not decode to (a subclass, a set)."""
        verdict = self.by_type.get(type(value), _UNKNOWN_TYPE)
        if verdict is _UNKNOWN_TYPE:
            verdict = _admission(kind_of(value), self.admitted)
        if verdict is True or verdict is False:
            return verdict
        return any(test(value) for test in verdict)

    def finding(self, value: object) -> tuple[str, dict]:
        """The code and facts of a finding on a value this rule refuses."""
        facts = {"types": self.types, "value": value}
        if type(value) is str:
            held = text_json(value)
            if held is not None and kind_of(held) in self.natives:
                facts["json"] = kind_of(held)
        return "kind", facts

    def collect(self, value: object, path: tuple, found: Found) -> None:
        found.add(path, *self.finding(value))


@frozen
class EnumRule:
    """The value must loosely equal a member of a non-empty `enum`. Null is never refused."""

    codes: ClassVar = ("enum",)
    facts: ClassVar = ()
    members: tuple
    exact: frozenset = field(eq=False, repr=False)
    member_by_form: dict = field(eq=False, repr=False)
    fits: Callable[[object], bool] = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "fits", enum_fits(self.exact, self.member_by_form))

    @classmethod
    def from_node(cls, node: dict, context: NodeContext) -> EnumRule | None:
        members = node.get("enum")
        if not isinstance(members, list) or not members:
            return None
        by_form: dict = {}
        try:
            for member in members:
                by_form.setdefault(loose_form(member), member)
        except (Unjudged, TypeError):
            return None
        exact = frozenset(member for member in members if type(member) is str)
        return cls(tuple(members), exact, by_form)

    def collect(self, value: object, path: tuple, found: Found) -> None:
        found.add(path, "enum", {"allowed": self.members, "value": value})

    def cast_value(self, value: object) -> object:
        """The member's own spelling for a value that only loosely equals it."""
        if value is None:
            return value
        try:
            member = self.member_by_form.get(loose_form(value), value)
        except Unjudged:
            return value
        return value if member is value or json_equal(member, value) else member


@frozen
class RequiredRule:
    """Each name of `required` must be sent, and not as null where its schema refuses null."""

    codes: ClassVar = ("missing", "null")
    facts: ClassVar = ()
    names: tuple[tuple[str, bool, tuple[str, ...]], ...]
    fits: Callable[[object], bool] = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        names = tuple(name for name, _, _ in self.names)
        refusing_null = tuple(name for name, refuses, _ in self.names if refuses)
        object.__setattr__(self, "fits", required_fits(names, refusing_null))

    @classmethod
    def from_node(cls, node: dict, context: NodeContext) -> RequiredRule | None:
        required = node.get("required")
        if not context.judges_objects or not isinstance(required, list) or not context.draft.required_list:
            return None  # draft-03 marks a property required in its own schema instead
        names = dict.fromkeys(name for name in required if type(name) is str)
        if not names:
            return None
        return cls(tuple((name, *context.property_null_facts(name)) for name in names))

    def collect(self, value: dict, path: tuple, found: Found, made: dict = NOTHING_MADE) -> None:
        for name, refuses_null, types in self.names:
            sent = value.get(name, NO_MEMBER)
            if sent is NO_MEMBER:
                mismatch = made.get(name)
                if mismatch is None:
                    found.add((*path, name), "missing", {"types": types})
                else:
                    found.add_made(mismatch)
            elif sent is None and refuses_null:
                found.add((*path, name), "null", {"types": types})

    def root_collect(self, words_of: WordsOf) -> Callable:
        """`collect` at the root, where what is said of a missing argument depends on
        nothing sent: each is worded at compile time."""
        words = words_of("missing")
        if words is None:
            return self.collect
        made = {}
        for name, _, types in self.names:
            path = (name,)
            made[name] = _new_tuple(Mismatch, (path, "missing", words({"types": types}, path)))
        return collect_with(self.collect, made)
