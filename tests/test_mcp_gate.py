"""The gate in front of a real MCP server (tests/mcp_server.py, started over stdio): valid
calls reach the server and return its results; a turn with one bad call reaches the server
with nothing, spends no budget, and every call is answered with the gate's text."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult, ListToolsResult, Tool

from turngate import check_turn
from turngate.formats import mcp_calls
from turngate.mcp.gate import GatedSession

SERVER = Path(__file__).resolve().parent / "mcp_server.py"
TICKET = {"title": "Login fails", "kind": "bug", "labels": ["auth"], "priority": "high",
          "reporter": {"name": "Ada", "email": "ada@example.org"}}
ASSIGN = {"ticket": 7, "people": [{"name": "Grace"}]}


def server_parameters(calls_file: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(SERVER)],
                                 env={"TURNGATE_TEST_CALLS": str(calls_file)})


def with_server(calls_file: Path, body):
    """`body(session)` run against a fresh server that records its calls in `calls_file`."""
    async def run():
        async with stdio_client(server_parameters(calls_file)) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)
    return anyio.run(run)


def received(calls_file: Path) -> list[dict]:
    if not calls_file.exists():
        return []
    return [json.loads(line) for line in calls_file.read_text().splitlines()]


def texts(results) -> list[str]:
    return [result.content[0].text for result in results]


def test_the_gate_judges_by_the_schemas_pydantic_generated_for_the_server(tmp_path):
    async def body(session):
        gated = GatedSession(session)
        tools = await gated.list_tools()
        listed = await session.list_tools()
        return gated, tools, listed.model_dump(by_alias=True, mode="json")
    gated, tools, listed = with_server(tmp_path / "calls.jsonl", body)
    ticket = next(tool for tool in tools if tool.name == "create_ticket").input_schema
    assert ticket["properties"]["kind"]["enum"] == ["bug", "feature"]
    assert ticket["properties"]["priority"]["$ref"] == "#/$defs/Priority"
    assert {"type": "null"} in ticket["properties"]["reporter"]["anyOf"]
    assert ticket["required"] == ["title", "kind"]
    assert set(gated.toolset.names) == {"create_ticket", "assign"}
    assert mcp_calls.tools(listed) == {tool.name: tool.input_schema for tool in tools}


def test_valid_calls_reach_the_server_and_return_its_results(tmp_path):
    calls_file, charged = tmp_path / "calls.jsonl", []

    async def body(session):
        return await GatedSession(session, charge=charged.append).call_turn(
            [{"name": "create_ticket", "arguments": TICKET}, {"name": "assign", "arguments": ASSIGN}])
    outcome = with_server(calls_file, body)
    assert outcome.sent and outcome.verdict.ok
    assert texts(outcome.results) == ["Ticket opened: Login fails (bug, high).", "Ticket 7 assigned to Grace."]
    assert [result.is_error for result in outcome.results] == [False, False]
    assert received(calls_file) == [
        {"tool": "create_ticket", "arguments": {**TICKET, "estimate": None}},
        {"tool": "assign", "arguments": {"ticket": 7, "people": [{"name": "Grace", "email": None}]}}]
    assert [(call.id, call.tool) for call in charged] == [("call_1", "create_ticket"), ("call_2", "assign")]


def test_a_turn_with_one_bad_call_reaches_the_server_with_nothing(tmp_path):
    calls_file, charged = tmp_path / "calls.jsonl", []
    bad = {"title": "Add dark mode", "kind": "question"}
    turn = [{"name": "create_ticket", "arguments": TICKET}, {"name": "create_ticket", "arguments": bad},
            {"name": "assign", "arguments": ASSIGN}]

    async def body(session):
        gated = GatedSession(session, charge=charged.append)
        refused = await gated.call_turn(turn)
        nothing_yet = (received(calls_file), list(charged))
        return gated, refused, nothing_yet, await gated.call_turn([turn[0]])
    gated, refused, nothing_yet, later = with_server(calls_file, body)

    assert not refused.sent and nothing_yet == ([], [])
    assert all(isinstance(result, CallToolResult) and result.is_error for result in refused.results)
    expected = check_turn(mcp_calls.calls(turn), {tool.name: tool.input_schema for tool in gated.tools})
    assert texts(refused.results) == [answer.text for answer in expected.answers]
    assert texts(refused.results)[1] == (
        'Refused: the arguments do not match the schema of tool "create_ticket", so nothing was run.\n'
        '- "kind" must be one of "bug", "feature", but "question" was sent.')
    assert texts(refused.results)[0].startswith('Not run: this call of tool "create_ticket" matched its schema')
    assert later.sent and [call["tool"] for call in received(calls_file)] == ["create_ticket"]
    assert [call.id for call in charged] == ["call_1"]


def test_a_missing_argument_or_a_list_for_text_is_refused_before_the_server(tmp_path):
    calls_file, charged = tmp_path / "calls.jsonl", []
    turn = [{"name": "assign", "arguments": ASSIGN},
            {"name": "create_ticket", "arguments": {"title": ["Login", "fails"], "kind": "bug"}},
            {"name": "assign", "arguments": {"people": []}}]

    async def body(session):
        return await GatedSession(session, charge=charged.append).call_turn(turn)
    outcome = with_server(calls_file, body)
    assert not outcome.sent and received(calls_file) == [] and charged == []
    assert [answer.codes for answer in outcome.verdict.answers] == [(), ("kind",), ("missing",)]


def test_what_the_default_table_skips_is_left_to_the_server(tmp_path):
    """A nested model is a `$ref`, which the default table does not judge: the call is sent,
    and the server's own validation answers it."""
    calls_file = tmp_path / "calls.jsonl"

    async def body(session):
        return await GatedSession(session).call_turn(
            [{"name": "create_ticket", "arguments": {"title": "x", "kind": "bug", "reporter": {"email": "a@b"}}}])
    outcome = with_server(calls_file, body)
    assert outcome.sent and outcome.results[0].is_error
    assert received(calls_file) == []


