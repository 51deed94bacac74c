"""Bounded work from inputs under 100 KB, each family of slow input counted in work, never in
time: references to the root, long pointers, unions of many branches (checked and cast).
Each test also holds what the fast way must keep: the same verdicts, and no valid value
refused. The time of each family's slowest input is in `benchmarks/worst_case.py`."""

from __future__ import annotations

import json

import attrs
import jsonschema
import pytest
from referencing import Registry
from referencing.jsonschema import DRAFT4, DRAFT7, DRAFT201909, DRAFT202012

import turngate
from turngate.compile import drafts
from turngate.compile.casting import Caster
from turngate.compile.compiled_table import compiled_table
from turngate.compile.compiler import Compilation
from turngate.compile.refs import root_scope
from turngate.kinds.union import CAST_TRIES, Union

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
TABLES = sorted(turngate.shipped_tables())


def valid(schema, instance) -> bool:
    return jsonschema.validators.validator_for(schema)(schema).is_valid(instance)


def compiled_work(schema, table="extended") -> tuple[int, int]:
    """The nodes compiling a schema made and the references it followed, and how many
    objects and lists the schema holds."""
    compilation = Compilation(schema, compiled_table(turngate.load_table(table)))
    compilation.compile(root_scope(schema, compilation.draft))
    size = len(json.dumps(schema).replace("[", "{").split("{")) - 1
    return compilation.compiled, size


def as_json(value: object) -> object:
    return json.loads(json.dumps(value))


def nested(key: str, levels: int, leaf: object) -> object:
    value = leaf
    for _ in range(levels):
        value = {key: value}
    return value


# ── References ─────────────────────────────────────────────────────────────────────────

def test_many_refs_to_the_root_compile_each_node_once():
    for count in (100, 2000, 4000):
        schema = {"type": "object", "properties": {f"p{i}": {"$ref": "#"} for i in range(count)}}
        assert len(json.dumps(schema)) < 100_000
        work, size = compiled_work(schema)
        assert work <= 2 * size


def test_a_reference_cycle_is_judged_down_to_the_depth_limit_and_no_further():
    schema = {"type": "object", "properties": {"next": {"$ref": "#"}, "v": {"type": "integer"}}}
    compiled = turngate.compile_schema(schema, "extended")
    for levels, judged in ((0, True), (1, True), (60, True), (70, False), (5000, False)):
        verdict = compiled.check(nested("next", levels, {"v": []}))
        assert (not verdict.ok) is judged, levels
        if judged:
            assert verdict.mismatches[0].path == ("next",) * levels + ("v",)


def test_a_ref_to_a_target_also_reached_deeper_judges_it_from_the_shallowest_place():
    """A target compiled once serves every reference: from the root's own properties it is
    judged to its full depth, whichever reference was met first."""
    deep = {"type": "object", "properties": {"a": {"$ref": "#/$defs/t"}}}
    for _ in range(62):  # the first reference met sits at depth 64: its target's `x` below the limit
        deep = {"type": "object", "properties": {"a": deep}}
    schema = {"$defs": {"t": {"type": "object", "properties": {"x": {"type": "integer"}}}},
              "type": "object", "properties": {"deep": deep, "near": {"$ref": "#/$defs/t"}}}
    assert not turngate.compile_schema(schema, "extended").check({"near": {"x": []}}).ok


class CountingSpecification:
    """`maybe_in_subresource` of a draft, counting the segments it is handed to read."""

    def __init__(self):
        self.read = 0

    def draft(self, base):
        specification = base.specifications[0]
        inner = specification.maybe_in_subresource

        def counted(segments, resolver, subresource):
            self.read += len(segments)
            return inner(segments=segments, resolver=resolver, subresource=subresource)
        return attrs.evolve(base, specifications=(attrs.evolve(specification, maybe_in_subresource=counted),))


@pytest.mark.parametrize("ids_on_the_way", [False, True])
def test_long_pointers_are_walked_in_time_linear_in_their_length(monkeypatch, ids_on_the_way):
    levels = 600
    chain: object = {"type": "string"}
    for index in range(levels):
        chain = {"not": chain, **({"$id": f"n{index}"} if ids_on_the_way else {})}
    pointers = ["#/$defs/a/" + "/".join(["not"] * (levels - i)) for i in range(12)]
    schema = {"$schema": DRAFT_2020_12, "$id": "http://x.test/root", "$defs": {"a": chain},
              "properties": {f"p{i}": {"$ref": pointer} for i, pointer in enumerate(pointers)}}
    assert len(json.dumps(schema)) < 100_000
    counting = CountingSpecification()
    monkeypatch.setitem(drafts._BY_URI, DRAFT_2020_12, counting.draft(drafts.DRAFT_2020_12))
    compiled = turngate.compile_schema(schema, "extended")
    segments = sum(pointer.count("/") for pointer in pointers)
    assert counting.read <= 4 * segments
    # The whole pointer leads to the string; one `not` short, to a `not` the table skips.
    assert not compiled.check({"p0": []}).ok and compiled.check({"p1": []}).ok


