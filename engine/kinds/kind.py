"""`kind`: the value's kind must be admitted by at least one declared type."""

from __future__ import annotations

from typing import Any, Callable, ClassVar

from attrs import field, frozen

from ..values.converters import as_frozenset
from ..values.kinds import KIND_BY_TYPE, REFINED_KINDS, base_kind, kind_of, text_json
from .contracts import SchemaContext

#: Values of the kinds whose findings never quote what they hold.
_STRUCTURE_SAMPLES: tuple[list[Any], dict[str, Any]] = ([], {})
_UNKNOWN_TYPE: Any = object()


@frozen
class KindRule:
    """The value's kind must be admitted by at least one declared type: its own kind, or
    one a cast the table lists turns into it ("5" for an integer)."""

    codes: ClassVar[tuple[str, ...]] = ("kind",)
    facts: ClassVar[tuple[str, ...]] = ()
    types: tuple[str, ...]
    admitted: frozenset[str] = field(converter=as_frozenset)
    natives: frozenset[str] = field(converter=as_frozenset)  # the kinds the types are made for
    by_type: dict[type, Any] = field(eq=False, repr=False)  # exact Python type -> True, False or narrower tests
    fits: Callable[[object], bool] = field(init=False, eq=False, repr=False)
    #: The exact Python types whose values pass outright (no narrower kind's test needed).
    passing_types: frozenset[type] = field(init=False, eq=False, repr=False)
    #: The exact Python types whose values are refused outright, whatever they hold.
    refused_types: frozenset[type] = field(init=False, eq=False, repr=False)
    #: Per list or object type it refuses, the facts of its `kind` finding, the same
    #: whatever the list or object holds (a parent words them at compile time).
    structure_findings: dict[type, dict[str, Any]] = field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        passing = frozenset(t for t, verdict in self.by_type.items() if verdict is True)
        refused = frozenset(t for t, verdict in self.by_type.items() if verdict is False)
        object.__setattr__(self, "passing_types", passing)
        object.__setattr__(self, "refused_types", refused)
        object.__setattr__(self, "fits", self._test(passing, refused))
        object.__setattr__(self, "structure_findings", {type(sample): self.finding(sample)[1] for sample in
                                                        _STRUCTURE_SAMPLES if type(sample) in refused})

    # ── Reading the schema ──────────────────────────────────────────────────────────────

    @classmethod
    def from_node(cls, node: dict[str, Any], context: SchemaContext) -> KindRule | None:
        if context.admitted_kinds is None:
            return None
        return cls.admitting(context.types, context)  # type: ignore[arg-type]  # typed where kinds are admitted

    @classmethod
    def admitting(cls, types: tuple[str, ...], context: SchemaContext) -> KindRule | None:
        """A rule for what `types` admit; None when they admit every kind of value. The
        rule is immutable, so one per table and types serves every node that declares them."""
        shared = context.table.kind_rules
        if types not in shared:
            shared[types] = cls._admitting(types, context)
        rule: KindRule | None = shared[types]
        return rule

    @classmethod
    def _admitting(cls, types: tuple[str, ...], context: SchemaContext) -> KindRule | None:
        entries = [context.table.type_by_name[name] for name in types]
        admitted = frozenset(kind for entry in entries for kind in entry.admits)
        if admitted.issuperset(context.all_kinds):
            return None
        by_type = {python_type: _admission(kind, admitted) for python_type, kind in KIND_BY_TYPE.items()}
        return cls(types, admitted, {base_kind(entry.native) for entry in entries}, by_type)

    # ── Testing a value ─────────────────────────────────────────────────────────────────

    def _test(self, passing: frozenset[type], refused: frozenset[type]) -> Callable[[object], bool]:
        """A set look-up by exact type; subclasses and narrower kinds go slow."""
        slow = self._fits_slowly

        def fits(value: object) -> bool:
            kind = type(value)
            if kind in passing:
                return True
            if kind in refused:
                return False
            return slow(value)
        return fits

    def _fits_slowly(self, value: object) -> bool:
        """A narrower kind's test, or a type JSON does not decode to (a subclass, a set)."""
        verdict = self.by_type.get(type(value), _UNKNOWN_TYPE)
        if verdict is _UNKNOWN_TYPE:
            verdict = _admission(kind_of(value), self.admitted)
        if verdict is True or verdict is False:
            return verdict
        return any(test(value) for test in verdict)

    # ── Reporting ───────────────────────────────────────────────────────────────────────

    def finding(self, value: object) -> tuple[str, dict[str, Any]]:
        """The code and facts of a finding on a value this rule refuses; for text holding a
        list or object as JSON, which (models often send one that way)."""
        facts: dict[str, Any] = {"types": self.types, "value": value}
        if type(value) is str:
            held = text_json(value)
            if held is not None and kind_of(held) in self.natives:
                facts["json"] = kind_of(held)
        return "kind", facts

    def collect(self, value: object, path: tuple[Any, ...], found: Any) -> None:
        found.add(path, *self.finding(value))


def _admission(kind: str | None, admitted: frozenset[str]) -> object:
    """True or False for a kind of value, or the tests of the narrower kinds admitted."""
    if kind is None or kind in admitted:
        return True
    tests = tuple(REFINED_KINDS[k][1] for k in sorted(admitted) if k in REFINED_KINDS and base_kind(k) == kind)
    return tests or False
