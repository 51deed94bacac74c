"""`$ref`s resolved as the specification says, by `referencing` (the resolver python-jsonschema
itself uses): base URIs from `$id` and draft-04 `id`, `$anchor` and plain-name fragments, JSON
pointers percent-decoded before they are split, pointers into subschemas with an `$id` of
their own. Nothing is fetched: a reference that leads outside the schema is not resolved, and
neither is one the drafts that must agree (see `drafts`) resolve to different places.

A scope's resolvers are made only when a reference is first followed, so a schema without
`$ref` costs a dict look-up per node and nothing more; a document that names no base URI and
no anchor is not crawled for them. A JSON pointer is walked by `pointers`, in linear time.
"""

from __future__ import annotations

from typing import Any, Iterator

from referencing import Registry, Specification

from ..values.quoting import pointer_step
from .drafts import Draft
from .pointers import Walked, resolved

#: Keywords beside a `$ref` that would be judged too; a `$ref` with any of them is not
#: resolved, since drafts disagree on whether they apply.
JUDGING_KEYWORDS = frozenset({"type", "enum", "const", "required", "properties", "additionalProperties",
                              "patternProperties", "items", "prefixItems", "anyOf", "oneOf", "allOf",
                              "not", "if", "nullable"})
_ID_KEYWORDS = ("$id", "id")
#: Keywords that name a resource or an anchor, under some draft: a document with none of
#: them is one resource, and `referencing` has nothing to find by crawling it.
_NAMING_KEYWORDS = ("$id", "id", "$anchor", "$dynamicAnchor")
_UNMADE: object = object()


class RefScope:
    """Where a schema node sits for `$ref`: its base URI under each draft that must agree.

    `within(child)` is the scope of a subschema (a new one only where the child may set a
    base URI); `lookup(reference)` the node a reference leads to, with its own scope.
    """

    __slots__ = ("draft", "document", "_parent", "_subschema", "_resolvers", "_looked_up", "_by_base", "_bases")
    draft: Draft
    document: object

    def __init__(self, draft: Draft, document: object, parent: RefScope | None = None,
                 subschema: object = None, resolvers: object = _UNMADE, by_base: dict[tuple[Any, ...], RefScope] | None = None):
        self.draft, self.document = draft, document
        self._parent, self._subschema = parent, subschema
        self._resolvers = resolvers
        self._looked_up: dict[str, tuple[object, RefScope] | None] = {}
        self._bases: dict[str, list[Any] | None] = {}  # per resource named, where its pointers are read
        # One scope per base URI: a reference met again from the same base is looked up once.
        self._by_base: dict[tuple[Any, ...], RefScope] = {} if by_base is None else by_base

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
        head, hashed, fragment = reference.partition("#")
        try:
            if hashed and fragment.startswith("/"):
                found = self._walked(head, fragment)
            else:
                found = [resolver.lookup(reference) for resolver in resolvers]
        except Exception:  # referencing raises several kinds for a reference that leads nowhere
            return None
        contents = found[0].contents
        if any(each.contents is not contents for each in found):
            return None
        resolvers = tuple(each.resolver for each in found)
        base = _bases(resolvers)
        if None in base:  # no base URI to tell scopes apart by: each stays its own
            return contents, RefScope(self.draft, self.document, resolvers=resolvers, by_base=self._by_base)
        if base not in self._by_base:
            self._by_base[base] = RefScope(self.draft, self.document, resolvers=resolvers, by_base=self._by_base)
        return contents, self._by_base[base]

    def _walked(self, head: str, fragment: str) -> list[Any]:
        """A JSON pointer read in the resource `head` names, by each draft that must agree
        (see `pointers`); walked once where they read it in the same resource."""
        if head not in self._bases:
            self._bases[head] = None  # until found: a resource that cannot be is looked up once
            self._bases[head] = [_resource(resolver, spec, head, self.document)
                                 for resolver, spec in zip(self._made(), self.draft.specifications)]  # type: ignore[arg-type]
        bases = self._bases[head]
        if bases is None:
            raise LookupError(head)
        walks: dict[int, Walked] = {}
        found = []
        for contents, resolver, specification in bases:
            if id(contents) not in walks:
                walks[id(contents)] = Walked(contents, fragment)
            found.append(resolved(walks[id(contents)], resolver, specification))
        return found

    def _made(self) -> tuple[Any, ...] | None:
        if self._resolvers is _UNMADE:
            self._resolvers = resolvers = self._make()
            if resolvers is not None:
                # A reference that leads back here (to the root, to an ancestor with this
                # `$id`) finds this scope, so its target is the node already compiled.
                self._by_base.setdefault(_bases(resolvers), self)
        return self._resolvers  # type: ignore[return-value]

    def _make(self) -> tuple[Any, ...] | None:
        specifications = self.draft.specifications
        try:
            if self._parent is None:
                tree, named = scan(self.document)
                if not tree:
                    return None  # crawling a schema that contains itself would not end
                return tuple(_root_resolver(spec, self.document, named) for spec in specifications)
            outer = self._parent._made()
            if outer is None:
                return None
            return tuple(resolver.in_subresource(spec.create_resource(self._subschema))
                         for resolver, spec in zip(outer, specifications))
        except Exception:  # a malformed `$id` (not text, not a URI) sets no usable base
            return None


def _bases(resolvers: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(getattr(resolver, "_base_uri", None) for resolver in resolvers)


def _root_resolver(specification: Specification[Any], document: object, named: bool) -> Any:
    resource = specification.create_resource(document)
    uri = (resource.id() or "") if named else ""
    # With nothing to find, the registry holds the document as an opaque resource: crawled
    # at once, and pointers into it are walked by the document's own draft (see `_lookup`).
    crawled = resource if named else Specification.OPAQUE.create_resource(document)
    return Registry().with_resource(uri, crawled).crawl().resolver(base_uri=uri)


def _resource(resolver: Any, specification: Specification[Any], head: str, document: object) -> tuple[Any, ...]:
    """The resource a pointer's reference names (`head`, before the `#`): its contents, its
    resolver, and the draft it is read by (an embedded resource, by its own `$schema`)."""
    base = resolver.lookup(head + "#")
    if base.contents is not document:
        specification = specification.detect(base.contents)
    return base.contents, base.resolver, specification


def root_scope(document: object, draft: Draft) -> RefScope:
    return RefScope(draft, document)


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


def scan(document: object) -> tuple[bool, bool]:
    """Whether no object or list of the document appears twice in it (JSON text never
    shares), and whether some object names a resource or an anchor (as text)."""
    seen: set[int] = set()
    named = False
    pending = [document]
    while pending:
        node = pending.pop()
        if id(node) in seen:
            return False, named
        seen.add(id(node))
        if type(node) is dict:
            named = named or any(type(node.get(key)) is str for key in _NAMING_KEYWORDS)
            pending.extend(child for child in node.values() if type(child) in (dict, list))
        elif type(node) is list:
            pending.extend(child for child in node if type(child) in (dict, list))
    return True, named


def pointers_by_node(document: object) -> dict[int, str]:
    """Each object's and list's JSON pointer, by identity: where a resolved reference leads."""
    return {id(node): pointer for node, pointer in containers(document)}
