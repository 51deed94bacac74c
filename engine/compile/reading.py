"""Reading a schema node: its declared types, and whether it is judged at all (a node that
is not an object, nested past the depth limit, read as another draft, or caught by one of the
table's skip triggers is not)."""

from __future__ import annotations

from typing import Any, TYPE_CHECKING, Callable

from .drafts import JUDGED_BY_SOME_DRAFT, Draft, switches_draft

if TYPE_CHECKING:
    from .compiling import Compiling
    from .refs import RefScope


def declared_types(node: dict[str, Any]) -> tuple[str, ...] | None:
    """The names of `type` in order without repeats; None when absent; () when malformed."""
    if "type" not in node:
        return None
    declared = node["type"]
    if type(declared) is str:
        return (declared,)
    if type(declared) is list and declared and all(type(name) is str for name in declared):
        return tuple(dict.fromkeys(declared))
    return ()


def _unknown_type(node: dict[str, Any], compilation: Compiling, scope: RefScope) -> bool:
    return not compilation.table.type_names.issuperset(declared_types(node) or ())


def read_by(keyword: str, draft: Draft) -> bool:
    """Whether a keyword means anything to the schema's draft: one the draft defines, or one
    no draft defines (a table may name any such keyword). A keyword only another draft
    defines is an annotation here: a node is neither judged by it nor skipped for it."""
    return draft.defines(keyword) or keyword not in JUDGED_BY_SOME_DRAFT


def _plain_branch(branch: object, compilation: Compiling, scope: RefScope) -> bool:
    """Whether a union branch (or what its `$ref` leads to) is only declared types the table
    knows, with no keyword that would make it more than that."""
    found = compilation.followed(branch, scope.within(branch))
    if found is None or not isinstance(found[0], dict):
        return False
    target, table, draft = found[0], compilation.table, compilation.draft
    types = declared_types(target)
    if not types or not table.type_names.issuperset(types):
        return False
    # Most branches have no keyword that could break them; those that have one are asked
    # whether their draft reads it (a keyword only another draft defines is an annotation).
    return table.union_breakers.isdisjoint(target) or not any(
        read_by(keyword, draft) for keyword in table.union_breakers.intersection(target))


def unions_of(node: dict[str, Any], draft: Draft) -> tuple[str, ...]:
    """The union keywords of a node its draft reads (draft-03 has neither)."""
    return tuple(keyword for keyword in ("anyOf", "oneOf") if keyword in node and draft.defines(keyword))


def _mixed_union(node: dict[str, Any], compilation: Compiling, scope: RefScope) -> bool:
    unions = [node[k] for k in unions_of(node, compilation.draft)]
    return any(type(union) is not list or not union
               or not all(_plain_branch(branch, compilation, scope) for branch in union) for union in unions)


def _unresolved_ref(node: dict[str, Any], compilation: Compiling, scope: RefScope) -> bool:
    return "$ref" in node and compilation.followed(node, scope) is None


#: The skip triggers of `table.vocabulary.SKIP_TRIGGERS` that read more than a keyword.
TRIGGERS: dict[str, Callable[[dict[str, Any], Compiling, RefScope], bool]] = {
    "malformed-type": lambda node, compilation, scope: declared_types(node) == (),
    "unknown-type": _unknown_type,
    "unresolved-ref": _unresolved_ref,
    "mixed-union": _mixed_union,
}


def skip_reason(node: object, compilation: Compiling, depth: int, scope: RefScope) -> str | None:
    """Why a schema node is not judged: not an object, too deep, read as another draft (its
    own `$schema`), or the first trigger of the table that applies."""
    if not isinstance(node, dict):
        return "not-object"
    table = compilation.table
    if depth > table.depth:
        return "depth"
    if "$schema" in node and switches_draft(node, compilation.draft):
        return "other-draft"
    if table.skip_keywords.isdisjoint(node):  # most nodes: only the triggers that read more
        for trigger, keywords in table.trigger_skips:
            if not keywords.isdisjoint(node) and TRIGGERS[trigger](node, compilation, scope):
                return trigger
        return None
    for trigger, keyword in table.skips:
        if trigger == "keyword":
            if keyword in node and read_by(keyword, compilation.draft):  # type: ignore[arg-type]
                return keyword
        elif TRIGGERS[trigger](node, compilation, scope):
            return trigger
    return None
