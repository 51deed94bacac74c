"""References for the differential test's schemas: where a subschema sits, how a `$ref`
spells the way there, and a resolver good enough to aim instances through references.

The references are added after a schema is drawn, so that most of them lead somewhere: a
JSON pointer to a node that exists (escaped with ~0 and ~1, percent-encoded or raw), a chain
of references, a `$ref` beside other keywords, and `$id`/anchor resources whose nested
`$ref`s resolve against their own base rather than the document's."""

from __future__ import annotations

from urllib.parse import quote, unquote

from hypothesis import strategies as st

#: Keywords whose value is a map of subschemas, a list of them, or one.
MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
LIST_KEYWORDS = ("prefixItems", "anyOf", "oneOf", "allOf")
ONE_KEYWORDS = ("additionalProperties", "additionalItems", "not", "if", "then", "else", "contains", "propertyNames",
                "unevaluatedProperties", "unevaluatedItems")
#: Keywords that hold a schema or a list of them, as `items` does.
ONE_OR_LIST_KEYWORDS = ("items", "extends")

Path = tuple
TENTHS = st.integers(0, 9)


def chance(draw, tenths: int) -> bool:
    """True in about `tenths` of ten draws (hypothesis' booleans are only 50/50). False is
    the simpler answer, the one hypothesis shrinks to, so a shrunk case drops what it can."""
    return draw(TENTHS) >= 10 - tenths


def picked(values: list):
    """`sampled_from(values)`, for values hypothesis must never write out: it writes a
    strategy's elements in its descriptions, and an integer of more than 4,300 digits cannot
    be written (at once). Picks by place, so it shrinks towards the first as sampled_from does."""
    values = list(values)

    def at(index: int) -> object:
        return values[index]

    return st.integers(0, len(values) - 1).map(at)


def locations(node: object, path: Path = ()):
    """The path of every subschema in `node`, `node` itself first."""
    yield path
    if not isinstance(node, dict):
        return
    for keyword, value in node.items():
        if keyword in MAP_KEYWORDS and isinstance(value, dict):
            for key, sub in value.items():
                yield from locations(sub, path + (keyword, key))
        elif (keyword in LIST_KEYWORDS or keyword in ONE_OR_LIST_KEYWORDS) and isinstance(value, list):
            for index, sub in enumerate(value):
                yield from locations(sub, path + (keyword, index))
        elif keyword in ONE_KEYWORDS or keyword in ONE_OR_LIST_KEYWORDS:
            yield from locations(value, path + (keyword,))


def node_at(root: object, path: Path) -> object:
    for step in path:
        root = root[step]  # type: ignore[index]
    return root


def replace_at(root: dict, path: Path, new: object) -> None:
    node_at(root, path[:-1])[path[-1]] = new  # type: ignore[index]


def pointer_segment(step: object, style: str) -> str:
    """One segment of a URI-fragment JSON pointer: `~` and `/` escaped as ~0 and ~1, then
    `%`, space and `"` percent-encoded ("encoded"), everything but unreserved characters
    encoded ("quoted", `$defs` becomes `%24defs`), or left raw as many schemas write it."""
    escaped = str(step).replace("~", "~0").replace("/", "~1")
    if style == "encoded":
        return escaped.replace("%", "%25").replace(" ", "%20").replace('"', "%22")
    return quote(escaped, safe="~") if style == "quoted" else escaped


def pointer(path: Path, style: str) -> str:
    return "#" + "".join("/" + pointer_segment(step, style) for step in path)


pointer_styles = st.sampled_from(["encoded", "encoded", "quoted", "raw"])


def defs_keyword(root: dict) -> str:
    return next((keyword for keyword in ("$defs", "definitions") if isinstance(root.get(keyword), dict)), "$defs")


#: Keywords that step into the instance: a cycle through one ends where the instance does.
INSTANCE_KEYWORDS = frozenset({"properties", "patternProperties", "additionalProperties", "items", "prefixItems",
                               "additionalItems", "contains", "propertyNames", "unevaluatedProperties",
                               "unevaluatedItems"})


def fit_target(site: Path, target: Path, mode: str) -> bool:
    """Whether a `$ref` at `site` may lead to `target`. A node that replaces its subtree
    cannot point into it (that target is gone); and a reference back to the site or an
    ancestor must step into the instance on the way, or it recurses forever (jsonschema
    then raises, and the case teaches nothing about validity)."""
    if mode != "beside" and target[:len(site)] == site:
        return False
    return site[:len(target)] != target or not INSTANCE_KEYWORDS.isdisjoint(site[len(target):])


@st.composite
def add_references(draw, root: dict) -> None:
    """Up to three `$ref`s (mostly none or one) to nodes of the schema: each replacing a
    node, beside a node's other keywords, or at the end of a chain through `$defs`."""
    for number in range(draw(st.sampled_from([0, 0, 1, 1, 2, 3]))):
        places = list(locations(root))
        site = draw(st.sampled_from(places))
        mode = "beside" if site == () else draw(st.sampled_from(["replace", "beside", "chain"]))
        targets = [place for place in places if fit_target(site, place, mode)]
        if not targets:
            continue
        reference = pointer(draw(st.sampled_from(targets)), draw(pointer_styles))
        node = node_at(root, site)
        if mode == "beside" and isinstance(node, dict):
            node["$ref"] = reference
        elif mode == "chain":
            chain = root.setdefault(defs_keyword(root), {})
            chain[f"chain{number}"] = {"$ref": reference}
            replace_at(root, site, {"$ref": f"#/{defs_keyword(root)}/chain{number}"})
        else:
            replace_at(root, site, {"$ref": reference})


