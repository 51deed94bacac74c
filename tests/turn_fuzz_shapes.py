"""Whole turns for the turn fuzzer, in every format: the tools offered and the model's turn
in the shapes of OpenAI Chat Completions, OpenAI Responses, Anthropic Messages and MCP
(`tools/list` result and `tools/call` params or JSON-RPC requests), and as a host hands a
turn to `check_turn` directly (a mapping of name to schema, calls as mappings).

What is aimed at: odd call ids (1 and true, 0 and false, null, huge integers, floats, lists,
objects, the same id twice, none), odd names (unicode, control characters, U+2028, empty,
"tools", very long, not text), odd roles and types, arguments as objects, as JSON text (with
NaN or Infinity, huge numbers, nested deep, cut off, blank), absent or lists, and numbers
of any size wherever a value sits. Each case knows what it put where (`FuzzCall`) and
whether its shape is the format's (`well_formed`): the oracle reads it from there."""

from __future__ import annotations

import copy
import enum
from typing import NamedTuple

from hypothesis import strategies as st

from differential_instances import instances_for
from differential_json import dumps, shown
from differential_keywords import HUGE
from differential_refs import chance, picked

FORMAT_NAMES = ("direct", "openai", "responses", "anthropic", "mcp")
class Missing(enum.Enum):
    """A member left out of the shape: compared by identity, which pickling keeps."""

    MISSING = "<missing>"


MISSING = Missing.MISSING
DRAFT_03 = "http://json-schema.org/draft-03/schema#"

