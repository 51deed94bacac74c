"""`enum`: the value must loosely equal a member ("Draft" is "draft", 2 is "2")."""

from __future__ import annotations

from typing import Any, Callable, ClassVar

from attrs import field, frozen

from ..values.kinds import Unjudged, json_equal, kind_of, loose_form
from .contracts import SchemaContext


@frozen
class EnumRule:
    """The value must loosely equal a member of a non-empty `enum`. Null is never refused."""

    codes: ClassVar[tuple[str, ...]] = ("enum",)
    facts: ClassVar[tuple[str, ...]] = ()
    members: tuple[Any, ...]
    exact: frozenset[str] = field(eq=False, repr=False)  # the members that are text, as sent
    member_by_form: dict[object, Any] = field(eq=False, repr=False)  # loose form -> the first member of it
    fits: Callable[[object], bool] = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "fits", self._test())

    @classmethod
    def from_node(cls, node: dict[str, Any], context: SchemaContext) -> EnumRule | None:
        members = node.get("enum")
        if not isinstance(members, list) or not members:
            return None
        by_form: dict[object, Any] = {}
        try:
            for member in members:
                by_form.setdefault(loose_form(member), member)
        except (Unjudged, TypeError):
            return None
        exact = frozenset(member for member in members if type(member) is str)
        return cls(tuple(members), exact, by_form)

    def _test(self) -> Callable[[object], bool]:
        """Text found as sent costs a set look-up; anything else its loose form."""
        exact, forms = self.exact, self.member_by_form

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

    def collect(self, value: object, path: tuple[Any, ...], found: Any) -> None:
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
