"""Schemas for the differential test: small JSON Schemas of every draft (draft-03 to 2020-12)
that mix what turngate judges (type, enum, required, properties, items, additionalProperties)
with what it skips or ignores (unions, allOf, not, if, const, bounds, pattern, format, and the
keywords of `differential_keywords`, each also under the drafts that do not define it), and
references of every form: JSON pointers with escaped and percent-encoded segments, `$id`
(draft-03/04 `id`) bases, relative ones, anchors, chains, `$ref`s beside other keywords,
`definitions` beside `$defs`, and recursive resources (`$dynamicRef`, `$recursiveRef`)."""

from __future__ import annotations

import copy
from functools import lru_cache

from hypothesis import strategies as st

from differential_keywords import (
    DIVISORS,
    DRAFT_03_URI,
    add_tree,
    const_nodes,
    draft_03_extras,
    keyword_nodes,
    multiple_of_nodes,
    odd_members,
    required_flags,
    whole,
)
from differential_refs import add_references, add_resource, chance, picked

DRAFT_URIS = {
    "draft-03": DRAFT_03_URI,
    "draft-04": "http://json-schema.org/draft-04/schema",
    "draft-06": "http://json-schema.org/draft-06/schema",
    "draft-07": "http://json-schema.org/draft-07/schema",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
}
UNKNOWN_DRAFT_URI = "http://x.test/not-a-draft/schema"
#: "none": no `$schema` (jsonschema then reads it as 2020-12); "unknown": a URI of no draft.
DRAFTS = (*DRAFT_URIS, "none", "unknown")

TYPE_NAMES = ["string", "integer", "number", "boolean", "array", "object", "null"]
#: "any" is a type of draft-03 only.
UNKNOWN_TYPE_NAMES = ["dict", "float", "date", "any"]
#: Members that compare loosely in turngate but strictly in JSON Schema (1, 1.0, "1", true).
ENUM_MEMBERS = [1, 1.0, "1", True, False, "true", "A", "a", "Draft", "draft", None, 0, 2.5, "",
                [1, "a"], [], {"k": 1}, {}]
#: Members JSON Schema tells apart but a loose match does not (1, 1.0 and "1"; "a" and "A";
#: true and "true"): in one enum, they are where a loose match or a cast can go wrong.
LOOSE_FAMILIES = [[1, "1"], [1, 1.0, "1"], ["a", "A"], ["Draft", "draft"], [True, "true"], [0, False, "0"],
                  [2.5, "2.5"], [[1], ["1"]], [{"k": 1}, {"k": True}], [0, -0.0, "0"], [True, 1, "1"],
                  ["Straße", "strasse", "STRASSE"], ["İ", "i"], [5, 5.0, "5", "5.0"], [10 ** 4400, "1" + "0" * 4400]]
enum_members = st.sampled_from(ENUM_MEMBERS)
enums = st.one_of(
    st.lists(enum_members, min_size=1, max_size=4),
    st.builds(lambda family, more: family + more,
              picked(LOOSE_FAMILIES).flatmap(st.permutations), st.lists(enum_members, max_size=1)),
)
#: Patterns with texts that match them, so that the instances can meet them.
PATTERNS = {"^a": ["a", "abc"], "^[0-9]+$": ["7", "12"], "x": ["x", "axb"],
            "^\\d+$": ["7", "\u0665"]}  # Python's \d (jsonschema's) matches the Arabic-Indic 5 too
FORMATS = ["date", "email", "uri", "date-time", "uuid"]
PLAIN_NAMES = ["a", "b", "uid", "title"]
#: Names a JSON pointer must escape (~0, ~1) or a URI fragment must percent-encode.
AWKWARD_NAMES = ["x/y", "m~n", "p%q", "s t", 'q"r']
#: The `patternProperties` pattern the schemas use, and a key the instances send for it.
PATTERN_PROPERTY, PATTERN_KEY = "^x", "x1"

names = st.sampled_from(PLAIN_NAMES) | st.sampled_from(AWKWARD_NAMES)


