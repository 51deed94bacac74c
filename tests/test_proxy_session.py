"""`turngate proxy` in front of the project's test server, seen by a real MCP client session
(the SDK's `ClientSession` over stdio), next to a session with the same server started
directly. A wrapper logs every line the proxied server reads, so a refused call is seen not
to arrive.

One direct and one proxied session serve the tests that change nothing on the server; the
tests of list changes, casts and steps start their own.
"""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from attrs import define
from mcp import ClientSession

from proxy_support import (
    TICKET_SERVER,
    Client,
    dumped,
    expected_answer,
    own_requests,
    proxied,
    read_lines,
    recorded,
    server_environment,
    session,
    tool_calls_received,
)
from turngate.cli import main as turngate_main

pytestmark = pytest.mark.anyio

GOOD_TICKET = {"title": "Login fails", "kind": "bug", "labels": ["auth"], "reporter": {"name": "Ann"}, "estimate": 3}
BAD_TICKET = {"kind": "task", "labels": "auth", "estimate": [3]}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@define
class Side:
    """One session and what its server recorded: the calls it ran, and (proxied) every line it read."""

    session: ClientSession
    client: Client
    calls: Path
    wire: Path | None = None

    def clear(self) -> None:
        for path in (self.calls, self.wire):
            if path is not None and path.exists():
                path.write_bytes(b"")  # the server appends; what a test sees is its own


@define
class Sides:
    direct: Side
    gated: Side


@pytest.fixture(scope="module")
async def sides(tmp_path_factory):
    """A direct and a proxied session with the test server, for the tests that change nothing."""
    direct_folder, gated_folder = tmp_path_factory.mktemp("direct"), tmp_path_factory.mktemp("gated")
    wire = gated_folder / "wire.jsonl"
    async with AsyncExitStack() as stack:
        made = []
        for command, folder in ((TICKET_SERVER, direct_folder), (proxied(recorded(wire, TICKET_SERVER)), gated_folder)):
            client = Client()
            started = await stack.enter_async_context(session(command, server_environment(folder), client))
            made.append(Side(started, client, folder / "calls.jsonl"))
        made[1].wire = wire
        yield Sides(*made)


@pytest.fixture
def both(sides: Sides) -> Sides:
    sides.direct.clear()
    sides.gated.clear()
    return sides


async def test_a_valid_call_reaches_the_server_unchanged_and_its_result_comes_back(both):
    expected = dumped(await both.direct.session.call_tool("create_ticket", GOOD_TICKET))
    result = dumped(await both.gated.session.call_tool("create_ticket", GOOD_TICKET))
    assert result == expected and result["isError"] is False
    assert read_lines(both.gated.calls) == read_lines(both.direct.calls) == [{"tool": "create_ticket", "arguments": {
        "title": "Login fails", "kind": "bug", "labels": ["auth"], "priority": "low", "estimate": 3,
        "reporter": {"name": "Ann", "email": None}}}]
    assert [call["params"]["arguments"] for call in tool_calls_received(both.gated.wire)] == [GOOD_TICKET]


async def test_bad_arguments_are_refused_with_is_error_and_never_reach_the_server(both):
    gated = both.gated.session
    listed = await gated.list_tools()
    ticket = dumped(await gated.call_tool("create_ticket", BAD_TICKET))
    people = dumped(await gated.call_tool("assign", {"ticket": "seven", "people": {"name": "Ann"}}))
    assert ticket == {"content": [{"type": "text", "text": expected_answer(listed, "create_ticket", BAD_TICKET)}],
                      "isError": True, "resultType": "complete"}
    assert ticket["content"][0]["text"].splitlines() == [
        'Refused: the arguments do not match the schema of tool "create_ticket", so nothing was run.',
        '- "title" is missing; it is required and must be text.',
        '- "kind" must be one of "bug", "feature", but "task" was sent.',
    ]  # "labels" and "estimate" are optional (anyOf with null): not judged
    assert people["isError"] is True and people["content"][0]["text"].startswith("Refused:")
    assert tool_calls_received(both.gated.wire) == [] and read_lines(both.gated.calls) == []


async def test_an_unknown_tool_gets_the_unknown_tool_answer(both):
    gated = both.gated.session
    near = dumped(await gated.call_tool("asign", {"ticket": 1, "people": []}))
    far = dumped(await gated.call_tool("launch_rocket", {}))
    assert near["content"][0]["text"] == \
        'Refused: no tool named "asign" was offered, so nothing was run (did you mean "assign"?).'
    assert far["content"][0]["text"] == 'Refused: no tool named "launch_rocket" was offered, so nothing was run.'
    assert near["isError"] is far["isError"] is True
    assert tool_calls_received(both.gated.wire) == []
    # A tool not in the list makes the proxy read the list again (with ids of its own)
    # before it refuses the call: the server may have added it without a word.
    assert [m["method"] for m in own_requests(both.gated.wire)] == ["tools/list", "tools/list"]