DOCUMENTS = [
    {"$id": "http://x.test/r", "$defs": {"a": {"$id": "a", "$defs": {"b": {"type": "string"}},
                                               "properties": {"c": {"$id": "http://y.test/c", "items": {"type": "integer"}}}}}},
    {"$defs": {"a": {"id": "http://x.test/a", "definitions": {"b": {}}, "anyOf": [{"$id": "q", "not": {}}]}}},
    {"$id": "http://x.test/r", "properties": {"id": {"$id": "http://x.test/p", "properties": {"$id": {"type": "string"}}}},
     "items": [{"$id": "i0", "items": {"$id": "i1"}}], "dependencies": {"d": {"$id": "dep"}}},
]
POINTERS = ["#/$defs/a", "#/$defs/a/$defs/b", "#/$defs/a/properties/c", "#/$defs/a/properties/c/items",
            "#/$defs/a/anyOf/0", "#/$defs/a/anyOf/0/not", "#/properties/id", "#/properties/id/properties/$id",
            "#/items/0", "#/items/0/items", "#/dependencies/d", "#/$defs/a/definitions/b", "#/%24defs/a"]


@pytest.mark.parametrize("specification", [DRAFT4, DRAFT7, DRAFT201909, DRAFT202012], ids=lambda s: s.name)
@pytest.mark.parametrize("document", DOCUMENTS, ids=range(len(DOCUMENTS)))
def test_pointers_lead_where_referencing_leads_them(document, specification):
    """Contents and base URI, for every pointer that leads anywhere, as `referencing` has them."""
    draft = attrs.evolve(drafts.DRAFT_2020_12, specifications=(specification,))
    scope = root_scope(document, draft)
    resource = specification.create_resource(document)
    uri = resource.id() or ""
    try:
        theirs = Registry().with_resource(uri, resource).crawl().resolver(base_uri=uri)
    except Exception:  # `referencing` cannot crawl it (a list `items` in 2020-12): nothing resolves
        assert all(scope.lookup(pointer) is None for pointer in POINTERS)
        return
    for pointer in POINTERS:
        try:
            expected = theirs.lookup(pointer)
        except Exception:
            expected = None
        found = scope.lookup(pointer)
        if expected is None:
            continue  # `referencing` raises: skipped either way, or judged by what it leads to
        assert found is not None and found[0] is expected.contents, pointer
        assert found[1]._made()[0]._base_uri == expected.resolver._base_uri, pointer


# ── Unions ─────────────────────────────────────────────────────────────────────────────

class CountedBranches(tuple):
    """A union's branches, counting each one looked at."""

    looked_at = 0

    def __iter__(self):
        for branch in super().__iter__():
            CountedBranches.looked_at += 1
            yield branch

    def __getitem__(self, index):
        CountedBranches.looked_at += 1
        return super().__getitem__(index)


def unions_of(compiled) -> list[Union]:
    node = compiled.root
    found = []
    while node is not None:
        rules = [rule for rule, _ in node.entries]
        found += [union for rule in rules for union in getattr(rule, "unions", ())]
        node = next((rule.rest for rule in rules if hasattr(rule, "rest")), None)
    return found


def counted(compiled) -> None:
    for union in unions_of(compiled):
        object.__setattr__(union, "branches", CountedBranches(union.branches))
    CountedBranches.looked_at = 0


@pytest.mark.parametrize("keyword", ["anyOf", "oneOf"])
def test_a_union_checks_a_value_without_looking_at_each_branch(keyword):
    types = ["integer", "string", "boolean", "null", "array", "object", "number"]
    schema = {"type": "array", "items": {keyword: [{"type": types[i % 7]} for i in range(1800)]}}
    assert len(json.dumps(schema)) < 100_000
    compiled = turngate.compile_schema(schema, "extended")
    counted(compiled)
    values = [index for index in range(2000)] + ["x", None, True, [], {}]
    assert compiled.check(values).ok
    assert CountedBranches.looked_at == 0