#: Mostly known names (repeated for weight: one_of picks its branches evenly), now and then
#: a name no draft knows, which turngate skips and jsonschema cannot judge once reached.
type_values = st.one_of(
    st.sampled_from(TYPE_NAMES), st.sampled_from(TYPE_NAMES), st.sampled_from(TYPE_NAMES),
    st.lists(st.sampled_from(TYPE_NAMES), min_size=1, max_size=3, unique=True),
    st.lists(st.sampled_from(TYPE_NAMES), min_size=1, max_size=3, unique=True),
    st.sampled_from(UNKNOWN_TYPE_NAMES) | st.lists(st.sampled_from(TYPE_NAMES + UNKNOWN_TYPE_NAMES), min_size=1,
                                                  max_size=2, unique=True),
)


@lru_cache(maxsize=None)
def numeric_bounds(draft: str):
    """Bounds in the draft's own form: draft-04's `exclusiveMinimum` and `exclusiveMaximum`
    are booleans beside `minimum` and `maximum`; later drafts make them numbers of their own.
    A `multipleOf` of 0.1 holds for 0.5 but, in floating point, not for 0.3; draft-03 names it
    `divisibleBy`."""
    if draft in ("draft-03", "draft-04"):
        exclusive = st.one_of(
            st.fixed_dictionaries({"minimum": st.integers(-3, 3), "exclusiveMinimum": st.booleans()}),
            st.fixed_dictionaries({"maximum": st.integers(0, 9), "exclusiveMaximum": st.booleans()}))
    else:
        exclusive = st.one_of(st.fixed_dictionaries({"exclusiveMinimum": st.integers(-3, 3)}),
                              st.fixed_dictionaries({"exclusiveMaximum": st.integers(0, 9)}))
    return st.one_of(st.fixed_dictionaries({"minimum": st.integers(-3, 3)}),
                     st.fixed_dictionaries({"maximum": st.integers(0, 9)}), exclusive,
                     st.builds(lambda divisor: {"divisibleBy" if draft == "draft-03" else "multipleOf": divisor},
                               st.sampled_from(DIVISORS)))


@lru_cache(maxsize=None)
def constraints(type_name: str, draft: str):
    """Keywords turngate ignores but JSON Schema judges, for a node of this type."""
    return {
        "string": st.one_of(st.fixed_dictionaries({"minLength": st.integers(0, 3)}),
                            st.fixed_dictionaries({"maxLength": st.integers(0, 4)}),
                            st.fixed_dictionaries({"pattern": st.sampled_from(sorted(PATTERNS))}),
                            st.fixed_dictionaries({"format": st.sampled_from(FORMATS)})),
        "integer": numeric_bounds(draft),
        "number": numeric_bounds(draft),
        "array": st.one_of(st.fixed_dictionaries({"minItems": st.integers(0, 2)}),
                           st.fixed_dictionaries({"maxItems": st.integers(0, 3)}),
                           st.fixed_dictionaries({"uniqueItems": st.booleans()}),
                           st.just({"contains": {"type": "integer"}})),
        "object": st.one_of(st.fixed_dictionaries({"minProperties": st.integers(0, 2)}),
                            st.fixed_dictionaries({"maxProperties": st.integers(0, 3)}),
                            st.just({"propertyNames": {"maxLength": 3}}),
                            # dependentRequired from 2019-09 on, dependencies before: each
                            # means nothing in the other drafts.
                            st.sampled_from([{"dependentRequired": {"a": ["b"]}}, {"dependencies": {"a": ["b"]}}])),
    }.get(type_name, st.just({}))


@st.composite
def typed_leaves(draw, draft: str) -> dict:
    declared = draw(type_values)
    node = {"type": declared}
    first = declared if isinstance(declared, str) else declared[0]
    if chance(draw, 3):
        node.update(draw(constraints(first, draft)))
    if chance(draw, 2):
        node["enum"] = draw(enums)
    if chance(draw, 5 if draft == "draft-03" else 1):
        node.update(draw(draft_03_extras()))
    if chance(draw, 1):
        node["const"] = draw(enum_members | odd_members)
    if chance(draw, 1):
        node["nullable"] = draw(st.booleans())
    return node


#: Union branches that are plain typed nodes (pydantic's Optional[X] is one of these).
plain_branches = st.builds(lambda declared: {"type": declared}, type_values)