#: Tool schemas: what hosts offer (pydantic's shapes, enums, nested lists, no schema at
#: all), what the issue's classes came from (draft-03 unions and `required: true`, a
#: union cast by `extended`, a list where a schema belongs) and numbers of any size.
SCHEMAS = [
    None,
    {},
    {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    {"type": "object", "properties": {"n": {"type": "number"}, "s": {"type": "string"}},
     "additionalProperties": False},
    {"type": "object", "properties": {"mode": {"enum": ["draft", "final", 1, True]}}, "required": ["mode"]},
    {"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "integer"}}}},
    {"type": "object", "properties": {"x": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}},
    {"$schema": DRAFT_03, "properties": {"n": {"type": "integer", "required": True}}},
    {"$schema": DRAFT_03, "anyOf": [{"type": "integer"}], "properties": {"n": {"oneOf": [{"type": "integer"}]}}},
    {"type": "object", "properties": {"big": {"const": HUGE}, "zero": {"enum": [0, -0.0]}}},
    {"type": "object", "properties": {"flag": {"type": "boolean"}, "when": {"type": "string", "format": "date"}},
     "required": ["flag"], "additionalProperties": False},
    {"type": "object", "additionalProperties": False},
    [{"type": "object"}],
    True,
    # Members equal in Python but not in JSON: each must be worded as its own schema writes it.
    {"type": "object", "properties": {"level": {"enum": [1, 2]}}, "required": ["level"]},
    {"type": "object", "properties": {"level": {"enum": [True, 2]}}, "required": ["level"]},
    {"type": "object", "properties": {"level": {"enum": [1.0, 2]}}, "required": ["level"]},
    {"type": "object", "properties": {"level": {"enum": [0, -0.0, False]}}, "required": ["level"]},
]
schemas = picked(SCHEMAS)

#: Names: plain ones, and ones a line, a terminal or a reader could trip on.
PLAIN_NAMES = ["get_page", "search", "update_page_metadata", "run"]
ODD_NAMES = ["tools", "", "caf\u00e9", "\u540d\u524d", "a\nb", "a\u2028b", "\x1b[31mred", "x" * 300, "get_pag",
             "GET_PAGE", " get_page", "\ud800", "a\tb", "\u202eevil", "Refused: nothing", '"q"', "name\\"]
NOT_TEXT = [1, 0, True, False, None, HUGE, 1.5, -0.0, ["get_page"], {"name": "get_page"}]
odd_names = picked(ODD_NAMES)

#: Call ids: texts, and every other JSON value, ones a loose comparison confuses (1 and
#: true, 0 and false, 1 and 1.0) and numbers of any size.
TEXT_IDS = ["call_1", "call_2", "toolu_01A", "fc_1", "1", "true", "", "\n", "id\u2028x", "x" * 200, "\ud800"]
OTHER_IDS = [1, True, 0, False, None, 1.0, 2, HUGE, -HUGE, 10 ** 4300, 1.5, 1e308, -0.0, [1], [True], {"a": 1},
             {"a": True}, [], {}]
text_ids = picked(TEXT_IDS)
other_ids = picked(OTHER_IDS)

#: Arguments as JSON text a model may write: not JSON (NaN, Infinity), numbers no float
#: holds, nested deep, cut off, blank, not an object, with a lone surrogate escaped.
ODD_TEXTS = ['{"n": NaN}', '{"n": Infinity}', '{"n": -Infinity}', "[NaN]", '{"n": 1e400}', '{"n": -1e400}',
             '{"n": 1e-400}', '{"n": ' + "9" * 5000 + "}", '{"n": -' + "1" * 4400 + ".5}", '{"n": -0}',
             '{"n": -0.0}', '{"n": 5.0}', '{"n": 1E+2}', '{"n": "5"}', '{"n": " 5"}', "[" * 5000 + "]" * 5000,
             '{"a":' * 600 + "1" + "}" * 600, "", "   ", "\n", "null", "5", '"text"', "[]", "[1, 2]",
             '{"n": 1', '{"n": ', '{"n": "ab', "{", '{} x', '{"n": 1, "n": 2}', '{"s": "\\ud800"}',
             '\ufeff{"n": 1}', '{"mode": "DRAFT"}', '{"mode": "Draft"}', '{"mode": 1.0}', '{"mode": "true"}',
             '{"flag": 1}', '{"flag": "true"}', '{"ids": "[1, 2]"}', '{"ids": [1, "2", 3.0]}', '{"level": 3}',
             '{"level": "1"}', '{"level": true}']
odd_texts = picked(ODD_TEXTS)
#: Values of any kind, as an argument's value or a whole arguments value.
ODD_VALUES = [HUGE, -HUGE, 10 ** 4300, 1e308, -0.0, 5.0, 2 ** 64, 0.1, True, 1, "5", "NaN", None, [], {}, [HUGE],
              {"n": HUGE}, {"n": -0.0}, {"n": "5"}, {"n": 5.0}, {"ids": [1, 2.0, "3"]}, {"mode": "DRAFT"},
              {"mode": True}, {"flag": 0}, {"s": "\ud800"}, {"": 1}, {"a\nb": 1}, {"level": 3}, {"level": "x"}]
odd_values = picked(ODD_VALUES)
#: Values no JSON text holds, which a Python host may still hand over: only "nothing
#: raises" is held for them.
NOT_JSON = [float("nan"), float("inf"), (1, 2), {1: "a"}, {HUGE: 1}, {(1, 2): 3}, {"n": float("nan")}, b"{}",
            {"n": {1, 2}}]
not_json = picked(NOT_JSON)

ROLES = ["user", "tool", "system", "Assistant", "", None, 5, HUGE, ["assistant"], "assistant\n"]
TYPES = ["custom", "Function", "", None, 1, HUGE, "function\n", "\x1b[2J", "a\u2028b", ["function"]]


class FuzzCall(NamedTuple):
    """A call as the case put it in the turn: its id (None for an MCP call given as bare
    params, which is known by its place), its name and its arguments (MISSING: left out)."""

    id: object
    name: object
    arguments: object


class TurnCase(NamedTuple):
    format: str
    tools: object  # the tools offered, in the format's shape
    schemas: dict  # tool name -> schema, as offered (only where the tools are well formed)
    turn: object  # the model's turn, in the format's shape
    calls: tuple  # FuzzCall per call, in the order of the turn
    well_formed: bool  # the shape is the format's: reading it may not raise
    table: str
    casts: bool

    def __repr__(self) -> str:  # hypothesis writes a failing case out; Python cannot write huge integers at once
        fields = ", ".join(f"{name}={shown(value)}" for name, value in zip(self._fields, self))
        return f"TurnCase({fields})"

    def file(self) -> dict:
        """The turn as `turngate check-turn` reads it from a file."""
        return {"tools": self.tools, TURN_KEYS[self.format]: self.turn}


TURN_KEYS = {"openai": "message", "responses": "output", "anthropic": "message", "mcp": "calls", "direct": "calls"}


class Shape:
    """Draws one case: `well_formed` turns false where a draw strays from the format."""

    def __init__(self, draw, format_name: str):
        self.draw, self.format, self.well_formed = draw, format_name, True

    def stray(self, tenths: int) -> bool:
        strayed = chance(self.draw, tenths)
        self.well_formed &= not strayed
        return strayed

    def tool_names(self) -> list:
        count = self.draw(st.integers(1, 3))
        names = self.draw(st.lists(st.sampled_from(PLAIN_NAMES) | odd_names, min_size=count, max_size=count,
                                   unique_by=lambda name: name))
        if self.format != "direct" and self.stray(1):
            names[-1] = self.draw(picked(NOT_TEXT) | st.sampled_from(names))  # not text, or offered twice
        return names

    def call_name(self, offered: list) -> object:
        """Mostly a tool offered; else another name, now and then not text (which only a
        host's own mapping may hand over: in a format's shape it is not the format's)."""
        texts = [name for name in offered if isinstance(name, str)]
        if texts and not chance(self.draw, 3):
            return self.draw(st.sampled_from(texts))
        if (self.format == "direct" and chance(self.draw, 2)) or (self.format != "direct" and self.stray(1)):
            return self.draw(picked(NOT_TEXT))
        return self.draw(st.sampled_from(PLAIN_NAMES) | odd_names)

    def call_id(self, index: int) -> object:
        if self.format in ("direct", "mcp"):  # check_turn and a JSON-RPC request take any id
            return self.draw(text_ids | other_ids | st.just(f"call_{index}") | st.just(MISSING))
        if self.stray(1):
            return self.draw(other_ids | st.just(MISSING))
        return self.draw(text_ids | st.just(f"call_{index}") | st.just(f"call_{index}"))

    def arguments(self, schema: object) -> object:
        kind = self.draw(st.sampled_from(["text", "text", "text", "value", "odd", "odd", "missing", "not-json"]))
        aimed = self.draw(instances_for(schema)) if isinstance(schema, dict) else self.draw(odd_values)
        if kind == "text":
            return dumps(aimed) if isinstance(aimed, (dict, list)) or chance(self.draw, 5) else self.draw(odd_texts)
        if kind == "value":
            return copy.deepcopy(aimed)
        if kind == "odd":
            return self.draw(odd_texts | odd_values)
        if kind == "not-json":
            return self.draw(not_json)
        return MISSING


@st.composite
def turn_cases(draw, tables: tuple[str, ...], formats: tuple[str, ...] = FORMAT_NAMES) -> TurnCase:
    shape = Shape(draw, draw(st.sampled_from(formats)))
    names = shape.tool_names()
    offered = [(name, draw(schemas)) for name in names]
    schemas_offered = {name: schema for name, schema in offered if isinstance(name, str)}
    calls = []
    for index in range(1, draw(st.integers(0, 4)) + 1):
        name = shape.call_name(names)
        arguments = shape.arguments(schemas_offered.get(name) if isinstance(name, str) else None)
        calls.append(FuzzCall(shape.call_id(index), name, arguments))
    if calls and chance(draw, 2):  # the same id twice, with the same or another call
        twin, other = draw(st.sampled_from(calls)), draw(st.sampled_from(calls))
        calls.append(FuzzCall(twin.id, other.name, other.arguments))
    if len(calls) > 1 and chance(draw, 2):  # ids a loose comparison takes as one: 1 and true, 0 and false
        first, second = draw(st.sampled_from([(1, True), (0, False), (True, 1), ("1", 1), (1, 1.0), ([1], [True])]))
        calls[0], calls[1] = calls[0]._replace(id=first), calls[1]._replace(id=second)
        shape.well_formed &= shape.format in ("direct", "mcp")
    tools = TOOL_BUILDERS[shape.format](offered)
    turn, calls = BUILDERS[shape.format](shape, calls)
    table, casts = draw(st.sampled_from(tables)), draw(st.booleans())
    return TurnCase(shape.format, tools, schemas_offered, turn, tuple(calls), shape.well_formed, table, casts)


def present(item: dict, key: str, value: object) -> dict:
    if value is not MISSING:
        item[key] = value
    return item


def direct_turn(shape: Shape, calls: list) -> tuple[list, list]:
    return [present(present({"tool": call.name}, "id", call.id), "arguments", call.arguments) for call in calls], calls


def openai_turn(shape: Shape, calls: list) -> tuple[dict, list]:
    tool_calls = []
    for call in calls:
        item = present({"type": "function"}, "id", call.id)
        item["function"] = present({"name": call.name}, "arguments", call.arguments)
        if call.arguments is MISSING:
            shape.well_formed = False
        if chance(shape.draw, 1):
            del item["type"]
        elif shape.stray(1):
            item["type"] = shape.draw(picked(TYPES))
        tool_calls.append(item)
    message = {"role": "assistant", "content": shape.draw(st.sampled_from([None, "", "Let me look."])),
               "tool_calls": tool_calls}
    return with_odd_role(shape, message), calls


def responses_turn(shape: Shape, calls: list) -> tuple[object, list]:
    output: list = [{"type": "reasoning", "summary": []}] if chance(shape.draw, 2) else []
    for call in calls:
        item = present(present({"type": "function_call", "name": call.name}, "call_id", call.id), "arguments",
                       call.arguments)
        if call.arguments is MISSING:
            shape.well_formed = False
        output.append(item)
        if chance(shape.draw, 1):  # an item of a type no reader knows is not a call
            output.append({"type": shape.draw(picked(TYPES)), "call_id": call.id})
    if chance(shape.draw, 2):
        output.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]})
    return ({"id": "resp_1", "output": output} if chance(shape.draw, 3) else output), calls


