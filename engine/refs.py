"""Local `$ref`s: the schema `#` means where a node sits, and where a reference leads."""

from __future__ import annotations

from urllib.parse import unquote

from attrs import frozen

#: Keywords beside a `$ref` that would be judged too; a `$ref` with any of them is not
#: resolved, since drafts disagree on whether they apply.
JUDGING_KEYWORDS = frozenset({"type", "enum", "const", "required", "properties", "additionalProperties",
                              "patternProperties", "items", "prefixItems", "anyOf", "oneOf", "allOf",
                              "not", "if", "nullable"})


@frozen
class Resource:
    """The schema that `#` means where a node sits (the document, or a subschema with an
    `$id` of its own), and where it sits in the document."""

    schema: object
    pointer: str


def resolve_pointer(reference: str, resource: Resource) -> tuple[object, str] | None:
    """The node a local JSON pointer (`#`, `#/$defs/x`) leads to, with its document pointer."""
    if reference == "#":
        return resource.schema, resource.pointer
    if not reference.startswith("#/"):
        return None
    node = resource.schema
    for raw in reference[2:].split("/"):
        step = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and step in node:
            node = node[step]
        elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        else:
            return None
    return node, resource.pointer + reference[1:]


def follow_refs(node: object, resource: Resource, pointer: str) -> tuple[object, str] | None:
    """The first node along a chain of `$ref`s that is not a `$ref`; None when a reference
    is not local, leads nowhere, cycles, or sits beside keywords that would judge too."""
    seen: set[str] = set()
    while isinstance(node, dict) and "$ref" in node:
        reference = node["$ref"]
        if type(reference) is not str or reference in seen or JUDGING_KEYWORDS.intersection(node):
            return None
        seen.add(reference)
        found = resolve_pointer(reference, resource)
        if found is None:
            return None
        node, pointer = found
    return node, pointer
