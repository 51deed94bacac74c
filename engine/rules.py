"""The rule kinds that judge a value itself: its kind, enum membership, required arguments.

A rule kind reads its keywords in `from_node` (returning None where there is nothing to
judge), answers `fits` without allocating, and only when a value does not fit, yields a
`Finding` per mismatch from `findings`. The interpreter adds the path; the table gives the
wording. A rule kind may also `cast` a passing value (see `casts`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Iterator, NamedTuple

from attrs import field, frozen

from .values import (KIND_BY_TYPE, REFINED_KINDS, Unjudged, base_kind, json_equal, kind_of,
                     loose_form, text_json)

if TYPE_CHECKING:
    from .compiler import NodeContext
    from .interpreter import Walk

NO_MEMBER: Any = object()
_UNKNOWN_TYPE: Any = object()


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

    @classmethod
    def from_node(cls, node: dict, context: NodeContext) -> KindRule | None:
        if context.admitted_kinds is None:
            return None
        return cls.admitting(context.types, context)

    @classmethod
    def admitting(cls, types: tuple[str, ...], context: NodeContext):
        """A rule for what `types` admit; None when they admit every kind of value."""
        entries = [context.table.type_by_name[name] for name in types]
        admitted = frozenset(kind for entry in entries for kind in entry.admits)
        if admitted.issuperset(context.all_kinds):
            return None
        by_type = {python_type: _admission(kind, admitted) for python_type, kind in KIND_BY_TYPE.items()}
        return cls(types, admitted, {base_kind(entry.native) for entry in entries}, by_type)

    def fits(self, value: object) -> bool:
        verdict = self.by_type.get(type(value), _UNKNOWN_TYPE)
        if verdict is True or verdict is False:
            return verdict
        if verdict is _UNKNOWN_TYPE:
            verdict = _admission(kind_of(value), self.admitted)
            if verdict is True or verdict is False:
                return verdict
        return any(test(value) for test in verdict)

    def findings(self, value: object, walk: Walk) -> Iterator[Finding]:
        facts = {"types": self.types, "value": value}
        held = text_json(value) if kind_of(value) == "text" else None  # type: ignore[arg-type]
        if held is not None and kind_of(held) in self.natives:
            facts["json"] = kind_of(held)
        yield Finding("kind", facts)


@frozen
class EnumRule:
    """The value must loosely equal a member of a non-empty `enum`. Null is never refused."""

    codes: ClassVar = ("enum",)
    facts: ClassVar = ()
    members: tuple
    exact: frozenset = field(eq=False, repr=False)
    member_by_form: dict = field(eq=False, repr=False)

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

    def fits(self, value: object) -> bool:
        if value is None or (type(value) is str and value in self.exact):
            return True
        try:
            return loose_form(value) in self.member_by_form
        except Unjudged:
            return kind_of(value) is not None

    def findings(self, value: object, walk: Walk) -> Iterator[Finding]:
        yield Finding("enum", {"allowed": self.members, "value": value})

    def cast(self, value: object, caster) -> object:
        """The member's own spelling for a value that only loosely equals it."""
        if value is None:
            return value
        try:
            member = self.member_by_form.get(loose_form(value), value)
        except Unjudged:
            return value
        if member is value or json_equal(member, value):
            return value
        caster.note(True)
        return member


@frozen
class RequiredRule:
    """Each name of `required` must be sent, and not as null where its schema refuses null."""

    codes: ClassVar = ("missing", "null")
    facts: ClassVar = ()
    names: tuple[tuple[str, bool, tuple[str, ...]], ...]

    @classmethod
    def from_node(cls, node: dict, context: NodeContext) -> RequiredRule | None:
        required = node.get("required")
        if not context.judges_objects or not isinstance(required, list):
            return None
        names = dict.fromkeys(name for name in required if type(name) is str)
        if not names:
            return None
        return cls(tuple((name, *context.property_null_facts(name)) for name in names))

    def fits(self, value: object) -> bool:
        if not isinstance(value, dict):
            return True
        for name, refuses_null, _ in self.names:
            sent = value.get(name, NO_MEMBER)
            if sent is NO_MEMBER or (sent is None and refuses_null):
                return False
        return True

    def findings(self, value: dict, walk: Walk) -> Iterator[Finding]:
        for name, refuses_null, types in self.names:
            sent = value.get(name, NO_MEMBER)
            if sent is NO_MEMBER:
                yield Finding("missing", {"types": types}, name)
            elif sent is None and refuses_null:
                yield Finding("null", {"types": types}, name)