def test_a_union_judges_a_value_by_the_one_branch_made_for_its_kind():
    schema = {"type": "array", "items": {"anyOf": [{"type": "integer"}] * 900 + [
        {"type": "object", "properties": {"a": {"type": "integer"}}}]}}
    compiled = turngate.compile_schema(schema, "extended")
    counted(compiled)
    verdict = compiled.check([1, {"a": []}, 2.5, {"a": 1}])
    assert [m.path for m in verdict.mismatches] == [(1, "a")]
    assert CountedBranches.looked_at == 0


@pytest.mark.parametrize("keyword", ["anyOf", "oneOf"])
@pytest.mark.parametrize("branches", [[{"type": "integer"}] * 500,
                                      [{"type": "boolean", "enum": [True]}] * 499 + [{"type": "integer"}]])
def test_a_cast_through_a_union_tries_a_bounded_number_of_branches(monkeypatch, keyword, branches):
    schema = {"type": "array", "items": {keyword: branches}}
    compiled = turngate.compile_schema(schema, "extended", casts=True)
    probes = []
    probe = Caster.probe
    monkeypatch.setattr(Caster, "probe", lambda self: probes.append(1) or probe(self))
    sent = ["5"] * 2000
    result = compiled.cast(sent)
    assert len(probes) <= 2 * CAST_TRIES * len(sent)  # a try, and the branch's own probe
    assert set(map(repr, result.arguments)) <= {"'5'", "5"}
    assert "5" in result.arguments or valid(schema, [5])  # cast only to a value the schema holds


@pytest.mark.parametrize("casts", [False, True])
def test_a_union_compiles_only_the_branches_a_value_can_be_judged_or_cast_by(casts):
    schema = as_json({"type": "array", "items": {"oneOf": [{"type": "integer", "enum": [i]} for i in range(2700)]
                                                 + [{"type": "object", "properties": {"a": {"type": "integer"}}}]}})
    compilation = Compilation(schema, compiled_table(turngate.load_table("extended")), for_casts=casts)
    root = compilation.compile(root_scope(schema, compilation.draft))
    assert compilation.compiled <= 20
    compiled = turngate.compile_schema(schema, "extended", casts=casts)
    assert [m.path for m in compiled.check([1, {"a": []}, "x"]).mismatches] == [(1, "a")]
    assert root is not None


def test_a_cast_through_a_small_one_of_is_still_made():
    schema = {"type": "object", "properties": {"n": {"oneOf": [{"type": "boolean"}, {"type": "integer"}]}}}
    result = turngate.compile_schema(schema, "extended", casts=True).cast({"n": "5"})
    assert result.arguments == {"n": 5} and result.changed == (("n",),)


# ── Discriminated unions ───────────────────────────────────────────────────────────────

def pet(kind: str, const: bool, **properties) -> dict:
    fixed = {"const": kind} if const else {"enum": [kind]}
    return {"type": "object", "properties": {"kind": {"type": "string", **fixed}, **properties},
            "required": ["kind"]}


def pets(draft: str | None, const: bool, keyword: str = "oneOf") -> dict:
    schema = {"$defs": {"Cat": pet("cat", const, lives={"type": "integer"}),
                        "Dog": pet("dog", const, barks={"type": "boolean"}),
                        "Eel": pet("eel", const, volts={"type": "number"})},
              "type": "object", "properties": {"pet": {keyword: [{"$ref": f"#/$defs/{name}"}
                                                              for name in ("Cat", "Dog", "Eel")]}}}
    return {"$schema": draft, **schema} if draft else schema


@pytest.mark.parametrize("const", [True, False])
@pytest.mark.parametrize("keyword", ["anyOf", "oneOf"])
def test_a_discriminated_union_judges_an_object_by_the_branch_its_constant_names(const, keyword):
    schema = pets(DRAFT_2020_12, const, keyword)
    compiled = turngate.compile_schema(schema, "extended")
    refused = compiled.check({"pet": {"kind": "dog", "barks": []}})
    assert not valid(schema, {"pet": {"kind": "dog", "barks": []}})
    assert [m.path for m in refused.mismatches] == [("pet", "barks")]
    for sent in ({"kind": "dog", "barks": True}, {"kind": "cat", "lives": 9}, {"kind": "eel", "volts": 1.5}):
        assert valid(schema, {"pet": sent}) and compiled.check({"pet": sent}).ok


@pytest.mark.parametrize("draft", ["http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-07/schema#",
                                   DRAFT_2020_12, None])
@pytest.mark.parametrize("const", [True, False])
def test_a_discriminated_union_never_refuses_a_valid_object(draft, const):
    schema = pets(draft, const)
    sent_values = [{"kind": kind, field: value} for kind in ("cat", "dog", "eel", "cow", "Dog", 1)
                   for field in ("lives", "barks", "volts", "x") for value in (1, True, 2.5, [], "3")]
    for table in TABLES:
        compiled = turngate.compile_schema(schema, table)
        for sent in sent_values:
            if valid(schema, {"pet": sent}):
                assert compiled.check({"pet": sent}).ok, (table, sent)


