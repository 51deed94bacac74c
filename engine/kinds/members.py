"""`members`: each argument of an object, in the order sent, refused when
`additionalProperties` is false and `properties` does not name it, else checked against its
property schema (and, for `members-and-extra`, against an `additionalProperties` schema)."""

from __future__ import annotations

from typing import Any, Callable, ClassVar

from attrs import field, frozen

from ..values.suggest import suggester
from .contracts import CompiledNode, SchemaContext
from .finding import Collect

_NONE_WORDED: dict[Any, Any] = {}
_UNDECLARED: object = object()


@frozen
class MembersRule:
    """Each argument against the node `properties` gives it; one no property names is refused
    when the object is closed, else checked against `extra`, if any.

    Its test and its walk go over the arguments alike: an argument whose type alone passes
    its property (`passing`) costs a set look-up; any other, its property's test. The walk
    runs only for an object the test refused, and notes each argument that fails."""

    codes: ClassVar[tuple[str, ...]] = ("additional",)
    facts: ClassVar[tuple[str, ...]] = ()
    tests_as_it_walks: ClassVar[bool] = True  # testing the whole first would test every argument twice
    by_name: dict[str, Any] = field(eq=False)  # each declared name -> its node, None if it judges nothing
    names: tuple[str, ...]
    closed: bool
    extra: CompiledNode | None = None  # the schema of arguments `properties` does not name
    fits: Callable[[object], bool] = field(init=False, eq=False, repr=False)
    passing: dict[str, Any] = field(init=False, eq=False, repr=False)  # name -> types that pass outright
    closest: Callable[[object], str | None] | None = field(init=False, eq=False, repr=False)
    _walk: Collect | None = field(init=False, default=None, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        passing = {name: types for name, node in self.by_name.items()
                   if node is not None and (types := node.passing_types) is not None}
        object.__setattr__(self, "passing", passing)
        object.__setattr__(self, "closest", suggester(self.names) if self.closed else None)
        object.__setattr__(self, "fits", self._test())

    # ── Reading the schema ──────────────────────────────────────────────────────────────

    @classmethod
    def from_node(cls, node: dict[str, Any], context: SchemaContext,
                  extra: CompiledNode | None = None) -> MembersRule | None:
        properties = node.get("properties", {})
        if not context.judges_objects or not isinstance(properties, dict):
            return None
        names = tuple(name for name in properties if type(name) is str)
        closed = node.get("additionalProperties") is False and "patternProperties" not in node
        by_name: dict[str, CompiledNode | None] = {}
        for name in names:  # not a comprehension: compiling recurses once per level, a frame fewer
            child = context.child(properties[name], "properties", name)
            by_name[name] = None if context.trivial(child) else child
        if not any(by_name.values()) and not closed and extra is None:
            return None
        return cls(by_name, names, closed, extra)

    def _node_of(self, key: Any) -> CompiledNode | None | bool:
        """The node an argument is checked against; None for none; False when refused."""
        return self.by_name.get(key, False if self.closed else self.extra)

    # ── Testing a value ─────────────────────────────────────────────────────────────────

    def _test(self) -> Callable[[object], bool]:
        tests = {name: node and node.fits for name, node in self.by_name.items()}
        lookup, passing_types = tests.get, self.passing.get
        undeclared: object = False if self.closed else (self.extra and self.extra.fits)

        def fits(value: object) -> bool:
            if type(value) is not dict and not isinstance(value, dict):
                return True
            for key, item in value.items():
                types = passing_types(key)
                if types is not None and type(item) in types:
                    continue
                test = lookup(key, _UNDECLARED)
                if test is _UNDECLARED:
                    test = undeclared
                    if test is False:
                        return False
                if test is not None and not test(item):
                    return False
            return True
        return fits

    # ── Reporting ───────────────────────────────────────────────────────────────────────

    def _walker(self, worded: dict[tuple[str, type], Any]) -> Collect:
        """`collect`: each argument that fails, in the order sent; `worded` holds findings
        worded at compile time, by name and type of value."""
        lookup, passing_types = self.by_name.get, self.passing.get
        undeclared: object = False if self.closed else self.extra
        names, closest, worded_for = self.names, self.closest, worded.get if worded else None

        def collect(value: object, path: tuple[Any, ...], found: Any) -> None:
            if not isinstance(value, dict):
                return
            for key, item in value.items():
                types = passing_types(key)
                if types is not None and type(item) in types:
                    continue
                node = lookup(key, undeclared)
                if node is False:
                    found.add((*path, key), "additional", {"allowed": names, "closest": closest(key)})  # type: ignore[misc]
                elif node is not None and not node.fits(item):
                    mismatch = worded_for((key, type(item))) if worded_for else None
                    if mismatch is None:
                        node.collect(item, (*path, key), found)
                    else:
                        found.add_worded(mismatch)
        return collect

    @property
    def collect(self) -> Collect:
        """The walk, made when a value is first refused here (most nodes never refuse one)."""
        walk = self._walk
        if walk is None:
            walk = self._walker(_NONE_WORDED)
            object.__setattr__(self, "_walk", walk)  # made alike by any thread that races here
        return walk

    def root_collect(self, word: Callable[[tuple[Any, ...], str, dict[str, Any]], Any]) -> Collect:
        """`collect` at the root, where what is said of an argument refused by its type
        alone (a list or an object where its property admits neither) depends on nothing
        else sent: `word(path, code, facts)` words each at compile time."""
        worded: dict[tuple[str, type], Any] = {}
        for name in self.passing:  # the arguments judged by their type alone
            for kind, facts in self.by_name[name].type_rule.structure_findings.items():
                mismatch = word((name,), "kind", facts)
                if mismatch is None:
                    return self.collect
                worded[(name, kind)] = mismatch
        return self._walker(worded)

    # ── Casting ─────────────────────────────────────────────────────────────────────────

    def cast(self, value: object, caster: Any) -> object:
        """Each argument cast by its own node; a new object only where one changed."""
        if not isinstance(value, dict):
            return value
        result = value
        for key, item in value.items():
            node = self._node_of(key)
            if node:
                cast = caster.below(key, node, item)
                if cast is not item:
                    result = dict(value) if result is value else result
                    result[key] = cast
        return result


@frozen
class MembersAndExtraRule(MembersRule):
    """As `MembersRule`, and an `additionalProperties` schema checks the arguments it
    covers (not where `patternProperties` also claims some)."""

    @classmethod
    def from_node(cls, node: dict[str, Any], context: SchemaContext,
                  extra: CompiledNode | None = None) -> MembersRule | None:
        schema = node.get("additionalProperties")
        if isinstance(schema, dict) and "patternProperties" not in node and context.judges_objects:
            child = context.child(schema, "additionalProperties")
            extra = None if context.trivial(child) else child
        return super().from_node(node, context, extra)
