"""The stack the engine uses is bounded, and its verdicts do not depend on how deep in its own
stack a host calls it (issue 20: a table the loader accepted hit a RecursionError compiling
`{"items": {"$ref": "#"}}`, and the shipped `extended` used most of the stack on it)."""

from __future__ import annotations

import sys

import pytest

import turngate
from turngate import Call, check_turn

TABLES = sorted(turngate.shipped_tables())
#: Schemas that recurse as deep as the table lets them, through each kind that compiles below.
RECURSIVE = {
    "items": {"items": {"$ref": "#"}},
    "typed items": {"type": "array", "items": {"$ref": "#"}},
    "properties": {"type": "object", "properties": {"a": {"$ref": "#"}}, "additionalProperties": {"$ref": "#"}},
    "union": {"anyOf": [{"type": "object", "properties": {"a": {"$ref": "#"}}}, {"type": "null"}]},
    "prefix": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array",
               "prefixItems": [{"$ref": "#"}]},
}
#: Python frames the engine may use at the deepest a table may be: about half the default limit.
MOST_FRAMES = 560


def nested(depth: int, leaf: object, key: str | None = None) -> object:
    value = leaf
    for _ in range(depth):
        value = {key: value} if key else [value]
    return value


def sent(name: str, leaf: object) -> object:
    return nested(70, leaf, "a" if name in ("properties", "union") else None)


def frames_used(work) -> int:
    """The most frames below the caller's that `work()` used (a count, not a time)."""
    def depth() -> int:
        frame, count = sys._getframe(1), 0
        while frame is not None:
            frame, count = frame.f_back, count + 1
        return count
    start, most = depth(), [0]

    def tracer(frame, event, arg) -> None:
        if event == "call":
            count, at = 0, frame
            while at is not None:
                at, count = at.f_back, count + 1
            most[0] = max(most[0], count)
    sys.setprofile(tracer)
    try:
        work()
    finally:
        sys.setprofile(None)
    return most[0] - start


@pytest.fixture(scope="module")
def deepest(tmp_path_factory):
    """Each shipped table at the deepest the loader accepts."""
    folder = tmp_path_factory.mktemp("deepest")
    tables = {}
    for name in TABLES:
        (folder / f"{name}.rules").write_text(f"table deep-{name} extends {name}\nlimit depth 64\n")
        tables[name] = turngate.load_table(folder / f"{name}.rules")
    return tables


def test_the_loader_refuses_a_depth_deeper_than_the_stack_allows(tmp_path):
    (tmp_path / "t.rules").write_text("table t extends extended\nlimit depth 128\n")
    with pytest.raises(turngate.TableError, match="from 1 to 64"):
        turngate.load_table(tmp_path / "t.rules")


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("name", RECURSIVE)
def test_compiling_checking_and_casting_use_at_most_about_half_the_stack(name, table, deepest):
    schema, chosen = RECURSIVE[name], deepest[table]
    compiled: list = []
    assert frames_used(lambda: compiled.append(turngate.compile_schema(schema, chosen, casts=True))) < MOST_FRAMES
    for leaf in ("x", "5", 5, [], {}):
        value = sent(name, leaf)
        assert frames_used(lambda: compiled[0].check(value)) < MOST_FRAMES
        assert frames_used(lambda: compiled[0].cast(value)) < MOST_FRAMES


def deep_in_the_stack(work, room: int = 25):
    """`work()` called with only `room` frames left before the recursion limit."""
    def down(levels: int):
        return work() if levels <= 0 else down(levels - 1)
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return down(sys.getrecursionlimit() - depth - room)


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("name", RECURSIVE)
def test_a_host_deep_in_its_own_stack_gets_the_verdicts_a_shallow_one_gets(name, table, deepest):
    schema, chosen = RECURSIVE[name], deepest[table]
    shallow = turngate.compile_schema(schema, chosen, casts=True)
    deep = deep_in_the_stack(lambda: turngate.compile_schema(schema, chosen, casts=True))
    for leaf in ("x", "5", 5, [], {}):
        value = sent(name, leaf)
        assert deep_in_the_stack(lambda: deep.check(value)) == shallow.check(value)
        assert deep_in_the_stack(lambda: shallow.cast(value)) == shallow.cast(value)
        turn = [Call("1", "t", value)]
        assert deep_in_the_stack(lambda: check_turn(turn, {"t": schema}, chosen)) == check_turn(turn, {"t": schema}, chosen)


@pytest.mark.parametrize("depth", [300, 900, 5000])
def test_arguments_text_nested_deep_is_decided_alike_from_any_depth(depth):
    text = "[" * depth + "]" * depth
    turn = [Call("1", "t", text)]
    shallow = check_turn(turn, {"t": {"type": "array"}})
    assert deep_in_the_stack(lambda: check_turn(turn, {"t": {"type": "array"}})) == shallow
    if depth != 900:  # 900: about where Python's own limit falls, decided alike all the same
        assert shallow.ok is (depth < 900)
