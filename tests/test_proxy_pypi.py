"""`turngate proxy` in front of MCP servers from PyPI (mcp-server-time and mcp-server-git,
pinned in the test extra), each wrapped in a script that logs every line the server reads,
so a refused call is seen not to arrive. One direct and one proxied session per server."""

from __future__ import annotations

import subprocess
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from proxy_support import (
    TIME_SERVER,
    dumped,
    expected_answer,
    git_server,
    proxied,
    recorded,
    server_environment,
    session,
    tool_calls_received,
)

# Real servers over Streamable HTTP (or from PyPI), end to end: left out of the fast loop.
pytestmark = [pytest.mark.anyio, pytest.mark.slow]

CONVERT = {"source_timezone": "Europe/Berlin", "time": "12:00", "target_timezone": "Asia/Tokyo"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


async def _direct_and_proxied(stack: AsyncExitStack, command: list[str], folder: Path):
    """Sessions with the server started directly and through the proxy; the proxied one's log."""
    wire = folder / "wire.jsonl"
    direct = await stack.enter_async_context(session(command, server_environment(folder)))
    gated = await stack.enter_async_context(session(proxied(recorded(wire, command)), server_environment(folder)))
    return direct, gated, wire


@pytest.fixture(scope="module")
async def time_server(tmp_path_factory):
    async with AsyncExitStack() as stack:
        yield await _direct_and_proxied(stack, TIME_SERVER, tmp_path_factory.mktemp("time"))


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("repo")
    git = ["git", "-C", str(repo), "-c", "user.name=Ann", "-c", "user.email=ann@example.org"]
    subprocess.run([*git[:3], "init", "-q", "-b", "main"], check=True)
    (repo / "README.md").write_text("tickets\n")
    subprocess.run([*git, "add", "README.md"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "First ticket list"], check=True,
                   env={"GIT_AUTHOR_DATE": "2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z",
                        "PATH": "/usr/bin:/bin"})
    (repo / "notes.txt").write_text("untracked\n")
    return repo


@pytest.fixture(scope="module")
async def git(repo, tmp_path_factory):
    async with AsyncExitStack() as stack:
        yield await _direct_and_proxied(stack, git_server(repo), tmp_path_factory.mktemp("git"))


def commits(repo: Path) -> int:
    return int(subprocess.run(["git", "-C", str(repo), "rev-list", "--count", "HEAD"], capture_output=True,
                              text=True, check=True).stdout)


async def test_time_server_a_valid_call_passes_unchanged(time_server):
    direct, gated, wire = time_server
    expected = dumped(await direct.call_tool("convert_time", CONVERT))
    got = dumped(await gated.call_tool("convert_time", CONVERT))
    assert got == expected and got["isError"] is False and '"target"' in got["content"][0]["text"]
    assert dumped(await gated.list_tools()) == dumped(await direct.list_tools())
    assert [c["params"]["arguments"] for c in tool_calls_received(wire)] == [CONVERT]


async def test_time_server_bad_and_unknown_calls_never_arrive(time_server):
    _, gated, wire = time_server
    before = len(tool_calls_received(wire))
    bad = {"source_timezone": "Europe/Berlin", "time": ["12:00"]}
    listed = await gated.list_tools()
    refused = dumped(await gated.call_tool("convert_time", bad))
    unknown = dumped(await gated.call_tool("get_time", {"timezone": "Europe/Berlin"}))
    assert refused["isError"] is True
    assert refused["content"][0]["text"] == expected_answer(listed, "convert_time", bad)
    assert refused["content"][0]["text"].splitlines()[1:] == [
        '- "target_timezone" is missing; it is required and must be text.',
        '- "time" must be text, but a list was sent.',
    ]
    assert unknown["isError"] is True
    assert unknown["content"][0]["text"].startswith('Refused: no tool named "get_time" was offered')
    assert len(tool_calls_received(wire)) == before


async def test_git_server_valid_calls_pass_unchanged(git, repo):
    direct, gated, wire = git
    calls = [("git_status", {"repo_path": str(repo)}), ("git_log", {"repo_path": str(repo), "max_count": 1}),
             ("git_show", {"repo_path": str(repo), "revision": "HEAD"})]
    expected = [dumped(await direct.call_tool(name, arguments)) for name, arguments in calls]
    got = [dumped(await gated.call_tool(name, arguments)) for name, arguments in calls]
    assert got == expected
    assert "notes.txt" in got[0]["content"][0]["text"] and "First ticket list" in got[1]["content"][0]["text"]
    assert [(c["params"]["name"], c["params"]["arguments"]) for c in tool_calls_received(wire)] == calls


async def test_git_server_bad_calls_never_arrive(git, repo):
    _, gated, wire = git
    before = len(tool_calls_received(wire))
    listed = await gated.list_tools()
    bad = [("git_commit", {"repo_path": str(repo)}),
           ("git_add", {"repo_path": str(repo), "files": {"name": "notes.txt"}}),
           ("git_log", {"repo_path": str(repo), "max_count": [1]})]
    results = [dumped(await gated.call_tool(tool, arguments)) for tool, arguments in bad]
    for result, (tool, arguments) in zip(results, bad, strict=True):
        assert result["isError"] is True
        assert result["content"][0]["text"] == expected_answer(listed, tool, arguments)
    assert results[0]["content"][0]["text"].endswith('"message" is missing; it is required and must be text.')
    assert results[2]["content"][0]["text"].endswith('"max_count" must be an integer, but a list was sent.')
    assert len(tool_calls_received(wire)) == before
    assert commits(repo) == 1
