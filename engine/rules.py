"""The rule kinds of the engine: small frozen classes made once per schema node.

A rule kind reads its keywords in `from_node` (returning None where there is nothing to
judge), answers `fits` without allocating, and only when a value does not fit, yields a
`Finding` per mismatch from `findings`. The interpreter adds the path; the table gives the
wording. Rules that recurse hand each child to `walk.descend`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Iterator, NamedTuple

from attrs import field, frozen

from .suggest import closest_name
from .values import KIND_BY_TYPE, LIST_TYPES, Unjudged, kind_of, loose_form

if TYPE_CHECKING:
    from .compiler import Node, NodeContext
    from .interpreter import Walk

NO_MEMBER: Any = object()


class Finding(NamedTuple):
    """A mismatch a rule found: its code, the facts its message is made of, and the member
    (object key) of the value it is about, if it is about one member."""

    code: str
    facts: dict
    member: Any = NO_MEMBER


@frozen
class KindRule:
    """The value's kind must be admitted by at least one declared type."""

    codes: ClassVar = ("kind",)
    facts: ClassVar = ()
    types: tuple[str, ...]
    admitted: frozenset[str] = field(converter=frozenset)
    verdict_by_type: dict = field(eq=False, repr=False)

    @classmethod
    def from_node(cls, node: dict, context: NodeContext) -> KindRule | None:
        admitted = context.admitted_kinds
        if admitted is None or admitted.issuperset(context.all_kinds):
            return None
        verdicts = {python_type: kind in admitted for python_type, kind in KIND_BY_TYPE.items()}
        return cls(context.types, admitted, verdicts)

    def fits(self, value: object) -> bool:
        verdict = self.verdict_by_type.get(type(value))
        if verdict is not None:
            return verdict
        kind = kind_of(value)
        return kind is None or kind in self.admitted

    def findings(self, value: object, walk: Walk) -> Iterator[Finding]:
        yield Finding("kind", {"types": self.types, "value": value})


@frozen
class EnumRule:
    """The value must loosely equal a member of a non-empty `enum`. Null is never refused."""

    codes: ClassVar = ("enum",)
    facts: ClassVar = ()
    members: tuple
    exact: frozenset = field(eq=False, repr=False)
    forms: frozenset = field(eq=False, repr=False)

    @classmethod
    def from_node(cls, node: dict, context: NodeContext) -> EnumRule | None:
        members = node.get("enum")
        if not isinstance(members, list) or not members:
            return None
        try:
            forms = frozenset(loose_form(member) for member in members)
        except (Unjudged, TypeError):
            return None
        exact = frozenset(member for member in members if type(member) is str)
        return cls(tuple(members), exact, forms)

    def fits(self, value: object) -> bool:
        if value is None or (type(value) is str and value in self.exact):
            return True
        try:
            return loose_form(value) in self.forms
        except Unjudged:
            return kind_of(value) is not None

    def findings(self, value: object, walk: Walk) -> Iterator[Finding]:
        yield Finding("enum", {"allowed": self.members, "value": value})


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


@frozen
class MembersRule:
    """Each argument, in the order sent: refused when `additionalProperties` is false and
    `properties` does not name it, else checked against its property schema."""

    codes: ClassVar = ("additional",)
    facts: ClassVar = ()
    children: dict = field(eq=False)
    allowed: tuple[str, ...] | None

    @classmethod
    def from_node(cls, node: dict, context: NodeContext) -> MembersRule | None:
        properties = node.get("properties", {})
        if not context.judges_objects or not isinstance(properties, dict):
            return None
        names = tuple(name for name in properties if type(name) is str)
        closed = node.get("additionalProperties") is False and "patternProperties" not in node
        children = {name: context.child(properties[name]) for name in names}
        children = {name: child for name, child in children.items() if not child.fits_all}
        if not children and not closed:
            return None
        return cls(children, names if closed else None)

    def fits(self, value: object) -> bool:
        if not isinstance(value, dict):
            return True
        children, allowed = self.children, self.allowed
        for key, item in value.items():
            child = children.get(key)
            if child is None:
                if allowed is not None and key not in allowed:
                    return False
            elif not child.fits(item):
                return False
        return True

    def findings(self, value: dict, walk: Walk) -> Iterator[Finding]:
        for key, item in value.items():
            child = self.children.get(key)
            if child is not None:
                walk.descend(key, child, item)
            elif self.allowed is not None and key not in self.allowed:
                facts = {"allowed": self.allowed, "closest": closest_name(key, self.allowed)}
                yield Finding("additional", facts, key)


@frozen
class ElementsRule:
    """Each list element against `prefixItems` or a list `items` by position, the rest
    against `items`. A list sent where only an object is declared is not looked into."""

    codes: ClassVar = ()
    facts: ClassVar = ()
    by_position: tuple[Node, ...]
    rest: Node | None

    @classmethod
    def from_node(cls, node: dict, context: NodeContext) -> ElementsRule | None:
        if not context.judges_lists:
            return None
        items, prefix = node.get("items"), node.get("prefixItems")
        if isinstance(items, list):
            items, prefix = None, items
        by_position = tuple(context.child(s) for s in prefix) if isinstance(prefix, list) else ()
        rest = context.child(items) if items is not None else None
        while by_position and by_position[-1].fits_all and (rest is None or rest.fits_all):
            by_position = by_position[:-1]
        if rest is not None and rest.fits_all:
            rest = None
        if not by_position and rest is None:
            return None
        return cls(by_position, rest)

    def fits(self, value: object) -> bool:
        if not isinstance(value, LIST_TYPES):
            return True
        for node, item in self._pairs(value):
            if not node.fits(item):
                return False
        return True

    def findings(self, value: Any, walk: Walk) -> Iterator[Finding]:
        for index, (node, item) in enumerate(self._pairs(value)):
            walk.descend(index, node, item)
        yield from ()

    def _pairs(self, value: Any):
        positions = self.by_position
        for index, item in enumerate(value):
            node = positions[index] if index < len(positions) else self.rest
            if node is None:
                return
            yield node, item


#: The rule kinds a table's `rule NAME uses KIND` can name; hosts add theirs with
#: `register_rule_kind`.
RULE_KINDS: dict[str, type] = {
    "kind": KindRule,
    "enum": EnumRule,
    "required": RequiredRule,
    "members": MembersRule,
    "elements": ElementsRule,
}


def register_rule_kind(name: str, kind: type) -> type:
    """Make a rule kind usable by tables loaded from now on, under `name`."""
    for attribute in ("codes", "from_node", "fits", "findings"):
        if not hasattr(kind, attribute):
            raise TypeError(f"a rule kind needs {attribute!r}; {kind.__name__} has none")
    RULE_KINDS[name] = kind
    return kind