# ── Casts ──────────────────────────────────────────────────────────────────────────────

def test_compiling_for_casts_makes_each_nodes_exact_judge_once(monkeypatch):
    """A judge is made per schema node, however often compiling meets it: a Python object
    that contains itself is compiled once per depth, and shares one judge (so python-jsonschema's
    validator of it, and the walk that says it may judge it, are made once)."""
    schema: object = {"type": "integer"}
    for _ in range(60):
        schema = {"type": "object", "properties": {**{f"q{j}": {"type": "integer"} for j in range(30)}, "a": schema}}
    looped: dict = {"type": "object", "minProperties": 1, "properties": {}}
    looped["properties"]["a"] = looped
    from turngate.compile import exact
    made = []
    make = exact._exact_judge
    monkeypatch.setattr(exact, "_exact_judge", lambda *args: made.append(1) or make(*args))
    compiled = turngate.compile_schema(schema, "extended", casts=True)
    _, size = compiled_work(schema)
    assert len(made) <= size
    assert compiled.cast(nested("a", 60, "5")).arguments == nested("a", 60, 5)
    made.clear()
    turngate.compile_schema(looped, "extended", casts=True)
    assert len(made) == 1


def size_of(value: object) -> int:
    """The values a value holds, itself included: what python-jsonschema walks to judge it."""
    if type(value) is dict:
        return 1 + sum(size_of(each) for each in value.values())
    if type(value) is list:
        return 1 + sum(size_of(each) for each in value)
    return 1


@pytest.fixture
def judged(monkeypatch) -> list:
    """The size of each value python-jsonschema is asked about, as a cast asks."""
    from turngate.compile import exact
    sizes: list = []
    judge = exact._judged
    monkeypatch.setattr(exact, "_judged", lambda made, value: sizes.append(size_of(value)) or judge(made, value))
    return sizes


def test_a_cast_60_levels_deep_asks_python_jsonschema_about_each_value_a_bounded_number_of_times(judged):
    """A cast asks the node at each level whether the value there is valid as sent; a list or
    object of its declared type is judged member by member instead, so what lies at the
    bottom is not judged again at every level above it."""
    schema: object = {"type": "integer"}
    sent: object = "5"
    for _ in range(60):
        schema = {"type": "object", "minProperties": 1,
                  "properties": {"big": {"type": "array", "maxItems": 100, "items": {"type": "integer"}},
                                 "a": schema}}
        sent = {"big": list(range(50)), "a": sent}
    result = turngate.compile_schema(schema, "extended", casts=True).cast(sent)
    assert result.changed == (("a",) * 60,)
    assert sum(judged) <= 2 * size_of(sent)


@pytest.mark.parametrize("keyword", ["anyOf", "oneOf"])
def test_a_cast_asks_each_judge_about_each_list_or_object_once(judged, keyword):
    """A union's branch judges the value it cast, and is then asked whether it holds it: the
    verdict kept for the cast's length answers the second time."""
    numbers = list(range(500))
    schema = {"type": "object", "properties": {"a": {keyword: [
        {"type": "array", "maxItems": 1000, "items": {"type": "integer", "minimum": 0}}, {"type": "null"}]}}}
    result = turngate.compile_schema(schema, "extended", casts=True).cast({"a": json.dumps(numbers)})
    assert result.arguments == {"a": numbers} and result.changed == (("a",),)
    assert sum(judged) <= 2 * size_of(numbers) + 2  # the text as sent, each number, then the list once


def test_a_cast_whose_judging_would_cost_more_than_its_budget_is_not_made(monkeypatch):
    """Each keyword check python-jsonschema makes for a cast spends a unit of the cast's budget:
    past it, no cast is made at all (the arguments are handed on as sent, the root listed as
    not cast), however the checks are spread over the value."""
    from turngate.compile import budget
    monkeypatch.setattr(budget, "CAST_UNITS", 100)
    schema = {"type": "object", "properties": {
        "big": {"type": "array", "items": {"type": "integer", "minimum": 0}}, "x": {"type": "integer"}}}
    compiled = turngate.compile_schema(schema, "extended", casts=True)
    within = {"big": list(range(10)), "x": "5"}
    assert compiled.cast(within).arguments == {"big": list(range(10)), "x": 5}
    beyond = {"big": list(range(200)), "x": "5"}
    result = compiled.cast(beyond)
    assert result.arguments is beyond and beyond["x"] == "5"
    assert result.changed == () and result.not_cast == ((),)
