"""Compiling once: the compiled schema is immutable, reusable, shared safely between threads,
cached by content, and checking a value that fits builds nothing."""

from __future__ import annotations

import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import attrs
import pytest

import turngate
from turngate.kinds.verdict import PASSED

SCHEMA = {
    "type": "object",
    "properties": {
        "uid": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}},
        "fields": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
    },
    "required": ["uid"],
    "additionalProperties": False,
}


def test_a_compiled_schema_is_frozen():
    compiled = turngate.compile_schema(SCHEMA)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        compiled.root = None  # type: ignore[misc]


def test_compiling_does_not_keep_or_change_the_schema():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False}
    compiled = turngate.compile_schema(schema)
    schema["properties"]["a"]["type"] = "array"
    schema["additionalProperties"] = True
    assert [m.code for m in compiled.check({"a": [1], "b": 1}).mismatches] == ["kind", "additional"]


def test_a_compiled_schema_is_reused_for_many_checks():
    compiled = turngate.compile_schema(SCHEMA)
    first = compiled.check({"uid": [], "x": 1})
    for _ in range(3):
        assert compiled.check({"uid": 1}) is PASSED
        assert compiled.check({"uid": [], "x": 1}) == first


def test_one_compiled_schema_checked_from_16_threads_gives_the_same_verdicts():
    compiled = turngate.compile_schema(SCHEMA)
    inputs = [{"uid": i, "tags": ["a", "B", ["x"], "d"][: i % 5], "fields": {} if i % 3 else {"title": i}}
              for i in range(200)]
    alone = [compiled.check(value) for value in inputs]
    with ThreadPoolExecutor(16) as pool:
        for _ in range(5):
            assert list(pool.map(compiled.check, inputs)) == alone


def test_a_value_that_fits_is_answered_with_the_shared_verdict_and_builds_nothing():
    compiled = turngate.compile_schema(SCHEMA)
    small = {"uid": 1, "tags": ["a"], "fields": {"title": "x"}}
    large = {"uid": 1, "tags": ["a", "b", "c"] * 10_000, "fields": {"title": "x"}}
    peaks = []
    for value in (small, large):
        compiled.check(value)
        tracemalloc.start()
        verdict = compiled.check(value)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert verdict is PASSED
    # No per-element or per-node structure: the peak does not grow with the arguments.
    assert peaks[1] < 2048 and peaks[1] - peaks[0] < 512, peaks


def test_the_cache_compiles_a_schema_once_by_content():
    cache = turngate.SchemaCache(size=2)
    first = cache.compile(SCHEMA)
    assert cache.compile({**SCHEMA}) is first
    assert cache.compile(SCHEMA, "adr246") is first


def test_the_cache_drops_the_least_recently_used_past_its_size():
    cache = turngate.SchemaCache(size=2)
    a, b = cache.compile({"type": "string"}), cache.compile({"type": "integer"})
    assert cache.compile({"type": "string"}) is a
    cache.compile({"type": "boolean"})
    assert len(cache) == 2
    assert cache.compile({"type": "string"}) is a
    assert cache.compile({"type": "integer"}) is not b


def test_the_cache_keys_each_schema_by_its_exact_content():
    cache = turngate.SchemaCache()
    loop: dict = {"type": "object"}
    loop["properties"] = {"self": loop}
    assert cache.compile(loop).check({"self": {"self": "x"}}).mismatches[0].path == ("self", "self")
    assert cache.compile({"enum": [{1, 2}]}).check(3).ok
    # JSON text writes each pair alike (issue 20: a cache key tells 1, 1.0 and true apart)
    assert not cache.compile({"enum": [1, 2]}).check(3).ok and cache.compile({"enum": (1, 2)}).check(3).ok
    assert not cache.compile({"properties": {"1": {"type": "array"}}}).check({"1": {}}).ok
    assert cache.compile({"properties": {1: {"type": "array"}}}).check({"1": {}}).ok
    assert len({id(cache.compile({"enum": [one]})) for one in (1, 1.0, True)}) == 3

    class Unwritable:
        def __reduce__(self):
            raise TypeError("not for pickle")
    kept = len(cache)
    assert cache.compile({"x-host": Unwritable()}).check(1).ok and len(cache) == kept


@pytest.mark.parametrize("schema", [
    {1: "x", "type": "string"},
    {"properties": {1: {"type": "string"}, "a": {"type": "string"}}},
    {"required": [1, None, "a", "a"]},
    {"enum": [{1, 2}]},
    {"type": ["string"] * 1000},
    {"items": {"type": "string"}, "prefixItems": "nope"},
    {"properties": [], "additionalProperties": False},
    {"additionalProperties": False, "patternProperties": {"^x": {}}},
    {"type": "object", "nullable": "yes", "required": "a"},
])
def test_odd_schemas_compile_and_check_without_raising(schema):
    verdict = turngate.compile_schema(schema).check({"a": None, "x": [1]})
    assert verdict.ok or verdict.mismatches


def test_a_required_list_with_repeats_and_non_names_reports_each_name_once():
    verdict = turngate.compile_schema({"required": [1, None, "a", "a"]}).check({})
    assert [(m.code, m.path) for m in verdict.mismatches] == [("missing", ("a",))]