def overlapping_branches(name: str):
    """Branches that admit some value twice, which `oneOf` then refuses: the same type
    (written alike or as a list), the type and the type or null, an integer and a number;
    and pydantic's Optional[X]."""
    return st.sampled_from([[{"type": name}, {"type": name}], [{"type": name}, {"type": [name]}],
                            [{"type": name}, {"type": [name, "null"]}], [{"type": "integer"}, {"type": "number"}],
                            [{"type": name}, {"type": "null"}]])


overlapping_unions = st.sampled_from(TYPE_NAMES).flatmap(overlapping_branches)
#: A union of plain typed branches, as a leaf: what the `extended` table judges and casts.
plain_unions = st.builds(lambda keyword, branches: {keyword: branches}, st.sampled_from(["oneOf", "anyOf"]),
                         overlapping_unions | overlapping_unions | st.lists(plain_branches, min_size=1, max_size=3))


@lru_cache(maxsize=None)
def leaves(draft: str):
    plain = st.one_of(  # typed leaves and unions twice: they are what turngate judges and casts
        typed_leaves(draft), typed_leaves(draft), plain_unions, plain_unions,
        st.builds(lambda members: {"enum": members}, enums),
        st.builds(lambda value: {"const": value}, enum_members),
        st.sampled_from([{}, True, False, {"format": "date"}, {"nullable": True}]),
        whole(const_nodes()), whole(multiple_of_nodes()),
    )
    # A keyword of one draft or another around plain leaves, as a leaf of its own.
    return st.one_of(plain, plain, plain, keyword_nodes(plain, draft))


@st.composite
def object_nodes(draw, inner, draft: str) -> dict:
    properties = draw(st.dictionaries(names, inner, min_size=0 if chance(draw, 1) else 1, max_size=3))
    properties = draw(required_flags(properties, draft))
    node: dict = {"properties": properties}
    if chance(draw, 8):
        node["type"] = draw(st.sampled_from(["object", "object", ["object", "null"], ["object", "array"]]))
    # Required names inside `properties`, now and then one outside it or one that is not text.
    required = draw(st.lists(st.sampled_from(list(properties)), max_size=3, unique=True)) if properties else []
    if chance(draw, 2):
        required.append(draw(st.sampled_from(["c", "uid"])))
    if chance(draw, 1):
        required.append(draw(st.sampled_from([1, None])))
    if required or chance(draw, 2):
        node["required"] = required
    # Absent first: hypothesis shrinks towards the first choice.
    additional = draw(st.sampled_from(["absent"] * 4 + ["false"] * 3 + ["true", "schema", "schema"]))
    if additional in ("false", "true"):
        node["additionalProperties"] = additional == "true"
    elif additional == "schema":
        node["additionalProperties"] = draw(inner)
    if chance(draw, 2):
        node["patternProperties"] = {PATTERN_PROPERTY: draw(inner)}
    if chance(draw, 1):
        node.update(draw(constraints("object", draft)))
    return node


@st.composite
def array_nodes(draw, inner, draft: str) -> dict:
    """Every form of items: a schema, a list (+ additionalItems), prefixItems (+ items),
    a boolean; each in every draft, where it means what that draft says it means."""
    form = draw(st.sampled_from(["items", "items-list", "prefixItems", "items-bool"]))
    if form == "items":
        node = {"items": draw(inner)}
    elif form == "items-list":
        node = {"items": draw(st.lists(inner, min_size=1, max_size=3))}
        if chance(draw, 4):
            node["additionalItems"] = draw(st.booleans() | inner)
    elif form == "prefixItems":
        node = {"prefixItems": draw(st.lists(inner, min_size=1, max_size=3))}
        if chance(draw, 4):
            node["items"] = draw(st.just(False) | inner)
    else:
        node = {"items": draw(st.booleans())}
    if chance(draw, 8):
        node["type"] = "array"
    if chance(draw, 1):
        node.update(draw(constraints("array", draft)))
    return node


@st.composite
def union_nodes(draw, inner) -> dict:
    """A union of branches that are plain typed nodes and any nodes (which `extended` then
    skips), now and then beside a `type` of its own."""
    keyword = draw(st.sampled_from(["anyOf", "oneOf"]))
    node = {keyword: draw(st.lists(plain_branches | inner, min_size=1, max_size=3))}
    if chance(draw, 2):
        node["type"] = draw(type_values)
    return node