RESOURCE_IDS = ["http://x.test/a", "http://x.test/dir/a.json", "a.json", "sub/a.json"]


def anchor_keyword(draft: str) -> tuple[str, str]:
    """The keyword and value that name the anchor "res" in this draft."""
    if draft == "draft-04":
        return "id", "#res"
    if draft in ("draft-06", "draft-07"):
        return "$id", "#res"
    return "$anchor", "res"


@st.composite
def add_resource(draw, root: dict, draft: str, nodes_of) -> None:
    """A `$defs` entry "a" that is a resource of its own (an `$id`, or draft-04 `id`) with a
    nested "b", beside the root's own "b": a `$ref` in "a" read against the document's base
    instead of a's lands on the wrong "b". A property refers to "a" by pointer or by its id
    (absolute or relative), to a's "b" through a's id, or to an anchor. This case, once
    refused by the `extended` table with {"p": "x"}, is one of them:
    {"$defs": {"a": {"$id": "http://x.test/a", "$defs": {"b": {"type": "string"}},
    "$ref": "#/$defs/b"}, "b": {"type": "object"}}, "properties": {"p": {"$ref": "#/$defs/a"}}}."""
    nodes = nodes_of(draft)  # a strategy, made here: hypothesis writes out a composite's arguments
    keyword = draw(st.sampled_from(["$defs", "definitions"]))
    resource_id = draw(st.sampled_from(RESOURCE_IDS))
    id_key = "id" if draft == "draft-04" else "$id"
    resource = {id_key: resource_id, keyword: {"b": draw(nodes)}}
    # Inside "a", "#/$defs/b" means a's own "b"; the other keyword's "b" exists only at the root.
    other = "definitions" if keyword == "$defs" else "$defs"
    inner_ref = draw(st.sampled_from([f"#/{keyword}/b", f"#/{keyword}/b", f"{resource_id}#/{keyword}/b",
                                      f"#/{other}/b", None]))
    if inner_ref:
        resource["$ref"] = inner_ref
    if chance(draw, 3):
        resource["type"] = draw(st.sampled_from(["string", "object", "integer"]))
    way = draw(st.sampled_from(["pointer", "pointer", "id", "id#", "id-pointer", "anchor-inside", "anchor-at-root"]))
    defs = root.setdefault(keyword, {})
    defs["a"], defs["b"] = resource, draw(nodes)
    if way.startswith("anchor"):
        # Now and then another draft's anchor form, which this draft does not honour.
        form = draw(st.sampled_from(["draft-04", "draft-07", "2020-12"])) if chance(draw, 2) else draft
        anchor_key, anchor = anchor_keyword(form)
        parent = resource[keyword] if way == "anchor-inside" else defs
        parent["b"] = {**as_dict(parent["b"]), anchor_key: anchor}
    references = {"pointer": f"#/{keyword}/a", "id": resource_id, "id#": resource_id + "#",
                  "id-pointer": f"{resource_id}#/{keyword}/b",
                  "anchor-inside": f"{resource_id}#res", "anchor-at-root": "#res"}
    properties = root.setdefault("properties", {})
    if isinstance(properties, dict):
        properties[draw(st.sampled_from(["p", "a"]))] = {"$ref": references[way]}


def as_dict(node: object) -> dict:
    return dict(node) if isinstance(node, dict) else {"allOf": [node]}


# ── Resolving, loosely, to aim instances through references ─────────────────────────────

def names_in(root: object) -> dict[str, object]:
    """Every node by the names it gives itself: `$id`, `id` and `#anchor`, ignoring bases
    (good enough to aim an instance; jsonschema is the judge)."""
    named: dict[str, object] = {}
    for path in locations(root):
        node = node_at(root, path)
        if not isinstance(node, dict):
            continue
        for key in ("$id", "id"):
            if isinstance(node.get(key), str):
                named[node[key].rstrip("#")] = node
                named[node[key]] = node
        for key in ("$anchor", "$dynamicAnchor"):
            if isinstance(node.get(key), str):
                named["#" + node[key]] = node
        if node.get("$recursiveAnchor") is True:
            named["$recursiveAnchor"] = node
    return named


def follow_pointer(node: object, fragment: str) -> object | None:
    for raw in fragment.split("/")[1:]:
        step = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and step in node:
            node = node[step]
        elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        else:
            return None
    return node


def resolve_loosely(reference: object, root: object, named: dict[str, object]) -> object | None:
    if not isinstance(reference, str):
        return None
    if reference in named:
        return named[reference]
    base, _, fragment = reference.partition("#")
    start = root if not base else named.get(base)
    if start is None:
        return None
    return follow_pointer(start, fragment) if fragment.startswith("/") or not fragment else named.get("#" + fragment)
