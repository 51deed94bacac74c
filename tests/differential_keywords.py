"""Keywords for the differential test's schemas beyond the first round's: draft-03's own
(`extends`, `disallow`, `divisibleBy`, `type` with schemas inside, `dependencies` as a name,
`required: true` on a property), the applicators and assertions of later drafts (`if`/`then`/
`else`, `dependencies`, `dependentRequired`, `dependentSchemas`, `unevaluatedProperties`,
`unevaluatedItems`, `contains` with `minContains`/`maxContains`, `propertyNames`, `const`,
`multipleOf` with fractions), and recursive resources (`$dynamicRef`/`$dynamicAnchor`,
`$recursiveRef`/`$recursiveAnchor`) with relative `$id`s.

Each family is made under every draft: three times as often under the drafts that define it as
under those that do not, where it must mean nothing (`anyOf` under draft-03, `prefixItems`
under draft-07, `const` under draft-04). python-jsonschema judges every one of them as the
schema's draft reads it."""

from __future__ import annotations

import copy

from hypothesis import strategies as st

from differential_refs import chance, picked

DRAFT_03_URI = "http://json-schema.org/draft-03/schema"
LATER = ("2019-09", "2020-12", "none", "unknown")  # jsonschema reads the last two as 2020-12
FROM_06 = ("draft-06", "draft-07", *LATER)
#: The drafts that define each family (the keywords of jsonschema's validator of each draft).
DEFINED_IN: dict[str, tuple[str, ...]] = {
    "draft-03": ("draft-03",),
    "const": FROM_06,
    "contains": FROM_06,
    "property-names": FROM_06,
    "if": ("draft-07", *LATER),
    "dependencies": ("draft-03", "draft-04", "draft-06", "draft-07"),
    "dependent": LATER,
    "unevaluated": LATER,
    "multiple-of": ("draft-04", *FROM_06),
    "recursive-ref": ("2019-09",),
    "dynamic-ref": ("2020-12", "none", "unknown"),
}

PROPERTY_NAMES = ["a", "b", "c"]
TYPE_NAMES = ["string", "integer", "number", "boolean", "array", "object", "null"]
#: Divisors a float division gets wrong now and then (0.1 and 0.3, 0.01 and 0.07), and
#: ones it gets right (0.5, 0.25, 1.5), beside whole ones.
DIVISORS = [2, 3, 0.5, 0.25, 1.5, 0.1, 0.01, 1e-8, 0.0001]
#: Members of `const` and `enum` whose kind or spelling a loose comparison confuses, and
#: numbers of every size (one of more than 4,300 digits, which Python writes only in parts).
HUGE = 10 ** 4400 + 7
ODD_MEMBERS = [0, -0.0, 0.0, False, 1, 1.0, True, "1", "true", 5, 5.0, "5", 1e308, 2 ** 53 + 1, HUGE, -HUGE,
               "Straße", "STRASSE", "strasse", "ǅ", "ǆ", "İ", "i", None, "", [], {}, [1], {"a": 1}]
odd_members = picked(ODD_MEMBERS)
type_names = st.sampled_from(TYPE_NAMES)


def defined(family: str, draft: str) -> bool:
    return draft in DEFINED_IN[family]


@st.composite
def whole(draw, strategy) -> object:
    """A strategy that one_of takes as one branch: hypothesis flattens a one_of inside a
    one_of (mapped or not) into its branches, which would weigh a family by its number of
    forms."""
    return draw(strategy)


def keyword_nodes(inner, draft: str):
    """A node built around one family, the draft's own families three times as often."""
    families = {"draft-03": draft_03_nodes(inner), "const": const_nodes(), "contains": contains_nodes(inner),
                "property-names": property_names_nodes(inner), "if": conditional_nodes(inner),
                "dependencies": dependencies_nodes(inner), "dependent": dependent_nodes(inner),
                "unevaluated": unevaluated_nodes(inner), "multiple-of": multiple_of_nodes(),
                "recursive-ref": st.builds(recursive_resource, inner, st.just("2019-09")),
                "dynamic-ref": st.builds(recursive_resource, inner, st.just("2020-12"))}
    weighted = [whole(strategy) for family, strategy in families.items()
                for _ in range(3 if defined(family, draft) else 1)]
    return whole(st.one_of(weighted))