def logic_nodes(inner):
    return st.one_of(
        st.builds(lambda branches: {"allOf": branches}, st.lists(inner, min_size=1, max_size=2)),
        st.builds(lambda negated: {"not": negated}, inner),
        st.builds(lambda condition, then: {"if": condition, "then": then}, inner, inner),
        st.builds(lambda condition, other: {"if": condition, "else": other}, inner, inner),
    )


@lru_cache(maxsize=None)
def schema_nodes(draft: str):
    return st.recursive(
        leaves(draft),
        # Objects and lists (what turngate recurses into) three times and twice as often as
        # unions, logic and the keywords of each draft (and of the others), which it mostly
        # skips: one_of picks its branches evenly.
        lambda inner: st.one_of(object_nodes(inner, draft), object_nodes(inner, draft), object_nodes(inner, draft),
                                array_nodes(inner, draft), array_nodes(inner, draft),
                                union_nodes(inner), logic_nodes(inner), keyword_nodes(inner, draft)),
        max_leaves=5,
    )


ROOT_IDS = ["http://x.test/root.json", "http://x.test/dir/", "root.json"]


def id_keyword(draft: str) -> str:
    return "id" if draft in ("draft-03", "draft-04") else "$id"


@lru_cache(maxsize=None)
def bodies(draft: str):
    """What a schema's root is built from: a flat tool schema (arguments of typed leaves, now
    and then one object or list of them: where most bugs of kinds, enums and casts show), an
    object of any nodes, any node, or a keyword of one draft or another around either.
    Strategies are built once per draft: building them for every example costs more than
    drawing from them."""
    nodes, flat = schema_nodes(draft), leaves(draft)
    shallow = st.one_of(flat, flat, object_nodes(flat, draft), array_nodes(flat, draft), keyword_nodes(flat, draft))
    return st.one_of(object_nodes(shallow, draft), object_nodes(nodes, draft), nodes, keyword_nodes(shallow, draft))


@lru_cache(maxsize=None)
def definitions(draft: str):
    """What `$defs` (or `definitions`) holds: built once per draft, as hypothesis describes
    a strategy (a long text, for these) each time one is built."""
    return st.dictionaries(names, any_nodes(draft), max_size=2)


@lru_cache(maxsize=None)
def any_nodes(draft: str):
    """The nodes `$defs` hold: any node, or as often a leaf (two typed leaves of different
    types tell which one a reference landed on)."""
    return schema_nodes(draft) | leaves(draft)


@st.composite
def schemas(draw, draft: str) -> dict:
    """A tool's schema: mostly an object of properties, with `$defs` or `definitions`,
    references into itself, now and then a root `$id` and a resource of its own; `$schema`
    names the draft (with and without the trailing `#`), a URI of no draft, or is absent."""
    body = draw(bodies(draft))
    root = copy.deepcopy(body) if isinstance(body, dict) else {"properties": {"a": body}}
    defs = draw(definitions(draft))
    if defs:
        root[draw(st.sampled_from(["$defs", "definitions"]))] = copy.deepcopy(defs)
    if chance(draw, 1):  # both, each holding its own nodes (a pointer into the wrong one leads nowhere)
        other = "definitions" if "$defs" in root else "$defs"
        root[other] = copy.deepcopy(draw(definitions(draft)) or {"d": {}})
    if chance(draw, 1):
        draw(add_tree(root, draft, any_nodes))
    if chance(draw, 2):
        root[id_keyword(draft)] = draw(st.sampled_from(ROOT_IDS))
    # The resource first, so that the other references can lead into it and chain through it.
    if chance(draw, 3):
        draw(add_resource(root, draft, any_nodes))
    # References are added in place, and the nodes drawn may be values that sampled_from
    # shares between examples: hence the copies (of the body above, and of the whole here).
    root = copy.deepcopy(root)
    draw(add_references(root))
    if draft in DRAFT_URIS:
        return {"$schema": DRAFT_URIS[draft] + draw(st.sampled_from(["", "#"])), **root}
    return {"$schema": UNKNOWN_DRAFT_URI, **root} if draft == "unknown" else root


def node_count(schema: object) -> int:
    """Every JSON value in the schema, containers included: the measure of 'small'."""
    if isinstance(schema, dict):
        return 1 + sum(node_count(value) for value in schema.values())
    if isinstance(schema, list):
        return 1 + sum(node_count(value) for value in schema)
    return 1
