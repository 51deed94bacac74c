"""`required`: each name must be sent, and not as null where its property refuses null."""

from __future__ import annotations

from typing import Any, Callable, ClassVar

from attrs import field, frozen

from .contracts import SchemaContext
from .finding import NO_MEMBER, Collect

_NONE_WORDED: dict[Any, Any] = {}


@frozen
class RequiredRule:
    """Each name of `required` must be sent, and not as null where its schema refuses null."""

    codes: ClassVar[tuple[str, ...]] = ("missing", "null")
    facts: ClassVar[tuple[str, ...]] = ()
    names: tuple[tuple[str, bool, tuple[str, ...]], ...]  # name, refuses null, declared types
    fits: Callable[[object], bool] = field(init=False, eq=False, repr=False)
    _walk: Collect | None = field(init=False, default=None, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "fits", self._test())

    @classmethod
    def from_node(cls, node: dict[str, Any], context: SchemaContext) -> RequiredRule | None:
        required = node.get("required")
        if not context.judges_objects or not isinstance(required, list) or not context.draft.required_list:
            return None  # draft-03 marks a property required in its own schema instead
        names = dict.fromkeys(name for name in required if type(name) is str)
        if not names:
            return None
        return cls(tuple((name, *context.property_null_facts(name)) for name in names))

    def _test(self) -> Callable[[object], bool]:
        names = tuple(name for name, _, _ in self.names)
        null_refused = tuple(name for name, refuses, _ in self.names if refuses)

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

    def _walker(self, worded: dict[str, Any]) -> Collect:
        """`collect`: each missing name in `required` order, then each null; `worded` holds
        findings worded at compile time, by name."""
        names, worded_for = self.names, worded.get

        def collect(value: Any, path: tuple[Any, ...], found: Any) -> None:
            for name, refuses_null, types in names:
                sent = value.get(name, NO_MEMBER)
                if sent is NO_MEMBER:
                    mismatch = worded_for(name)
                    if mismatch is None:
                        found.add((*path, name), "missing", {"types": types})
                    else:
                        found.add_worded(mismatch)
                elif sent is None and refuses_null:
                    found.add((*path, name), "null", {"types": types})
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
        """`collect` at the root, where what is said of a missing argument depends on
        nothing sent: `word(path, code, facts)` words each at compile time (None where the
        table's words for the code may read more than is fixed)."""
        worded: dict[str, Any] = {}
        for name, _, types in self.names:
            mismatch = word((name,), "missing", {"types": types})
            if mismatch is None:
                return self.collect
            worded[name] = mismatch
        return self._walker(worded)