def test_the_gate_wraps_the_sdk_s_high_level_client_too(tmp_path):
    calls_file = tmp_path / "calls.jsonl"

    async def run():
        async with Client(server_parameters(calls_file)) as client:
            gated = GatedSession(client)
            refused = await gated.call_turn([{"name": "assign", "arguments": {"ticket": [7], "people": []}}])
            sent = await gated.call_turn([{"name": "assign", "arguments": ASSIGN}])
            return refused, sent
    refused, sent = anyio.run(run)
    assert not refused.sent and refused.verdict.answers[0].codes == ("kind",)
    assert sent.sent and texts(sent.results) == ["Ticket 7 assigned to Grace."]
    assert [call["tool"] for call in received(calls_file)] == ["assign"]


class PagedSession:
    """Lists one tool per page, taking the cursor the way `ClientSession` or `mcp.Client` does."""

    def __init__(self, by_params: bool):
        self.cursors = []
        if by_params:
            async def list_tools(*, params=None):
                return self.page(None if params is None else params.cursor)
        else:
            async def list_tools(*, cursor=None):
                return self.page(cursor)
        self.list_tools = list_tools

    def page(self, cursor):
        self.cursors.append(cursor)
        number = 0 if cursor is None else int(cursor)
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
        return ListToolsResult(tools=[Tool(name=f"tool_{number}", input_schema=schema)],
                               next_cursor=None if number == 2 else str(number + 1))


def test_every_page_of_tools_is_listed_with_either_client():
    for by_params in (True, False):
        session = PagedSession(by_params)
        tools = anyio.run(GatedSession(session).list_tools)
        assert [tool.name for tool in tools] == ["tool_0", "tool_1", "tool_2"]
        assert session.cursors == [None, "1", "2"]


def test_with_telemetry_each_turn_is_reported_with_the_gate_named_mcp(tmp_path):
    from telemetry_support import Emitted
    emitted = Emitted()
    bad = {"title": "Add dark mode", "kind": "question"}

    async def body(session):
        gated = GatedSession(session, telemetry=emitted.telemetry)
        await gated.call_turn([{"name": "create_ticket", "arguments": TICKET}, {"name": "create_ticket", "arguments": bad}])
        return await gated.call_turn([{"name": "assign", "arguments": ASSIGN}])
    assert with_server(tmp_path / "calls.jsonl", body).sent
    assert [(attributes["turngate.gate"], attributes["turngate.turn.outcome"], [event["turngate.call.outcome"] for event in events])
            for attributes, events in emitted.turns()] == [("mcp", "refused", ["not-run", "refused"]),
                                                           ("mcp", "accepted", ["accepted"])]
    assert emitted.points("turngate.codes") == {
        frozenset({("turngate.gate", "mcp"), ("gen_ai.tool.name", "create_ticket"), ("turngate.code", "enum")}): 1}
