"""The rule kinds a table's `rule NAME uses KIND` can name: the draft, as a literal table.

Hosts add theirs with `register_rule_kind` before loading a table that uses them.
"""

from __future__ import annotations

from typing import Any

from .elements import ElementsRule
from .enum import EnumRule
from .kind import KindRule
from .members import MembersAndExtraRule, MembersRule
from .ref import RefRule
from .required import RequiredRule
from .union import UnionRule

RULE_KINDS: dict[str, Any] = {
    "kind": KindRule,
    "enum": EnumRule,
    "required": RequiredRule,
    "members": MembersRule,
    "members-and-extra": MembersAndExtraRule,
    "elements": ElementsRule,
    "ref": RefRule,
    "union": UnionRule,
}
#: The engine's own rule kinds: the compiler knows which keywords they read.
SHIPPED_KINDS = frozenset(RULE_KINDS.values())


def register_rule_kind(name: str, kind: type) -> type:
    """Make a rule kind usable by tables loaded from now on, under `name`.

    A rule kind is a class with `codes` (the mismatch codes it reports), `facts` (the
    facts beyond the engine's own that its messages may use), a classmethod
    `from_node(node, context)` returning an instance or None, `fits(value)`, and either
    `findings(value, walk)` yielding `Finding`s or `collect(value, path, found)` noting
    them; `cast_value(value)` (a cast of the value itself) and `cast(value, caster)` (casts
    below it) are optional. The engine's own kinds (`kinds/*.py`) are written the same way.
    """
    for attribute in ("codes", "facts", "from_node", "fits"):
        if not hasattr(kind, attribute):
            raise TypeError(f"a rule kind needs {attribute!r}; {kind.__name__} has none")
    if not hasattr(kind, "findings") and not hasattr(kind, "collect"):
        raise TypeError(f"a rule kind needs 'findings' or 'collect'; {kind.__name__} has neither")
    RULE_KINDS[name] = kind
    return kind
