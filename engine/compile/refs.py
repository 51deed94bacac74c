"""`$ref`s resolved as the specification says, by `referencing` (the resolver python-jsonschema
itself uses): base URIs from `$id` and draft-04 `id`, `$anchor` and plain-name fragments, JSON
pointers percent-decoded before they are split, pointers into subschemas with an `$id` of
their own. Nothing is fetched: a reference that leads outside the schema is not resolved, and
neither is one the drafts that must agree (see `drafts`) resolve to different places.

A scope's resolvers are made only when a reference is first followed, so a schema without
`$ref` costs a dict look-up per node and nothing more.
"""

from __future__ import annotations

from typing import Iterator

from referencing import Registry

from ..values.quoting import pointer_step
from .drafts import Draft

#: Keywords beside a `$ref` that would be judged too; a `$ref` with any of them is not
#: resolved, since drafts disagree on whether they apply.
JUDGING_KEYWORDS = frozenset({"type", "enum", "const", "required", "properties", "additionalProperties",
                              "patternProperties", "items", "prefixItems", "anyOf", "oneOf", "allOf",
                              "not", "if", "nullable"})
_ID_KEYWORDS = ("$id", "id")
_UNMADE: object = object()


class RefScope:
    """Where a schema node sits for `$ref`: its base URI under each draft that must agree.

    `within(child)` is the scope of a subschema (a new one only where the child may set a
    base URI); `lookup(reference)` the node a reference leads to, with its own scope.
    """

    __slots__ = ("draft", "document", "_parent", "_subschema", "_resolvers", "_looked_up", "_by_base")

    def __init__(self, draft: Draft, document: object, parent: RefScope | None = None,
                 subschema: object = None, resolvers: object = _UNMADE, by_base: dict | None = None):
        self.draft, self.document = draft, document
        self._parent, self._subschema = parent, subschema
        self._resolvers = resolvers
        self._looked_up: dict[str, tuple[object, RefScope] | None] = {}
        # One scope per base URI: a reference met again from the same base is looked up once.
        self._by_base: dict[tuple, RefScope] = {} if by_base is None else by_base

    def within(self, child: object) -> RefScope:
        if type(child) is dict and ("$id" in child or "id" in child):
            return RefScope(self.draft, self.document, self, child, by_base=self._by_base)
        return self

    def lookup(self, reference: object) -> tuple[object, RefScope] | None:
        """The node `reference` leads to and its scope; None where it cannot be resolved
        here, or where the drafts that must agree do not."""
        if type(reference) is not str:
            return None
        if reference not in self._looked_up:
            self._looked_up[reference] = self._resolve(reference)
        return self._looked_up[reference]

    def _resolve(self, reference: str) -> tuple[object, RefScope] | None:
        resolvers = self._made()
        if resolvers is None:
            return None
        try:
            resolved = [resolver.lookup(reference) for resolver in resolvers]
        except Exception:  # referencing raises several kinds for a reference that leads nowhere
            return None
        contents = resolved[0].contents
        if any(each.contents is not contents for each in resolved):
            return None
        resolvers = tuple(each.resolver for each in resolved)
        base = tuple(getattr(resolver, "_base_uri", None) for resolver in resolvers)
        if None in base:  # no base URI to tell scopes apart by: each stays its own
            return contents, RefScope(self.draft, self.document, resolvers=resolvers, by_base=self._by_base)
        if base not in self._by_base:
            self._by_base[base] = RefScope(self.draft, self.document, resolvers=resolvers, by_base=self._by_base)
        return contents, self._by_base[base]

    def _made(self) -> tuple | None:
        if self._resolvers is _UNMADE:
            self._resolvers = self._make()
        return self._resolvers  # type: ignore[return-value]

    def _make(self) -> tuple | None:
        specifications = self.draft.specifications
        try:
            if self._parent is None:
                if not is_tree(self.document):
                    return None  # crawling a schema that contains itself would not end
                return tuple(_root_resolver(spec, self.document) for spec in specifications)
            outer = self._parent._made()
            if outer is None:
                return None
            return tuple(resolver.in_subresource(spec.create_resource(self._subschema))
                         for resolver, spec in zip(outer, specifications))
        except Exception:  # a malformed `$id` (not text, not a URI) sets no usable base
            return None


def _root_resolver(specification, document: object):
    resource = specification.create_resource(document)
    uri = resource.id() or ""
    return Registry().with_resource(uri, resource).crawl().resolver(base_uri=uri)


def root_scope(document: object, draft: Draft) -> RefScope:
    return RefScope(draft, document)


def follow_refs(node: object, scope: RefScope) -> tuple[object, RefScope] | None:
    """The first node along a chain of `$ref`s that is not a `$ref`, with its scope; None when
    a reference cannot be resolved, the chain cycles, or a `$ref` sits beside keywords that
    would judge too. Each step is looked up once per scope, so a long chain costs its length."""
    seen: set[int] = set()
    while type(node) is dict and "$ref" in node:
        if id(node) in seen or JUDGING_KEYWORDS.intersection(node):
            return None
        seen.add(id(node))
        found = scope.lookup(node["$ref"])
        if found is None:
            return None
        node, scope = found
    return node, scope


def containers(document: object) -> Iterator[tuple[object, str]]:
    """Every object and list of a document with its JSON pointer, each object once (a Python
    object that contains itself is walked once)."""
    seen: set[int] = set()
    pending: list[tuple[object, str]] = [(document, "#")]
    while pending:
        node, pointer = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node, pointer
        items = node.items() if type(node) is dict else enumerate(node) if type(node) is list else ()
        for key, child in reversed(list(items)):
            if type(child) in (dict, list):
                pending.append((child, pointer + "/" + pointer_step(key)))


def is_tree(document: object) -> bool:
    """Whether no object or list of the document appears twice in it (JSON text never shares)."""
    seen: set[int] = set()
    pending = [document]
    while pending:
        node = pending.pop()
        if id(node) in seen:
            return False
        seen.add(id(node))
        children = node.values() if type(node) is dict else node if type(node) is list else ()
        pending.extend(child for child in children if type(child) in (dict, list))
    return True


def pointers_by_node(document: object) -> dict[int, str]:
    """Each object's and list's JSON pointer, by identity: where a resolved reference leads."""
    return {id(node): pointer for node, pointer in containers(document)}