def draft_03_nodes(inner):
    """draft-03's own keywords: `type` with schemas inside (or "any"), `disallow`, `extends`,
    `divisibleBy`, `dependencies` naming one property."""
    return st.one_of(
        st.builds(lambda name, schema: {"type": [name, schema]}, type_names, inner),
        st.builds(lambda schemas: {"type": schemas}, st.lists(inner, min_size=1, max_size=2)),
        st.sampled_from([{"type": "any"}, {"type": ["any", "null"]}]),
        st.builds(lambda banned: {"disallow": banned},
                  type_names | st.lists(type_names, min_size=1, max_size=2) | st.builds(lambda t, s: [t, s],
                                                                                        type_names, inner)),
        st.builds(lambda base, typed: {"extends": base, **typed}, inner | st.lists(inner, min_size=1, max_size=2),
                  st.sampled_from([{}, {"type": "object"}, {"type": "integer"}])),
        st.builds(lambda kind, divisor: {"type": kind, "divisibleBy": divisor},
                  st.sampled_from(["integer", "number"]), st.sampled_from(DIVISORS)),
        st.builds(lambda properties, needs: {"properties": properties, "dependencies": {"a": needs}},
                  st.dictionaries(st.sampled_from(PROPERTY_NAMES), inner, max_size=2),
                  st.sampled_from(["b", "c", ["b"], ["b", "c"], []]) | inner),
    )


def draft_03_extras():
    """draft-03 keywords to add to a typed leaf (beside its `type`, or in its place)."""
    plain = st.builds(lambda name: {"type": name}, type_names)
    return st.one_of(
        st.builds(lambda banned: {"disallow": banned}, type_names | st.lists(type_names | plain, min_size=1,
                                                                           max_size=2)),
        st.builds(lambda base: {"extends": base}, plain | st.lists(plain, min_size=1, max_size=2)),
        st.builds(lambda divisor: {"divisibleBy": divisor}, st.sampled_from(DIVISORS)),
        st.builds(lambda name, schema: {"type": [name, schema]}, type_names, plain),
    )


def const_nodes():
    return st.one_of(
        st.builds(lambda value: {"const": value}, odd_members),
        st.builds(lambda kind, value: {"type": kind, "const": value}, type_names, odd_members),
        st.builds(lambda kind, members: {"type": kind, "enum": members}, type_names,
                  st.lists(odd_members, min_size=1, max_size=3)),
    )


def contains_nodes(inner):
    counts = st.one_of(st.just({}), st.fixed_dictionaries({"minContains": st.integers(0, 2)}),
                       st.fixed_dictionaries({"maxContains": st.integers(0, 2)}),
                       st.fixed_dictionaries({"minContains": st.integers(0, 1), "maxContains": st.integers(1, 2)}))
    return st.builds(lambda contained, bounds, items: {"contains": contained, **bounds, **items},
                     inner | st.sampled_from([{"type": "integer"}, {"const": 1}, True, False]), counts,
                     st.sampled_from([{}, {"type": "array"}, {"items": {"type": "integer"}}]))


def property_names_nodes(inner):
    names = st.sampled_from([{"maxLength": 1}, {"pattern": "^[a-c]"}, {"enum": ["a", "b"]}, {"const": "a"}, False,
                             True, {"type": "string"}, {"format": "email"}, {"minLength": 2}]) | inner
    return st.builds(lambda rule, rest: {"propertyNames": rule, **rest}, names,
                     st.sampled_from([{}, {"type": "object"}, {"additionalProperties": False}]))


def conditional_nodes(inner):
    """`if` with `then` and `else`, the condition now and then on a property's value, so that
    both ways are taken."""
    conditions = inner | st.sampled_from([
        {"properties": {"a": {"const": 1}}, "required": ["a"]}, {"type": "string"}, {"type": "integer"},
        {"properties": {"a": {"type": "string"}}}, True, False])
    branch = inner | st.sampled_from([{"required": ["b"]}, {"properties": {"b": {"type": "integer"}}},
                                      {"type": "object", "additionalProperties": False}])
    return st.builds(lambda condition, then, other, which: {"if": condition, **which(then, other)}, conditions,
                     branch, branch, st.sampled_from([lambda t, e: {"then": t, "else": e}, lambda t, e: {"then": t},
                                                      lambda t, e: {"else": e}, lambda t, e: {}]))


def dependencies_nodes(inner):
    return st.builds(lambda properties, needs: {"properties": properties, "dependencies": needs},
                     st.dictionaries(st.sampled_from(PROPERTY_NAMES), inner, max_size=2),
                     st.dictionaries(st.sampled_from(PROPERTY_NAMES),
                                     st.lists(st.sampled_from(PROPERTY_NAMES), max_size=2, unique=True) | inner,
                                     min_size=1, max_size=2))