async def test_without_casts_a_call_is_sent_as_it_came(both):
    """`set_estimate` validates `hours` strictly: the server itself refuses "5". The proxy's
    check is lenient ("5" is an integer's text), and without --casts it sends what came."""
    result = dumped(await both.gated.session.call_tool("set_estimate", {"ticket": 7, "hours": "5"}))
    assert [c["params"]["arguments"] for c in tool_calls_received(both.gated.wire)] == [{"ticket": 7, "hours": "5"}]
    assert result["isError"] is True and "Input should be a valid integer" in result["content"][0]["text"]


async def _everything_but_tools(started: ClientSession, client: Client) -> list:
    """Resources, prompts, completion, ping, an error, and a tool that asks the client for an
    elicitation, a sampling and its roots, with progress and a log."""
    survey = await started.call_tool("survey", {"ticket": 7}, progress_callback=client.progress)
    answers = [
        await started.list_resources(),
        await started.list_resource_templates(),
        await started.read_resource("tickets://open"),
        await started.read_resource("tickets://42"),
        await started.list_prompts(),
        await started.get_prompt("triage", {"title": "Login fails", "severity": "high"}),
        await started.send_ping(),
        survey,
    ]
    try:
        await started.read_resource("nothing://here")
    except Exception as error:  # the server's error, passed through
        answers.append(repr(error))
    return [a if isinstance(a, str) else dumped(a) for a in answers] + [started.initialize_result.model_dump()]


def _told(client: Client) -> list:
    """What the client was asked and told, but for the progress token: the number of the
    request, which two sessions that other tests use too need not share."""
    told = []
    for seen in client.seen:
        if seen[0] == "notification" and "progressToken" in seen[1].get("params", {}):
            seen = ("notification", {**seen[1], "params": {**seen[1]["params"], "progressToken": "token"}})
        told.append(seen)
    return told


async def test_resources_prompts_and_the_servers_requests_pass_through(both):
    for side in (both.direct, both.gated):
        side.client.seen.clear()
    expected = await _everything_but_tools(both.direct.session, both.direct.client)
    got = await _everything_but_tools(both.gated.session, both.gated.client)
    assert got == expected
    assert _told(both.gated.client) == _told(both.direct.client)
    kinds = [seen[0] for seen in both.gated.client.seen if seen[0] != "notification"]
    assert kinds == ["progress", "log", "elicitation", "sampling", "roots", "progress"]
    assert "elicited accept True; sampled short; roots ['file:///work/tickets']" in json.dumps(got)
    methods = [m.get("method") for m in read_lines(both.gated.wire)]
    assert {"resources/list", "resources/templates/list", "resources/read", "prompts/list", "prompts/get"} <= set(methods)


async def test_with_casts_a_call_that_fits_after_an_exact_cast_is_sent_cast(tmp_path):
    wire, steps = tmp_path / "wire.jsonl", tmp_path / "steps.jsonl"
    command = proxied(recorded(wire, TICKET_SERVER), "--casts", "--steps", str(steps))
    async with session(command, server_environment(tmp_path)) as gated:
        cast = dumped(await gated.call_tool("set_estimate", {"ticket": 7, "hours": "5"}))
        refused = dumped(await gated.call_tool("drop_database", {}))
    assert [c["params"]["arguments"] for c in tool_calls_received(wire)] == [{"ticket": 7, "hours": 5}]
    assert cast["content"][0]["text"] == "Ticket 7 estimated at 5 hours." and cast["isError"] is False
    assert read_lines(tmp_path / "calls.jsonl") == [{"tool": "set_estimate", "arguments": {"ticket": 7, "hours": 5}}]
    # At full privacy the steps keep the call ids, the answers' texts and what was cast.
    cast_step, refused_step = read_lines(steps)
    assert (cast_step["status"], cast_step["casts"], cast_step["cast_count"]) == ("ok", ["hours"], 1)
    assert isinstance(cast_step["call_id"], int)
    assert refused_step["tool"] == "drop_database" and refused_step["text"] == refused["content"][0]["text"]


async def _archive_after_change(gated: ClientSession) -> tuple[dict, dict, dict]:
    before = dumped(await gated.call_tool("archive_ticket", {"ticket": 7, "reason": "done"}))
    await gated.call_tool("enable_archive", {})
    refused = dumped(await gated.call_tool("archive_ticket", {"ticket": 7, "reason": "old"}))
    ran = dumped(await gated.call_tool("archive_ticket", {"ticket": 7, "reason": "done"}))
    return before, refused, ran


def _assert_judged_by_the_new_list(client: Client, calls: Path, answers: tuple[dict, dict, dict]) -> None:
    before, refused, ran = answers
    assert before["content"][0]["text"].startswith('Refused: no tool named "archive_ticket" was offered')
    assert ("notification", {"method": "notifications/tools/list_changed"}) in client.seen
    assert refused["content"][0]["text"].splitlines() == [
        'Refused: the arguments do not match the schema of tool "archive_ticket", so nothing was run.',
        '- "reason" must be one of "done", "duplicate", but "old" was sent.',
    ]
    assert ran["content"][0]["text"] == "Ticket 7 archived (done)." and ran["isError"] is False
    assert [c["tool"] for c in read_lines(calls)] == ["enable_archive", "archive_ticket"]


