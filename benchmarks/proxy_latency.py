"""The latency `turngate proxy` adds to a valid tool call: `python3 benchmarks/proxy_latency.py
[--calls N] [--write]`.

Two real SDK client sessions (`ClientSession` over `stdio_client`) with the same server, one
direct and one through `python -m turngate.mcp.proxy`, call the same valid tool in turns
(direct, proxied, direct, ...) so that drift on the machine hits both alike; after a warm-up,
the median of N calls each (default 300). The same is measured on the bare wire (a line
written, its answer read: no SDK client in the way), and for a call the proxy refuses, which
it answers alone. Servers: the project's test server (tests/proxy_servers/ticket_server.py)
and mcp-server-time from PyPI (the test extra).

Prints the figures; `--write` also writes them to benchmarks/proxy_latency.md, with the
machine they were measured on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from proxy_support import TICKET_SERVER, TIME_SERVER, proxied, server_environment, session  # noqa: E402

sys.path.insert(0, str(HERE))
from report import cpu_model, turngate_source  # noqa: E402

WARM_UP = 30
ASSIGN = {"ticket": 5, "people": [{"name": "Ann", "email": "ann@example.org"}]}
CONVERT = {"source_timezone": "Europe/Berlin", "time": "12:00", "target_timezone": "Asia/Tokyo"}
INITIALIZE = (b'{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25",'
              b'"capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}\n')
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'


def call_line(tool: str, arguments: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments}}).encode() + b"\n"


def summary(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {"median_us": round(statistics.median(ordered) * 1e6, 1),
            "p10_us": round(ordered[len(ordered) // 10] * 1e6, 1),
            "p90_us": round(ordered[len(ordered) * 9 // 10] * 1e6, 1), "n": len(ordered)}


def compared(times: dict[str, list[float]]) -> dict:
    direct, gated = summary(times["direct"]), summary(times["proxied"])
    return {"direct": direct, "proxied": gated, "added_median_us": round(gated["median_us"] - direct["median_us"], 1)}


async def sdk_sessions(server: list[str], tool: str, arguments: dict, calls: int, environment: dict,
                       options: tuple[str, ...] = ()) -> dict:
    """Each call timed as a host's code sees it: `await session.call_tool(...)`."""
    times: dict[str, list[float]] = {"direct": [], "proxied": []}
    async with session(server, environment) as direct, session(proxied(server, *options), environment) as gated:
        for started in (direct, gated):
            await started.list_tools()  # as a host does first; the proxy reads the list then
        for number in range(WARM_UP + calls):
            for name, started in (("direct", direct), ("proxied", gated)):
                began = time.perf_counter()
                result = await started.call_tool(tool, arguments)
                took = time.perf_counter() - began
                assert not result.is_error, result
                if number >= WARM_UP:
                    times[name].append(took)
    return compared(times)


class Wire:
    """A server process spoken to line by line."""

    def __init__(self, process) -> None:
        self.process, self.buffer = process, b""

    async def ask(self, line: bytes) -> bytes:
        await self.process.stdin.send(line)
        while b"\n" not in self.buffer:
            self.buffer += await self.process.stdout.receive()
        answer, self.buffer = self.buffer.split(b"\n", 1)
        return answer


async def bare_wire(server: list[str], line: bytes, calls: int, environment: dict, refused: bool = False) -> dict:
    """A line written, its answer read: the proxy's own cost, without the SDK client's."""
    times: dict[str, list[float]] = {"direct": [], "proxied": []}
    environment = {**os.environ, **environment}
    async with await anyio.open_process(server, env=environment) as direct, \
            await anyio.open_process(proxied(server), env=environment) as gated:
        wires = {"direct": Wire(direct), "proxied": Wire(gated)}
        for wire in wires.values():
            await wire.ask(INITIALIZE)
            await wire.process.stdin.send(INITIALIZED)
        for number in range(WARM_UP + calls):
            for name, wire in wires.items():
                began = time.perf_counter()
                answer = await wire.ask(line)
                took = time.perf_counter() - began
                assert name == "direct" or json.loads(answer)["result"]["isError"] is refused, answer
                if number >= WARM_UP:
                    times[name].append(took)
        for process in (direct, gated):
            await process.stdin.aclose()
    return compared(times)


async def measure(calls: int) -> dict[str, dict]:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        environment = server_environment(folder)
        steps = ("--steps", str(folder / "steps.jsonl"))
        return {
            "SDK session, test server, assign (valid)": await sdk_sessions(
                TICKET_SERVER, "assign", ASSIGN, calls, environment),
            "SDK session, test server, assign (valid), with --steps": await sdk_sessions(
                TICKET_SERVER, "assign", ASSIGN, calls, environment, steps),
            "SDK session, mcp-server-time, convert_time (valid)": await sdk_sessions(
                TIME_SERVER, "convert_time", CONVERT, calls, environment),
            "bare wire, test server, assign (valid)": await bare_wire(
                TICKET_SERVER, call_line("assign", ASSIGN), calls, environment),
            "bare wire, test server, assign with a bad argument (proxied: refused by the proxy alone; direct: the server's own error)": await bare_wire(
                TICKET_SERVER, call_line("assign", {"ticket": [5]}), calls, environment, refused=True),
        }


def lines(results: dict[str, dict]) -> list[str]:
    rows = ["| what | n | direct median µs | proxied median µs | added µs | direct p90 µs | proxied p90 µs |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    for name, result in results.items():
        direct, gated = result["direct"], result["proxied"]
        rows.append(f"| {name} | {direct['n']} | {direct['median_us']:.0f} | {gated['median_us']:.0f} | "
                    f"{result['added_median_us']:.0f} | {direct['p90_us']:.0f} | {gated['p90_us']:.0f} |")
    return rows


def document(results: dict[str, dict], load: float) -> str:
    return "\n".join([
        "# turngate proxy: added latency", "",
        "Produced by `python3 benchmarks/proxy_latency.py --write`; every figure below is from one run.", "",
        f"- CPU: {cpu_model()}, {os.cpu_count()} cores",
        f"- turngate measured: {turngate_source()}",
        f"- Python {sys.version.split()[0]} ({platform.python_implementation()}), {platform.system()} "
        f"{platform.release()}",
        f"- Load average when the run began: {load:.1f} (other processes share the cores)", "",
        "Each call timed from the client's side, the direct and the proxied session in turns, after a "
        f"warm-up of {WARM_UP} calls. Added: the proxied median less the direct median.", "",
        *lines(results), ""])


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--calls", type=int, default=300, help="timed calls per side and case (default 300)")
    options.add_argument("--write", action="store_true", help="write benchmarks/proxy_latency.md")
    args = options.parse_args()
    load = os.getloadavg()[0]
    results = anyio.run(measure, args.calls)
    print("\n".join(lines(results)))
    print(json.dumps(results, indent=1))
    if args.write:
        (HERE / "proxy_latency.md").write_text(document(results, load), encoding="utf-8")


if __name__ == "__main__":
    main()