def dependent_nodes(inner):
    return st.one_of(
        st.builds(lambda needs: {"dependentRequired": needs},
                  st.dictionaries(st.sampled_from(PROPERTY_NAMES),
                                  st.lists(st.sampled_from(PROPERTY_NAMES), max_size=2, unique=True),
                                  min_size=1, max_size=2)),
        st.builds(lambda needs, properties: {"dependentSchemas": needs, "properties": properties},
                  st.dictionaries(st.sampled_from(PROPERTY_NAMES), inner, min_size=1, max_size=2),
                  st.dictionaries(st.sampled_from(PROPERTY_NAMES), inner, max_size=2)),
    )


def unevaluated_nodes(inner):
    """`unevaluatedProperties` and `unevaluatedItems` beside what evaluates: properties, an
    `allOf`, an `if`, prefixItems or a list `items`."""
    rest = st.just(False) | inner
    objects = st.builds(lambda properties, beside, left: {"properties": properties, **beside,
                                                          "unevaluatedProperties": left},
                        st.dictionaries(st.sampled_from(PROPERTY_NAMES), inner, max_size=2),
                        st.sampled_from([{}, {"allOf": [{"properties": {"b": True}}]},
                                         {"if": {"required": ["a"]}, "then": {"properties": {"c": True}}},
                                         {"patternProperties": {"^x": True}}, {"additionalProperties": True}]), rest)
    arrays = st.builds(lambda positions, form, left: {form: positions, "unevaluatedItems": left},
                       st.lists(inner, min_size=1, max_size=2), st.sampled_from(["prefixItems", "items"]), rest)
    return objects | arrays


def multiple_of_nodes():
    return st.builds(lambda kind, divisor, bound: {"type": kind, "multipleOf": divisor, **bound},
                     st.sampled_from(["integer", "number", ["integer", "string"]]), st.sampled_from(DIVISORS),
                     st.sampled_from([{}, {"minimum": 0}, {"maximum": 10}]))


def recursive_resource(leaf: object, form: str) -> dict:
    """A tree of its own resource (a relative `$id`): each node a value and a list of nodes
    like itself, reached by `$recursiveRef` (2019-09) or `$dynamicRef` (2020-12), and the
    `$defs` of an extension that tightens the tree; under other drafts, what they make of it."""
    if form == "2019-09":
        anchor, reference = {"$recursiveAnchor": True}, {"$recursiveRef": "#"}
    else:
        anchor, reference = {"$dynamicAnchor": "node"}, {"$dynamicRef": "#node"}
    return {"$id": "tree.json", **anchor, "type": "object",
            "properties": {"v": leaf, "kids": {"type": "array", "items": reference}}}


def extended_tree(leaf: object, form: str) -> dict:
    """An extension of the tree above that forbids other keys: under the draft of its form,
    the tree's recursive reference lands on the extension (so a child with an extra key is
    invalid); elsewhere, on the tree."""
    tree = recursive_resource(leaf, form)
    anchor = {"$recursiveAnchor": True} if form == "2019-09" else {"$dynamicAnchor": "node"}
    return {"$id": "strict-tree.json", **anchor, "$ref": "tree.json", "unevaluatedProperties": False,
            "$defs": {"tree": tree}}


@st.composite
def add_tree(draw, root: dict, draft: str, nodes_of) -> None:
    """A recursive resource as a property: the tree of `$recursiveRef` or `$dynamicRef`
    (mostly the draft's own form), or its stricter extension."""
    own = "2019-09" if draft == "2019-09" else "2020-12"
    form = own if chance(draw, 7) else draw(st.sampled_from(["2019-09", "2020-12"]))
    make = draw(st.sampled_from([recursive_resource, recursive_resource, extended_tree]))
    properties = root.setdefault("properties", {})
    if isinstance(properties, dict):
        properties["t"] = make(copy.deepcopy(draw(nodes_of(draft))), form)


@st.composite
def required_flags(draw, properties: dict, draft: str) -> dict:
    """draft-03 marks a required property with `"required": true` on its schema: made under
    draft-03, and now and then under the drafts where it means nothing (or, a list being
    read by draft-04 on, where jsonschema cannot read it and the case is unknown)."""
    if not properties or not chance(draw, 6 if draft == "draft-03" else 1):
        return properties
    flagged = {}
    for name, schema in properties.items():
        if isinstance(schema, dict) and chance(draw, 5):
            schema = {**schema, "required": draw(st.sampled_from([True, True, False, "yes", 1]))}
        flagged[name] = schema
    return flagged