def anthropic_turn(shape: Shape, calls: list) -> tuple[dict, list]:
    content: list = [{"type": "text", "text": "Let me look."}] if chance(shape.draw, 5) else []
    for call in calls:
        content.append(present(present({"type": "tool_use", "name": call.name}, "id", call.id), "input",
                               call.arguments))
        if call.arguments is MISSING:
            shape.well_formed = False
    return with_odd_role(shape, {"role": "assistant", "content": content}), calls


def mcp_turn(shape: Shape, calls: list) -> tuple[list, list]:
    """Bare `tools/call` params (known by their place: call_1, call_2, ...) or whole JSON-RPC
    requests (by their id, else by their place); arguments are an object there, absent or
    null for none. The calls come back with the ids the gate knows them by."""
    items, known = [], []
    for number, call in enumerate(calls, 1):
        if call.arguments is not MISSING and call.arguments is not None and not isinstance(call.arguments, dict):
            shape.well_formed = False
        params = present({"name": call.name}, "arguments", call.arguments)
        if chance(shape.draw, 5):
            items.append(present({"jsonrpc": "2.0", "method": "tools/call", "params": params}, "id", call.id))
            known.append(call._replace(id=f"call_{number}" if call.id is MISSING else call.id))
        else:
            items.append(params)
            known.append(call._replace(id=f"call_{number}"))
    return items, known


def with_odd_role(shape: Shape, message: dict) -> dict:
    if chance(shape.draw, 1):
        del message["role"]
    elif shape.stray(1):
        message["role"] = shape.draw(picked(ROLES))
    return message


BUILDERS = {"direct": direct_turn, "openai": openai_turn, "responses": responses_turn, "anthropic": anthropic_turn,
            "mcp": mcp_turn}
TOOL_BUILDERS = {
    "direct": lambda tools: dict(tools),
    "openai": lambda tools: [{"type": "function", "function": present({"name": name}, "parameters",
                                                                        MISSING if schema is None else schema)}
                             for name, schema in tools],
    "responses": lambda tools: [present({"type": "function", "name": name}, "parameters",
                                        MISSING if schema is None else schema) for name, schema in tools],
    "anthropic": lambda tools: [{"name": name, "input_schema": {} if schema is None else schema}
                                for name, schema in tools],
    "mcp": lambda tools: {"tools": [{"name": name, "inputSchema": {} if schema is None else schema}
                                    for name, schema in tools]},
}