def _listers(wire: Path) -> list[str]:
    """Who asked the server for its tools, in order: the proxy or the client."""
    return ["proxy" if str(m["id"]).startswith("turngate-proxy-") else "client"
            for m in read_lines(wire) if m.get("method") == "tools/list"]


async def test_after_list_changed_the_proxy_lists_the_tools_itself(tmp_path):
    """The client listed once, at the start, and not after the change."""
    wire, client = tmp_path / "wire.jsonl", Client()
    async with session(proxied(recorded(wire, TICKET_SERVER)), server_environment(tmp_path), client) as gated:
        await gated.list_tools()
        answers = await _archive_after_change(gated)
    _assert_judged_by_the_new_list(client, tmp_path / "calls.jsonl", answers)
    # The first call named a tool not in the client's list: the proxy read the list again
    # before it refused it; after the change it listed once more, before the next call.
    lines = read_lines(wire)
    enabled = next(i for i, m in enumerate(lines) if m.get("params", {}).get("name") == "enable_archive")
    own = [i for i, m in enumerate(lines) if str(m.get("id")).startswith("turngate-proxy-")]
    assert len(own) == 2 and own[0] < enabled < own[1]
    assert _listers(wire)[:3] == ["client", "proxy", "proxy"]  # (the SDK lists again later, to validate a result)


async def test_after_list_changed_the_clients_own_listing_is_used(tmp_path):
    """The client never listed before its first call (the proxy did), and listed again after
    the change (the SDK's session does, to validate a result): the proxy used that list."""
    wire, client = tmp_path / "wire.jsonl", Client()
    async with session(proxied(recorded(wire, TICKET_SERVER)), server_environment(tmp_path), client) as gated:
        answers = await _archive_after_change(gated)
    _assert_judged_by_the_new_list(client, tmp_path / "calls.jsonl", answers)
    assert _listers(wire) == ["proxy", "client"]


async def test_a_tool_added_without_list_changed_is_not_refused_as_unknown(tmp_path):
    wire = tmp_path / "wire.jsonl"
    async with session(proxied(recorded(wire, TICKET_SERVER)), server_environment(tmp_path)) as gated:
        await gated.list_tools()
        await gated.call_tool("enable_archive", {"notify": False})
        ran = dumped(await gated.call_tool("archive_ticket", {"ticket": 7, "reason": "done"}))
        unknown = dumped(await gated.call_tool("archive_tickets", {"ticket": 7}))
    assert ran["content"][0]["text"] == "Ticket 7 archived (done)." and ran["isError"] is False
    assert unknown["content"][0]["text"] == (
        'Refused: no tool named "archive_tickets" was offered, so nothing was run (did you mean "archive_ticket"?).')
    assert [c["tool"] for c in read_lines(tmp_path / "calls.jsonl")] == ["enable_archive", "archive_ticket"]
    assert _listers(wire)[:3] == ["client", "proxy", "client"] and _listers(wire).count("proxy") == 2


def _cli_json(capsys, *argv: str) -> dict:
    assert turngate_main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


async def test_the_steps_file_counts_refusals_by_code_and_keeps_nothing_sent(tmp_path, capsys):
    steps = tmp_path / "steps.jsonl"
    command = proxied(TICKET_SERVER, "--steps", str(steps), "--privacy", "metadata-only")
    async with session(command, server_environment(tmp_path)) as gated:
        await gated.call_tool("create_ticket", GOOD_TICKET)
        await gated.call_tool("create_ticket", BAD_TICKET)  # missing, enum
        await gated.call_tool("assign", {"ticket": 1, "people": {"name": "Ann"}, "secret_note": "hunter2"})  # kind
        await gated.call_tool("drop_database", {"really": "yes"})  # unknown-tool
        await gated.call_tool("set_estimate", {"ticket": 7, "hours": "5"})  # sent; the server refuses it
    by_code = _cli_json(capsys, "stats", str(steps), "--by", "code", "--json")
    assert {row["code"]: row["mismatches"] for row in by_code["rows"]} == \
        {"enum": 1, "kind": 1, "missing": 1, "unknown-tool": 1}
    by_tool = _cli_json(capsys, "stats", str(steps), "--json")
    assert by_tool["total"] == {"calls": 5, "ran": 2, "failed": 1, "failure_rate": 0.2, "refused_arguments": 3,
                                "not_run_turn": 0, "declined": 0}
    assert turngate_main(["timeline", str(steps)]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [
        "1     1     create_ticket  ok       -          -",
        "2     1     create_ticket  refused  arguments  missing, enum",
        "3     1     assign         refused  arguments  kind",
        "4     1     (not offered)  refused  arguments  unknown-tool",
        "5     1     set_estimate   failed   -          -",
    ]
    kept = steps.read_text()
    for sent in ("Login fails", "task", "hunter2", "secret_note", "drop_database", "Ann", '"5"', "Refused"):
        assert sent not in kept
