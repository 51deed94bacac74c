"""The latency `turngate proxy` adds to a valid tool call, and its start-up:
`python3 benchmarks/proxy_latency.py [--calls N] [--starts N] [--write]`.

Two real SDK client sessions (`ClientSession` over `stdio_client`) with the same server, one
direct and one through `python -m turngate.mcp.proxy`, call the same valid tool in turns
(direct, proxied, direct, ...) so that drift on the machine hits both alike; after a warm-up,
the median of N calls each (default 300). The same is measured on the bare wire (a line
written, its answer read: no SDK client in the way), and for a call the proxy refuses, which
it answers alone. Servers: the project's test server (tests/proxy_servers/ticket_server.py)
and mcp-server-time from PyPI (the test extra). The HTTP modes and the start-up are measured
by `proxy_http.py`. Beside the wall clock, the CPU the proxy's process used per call (from
/proc, over the timed calls): on 2 shared cores the wall clock moves with the load, the CPU
time hardly does.

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
from proxy_support import TICKET_SERVER, TIME_SERVER, proxied, sdk_client, server_environment, session  # noqa: E402

sys.path.insert(0, str(HERE))
from proxy_http import http_cases, start_up  # noqa: E402
from report import cpu_model, turngate_source  # noqa: E402

#: The added latency targets (median µs; the last round's figures over stdio, and over HTTP
#: set from the first measurement), by case name prefix; None: a cost documented, not a target.
LATENCY_TARGETS = {"SDK session, test server, assign (valid), with": 541, "SDK session, test server": 634,
                   "SDK session, mcp-server-time": 620, "SDK Client (2026-07-28), test server": 634,
                   "SDK Client (2026-07-28), mcp-server-time": None, "bare wire, test server, assign (valid)": 314,
                   "bare wire": None, "`--url`": 1000, "`--listen -- COMMAND`": 1000, "`--listen --url`": 2000}
#: The start-up targets (the best of N runs on this machine idle, ms), by case name prefix.
START_TARGETS = {"reference": None, "stdio": 150, "`turngate proxy --url": 300, "`turngate proxy --listen": 300}
#: A start-up is judged against its target where a bare interpreter started as fast as on
#: an idle machine (within this many ms): nothing else delayed the runs.
IDLE_REFERENCE_MS = 25

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


def proxy_cpu() -> float:
    """The CPU seconds of this benchmark's proxy processes so far (their children aside)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if b"turngate.mcp.proxy" in command and int(fields[1]) == os.getpid():
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


async def timed(direct, gated, tool: str, arguments: dict, calls: int) -> dict:
    """Each call timed as a host's code sees it: `await session.call_tool(...)`."""
    times: dict[str, list[float]] = {"direct": [], "proxied": []}
    for started in (direct, gated):
        await started.list_tools()  # as a host does first; the proxy reads the list then
    cpu = 0.0
    for number in range(WARM_UP + calls):
        if number == WARM_UP:
            cpu = proxy_cpu()
        for name, started in (("direct", direct), ("proxied", gated)):
            began = time.perf_counter()
            result = await started.call_tool(tool, arguments)
            took = time.perf_counter() - began
            assert not result.is_error, result
            if number >= WARM_UP:
                times[name].append(took)
    return {**compared(times), "proxy_cpu_us": round((proxy_cpu() - cpu) / calls * 1e6, 1)}


async def sdk_sessions(server: list[str], tool: str, arguments: dict, calls: int, environment: dict,
                       options: tuple[str, ...] = (), modern: bool = False) -> dict:
    """ClientSession (2025-11-25), or the high-level Client in its default mode (2026-07-28)."""
    opened = sdk_client if modern else session
    async with opened(server, environment) as direct, opened(proxied(server, *options), environment) as gated:
        return await timed(direct, gated, tool, arguments, calls)


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
    cpu = 0.0
    environment = {**os.environ, **environment}
    async with await anyio.open_process(server, env=environment) as direct, \
            await anyio.open_process(proxied(server), env=environment) as gated:
        wires = {"direct": Wire(direct), "proxied": Wire(gated)}
        for wire in wires.values():
            await wire.ask(INITIALIZE)
            await wire.process.stdin.send(INITIALIZED)
        for number in range(WARM_UP + calls):
            if number == WARM_UP:
                cpu = proxy_cpu()
            for name, wire in wires.items():
                began = time.perf_counter()
                answer = await wire.ask(line)
                took = time.perf_counter() - began
                assert name == "direct" or json.loads(answer)["result"]["isError"] is refused, answer
                if number >= WARM_UP:
                    times[name].append(took)
        cpu = proxy_cpu() - cpu
        for process in (direct, gated):
            await process.stdin.aclose()
    return {**compared(times), "proxy_cpu_us": round(cpu / calls * 1e6, 1)}


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
            "SDK Client (2026-07-28), test server, assign (valid): the proxy holds a listen stream": await sdk_sessions(
                TICKET_SERVER, "assign", ASSIGN, calls, environment, modern=True),
            "SDK Client (2026-07-28), mcp-server-time, convert_time (valid): no stream, no ttlMs, the list read "
            "before each call": await sdk_sessions(TIME_SERVER, "convert_time", CONVERT, calls, environment,
                                                   modern=True),
            "bare wire, test server, assign (valid)": await bare_wire(
                TICKET_SERVER, call_line("assign", ASSIGN), calls, environment),
            "bare wire, test server, assign with a bad argument (proxied: refused by the proxy alone; direct: the server's own error)": await bare_wire(
                TICKET_SERVER, call_line("assign", {"ticket": [5]}), calls, environment, refused=True),
            **await http_cases(calls, environment, timed, ASSIGN),
        }


def lines(results: dict[str, dict], idle: bool) -> list[str]:
    rows = ["| what | n | direct median µs | proxied median µs | added µs | direct p90 µs | proxied p90 µs | "
            "proxy CPU per call µs | target (added) | |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, result in results.items():
        direct, gated = result["direct"], result["proxied"]
        target = next(limit for prefix, limit in LATENCY_TARGETS.items() if name.startswith(prefix))
        verdict = "" if target is None else "not judged (the machine was busy)" if not idle \
            else "PASS" if result["added_median_us"] <= target else "MISS"
        rows.append(f"| {name} | {direct['n']} | {direct['median_us']:.0f} | {gated['median_us']:.0f} | "
                    f"{result['added_median_us']:.0f} | {direct['p90_us']:.0f} | {gated['p90_us']:.0f} | "
                    f"{result.get('proxy_cpu_us', 0):.0f} | {'' if target is None else f'≤ {target}'} | {verdict} |")
    return rows


def idle(starts: dict[str, dict]) -> bool:
    """Whether the run had the machine to itself: a bare interpreter started as fast as idle."""
    return next(found["best_ms"] for name, found in starts.items() if name.startswith("reference")) \
        <= IDLE_REFERENCE_MS


def realtime() -> bool:
    """Run at real-time priority (and so every process this run starts), where this process
    may (as root on Linux): the other processes on the shared cores then delay none of the
    runs, and the figures are those of an idle machine (the reference row tells)."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except (AttributeError, OSError):
        return False
    return True


def start_lines(starts: dict[str, dict]) -> list[str]:
    rows = ["| start-up | n | best ms | median ms | CPU median ms | target (best, idle) | |",
            "|---|---:|---:|---:|---:|---:|---|"]
    for name, found in starts.items():
        target = next(limit for prefix, limit in START_TARGETS.items() if name.startswith(prefix))
        verdict = "" if target is None else "not judged (the machine was busy)" if not idle(starts) \
            else "PASS" if found["best_ms"] <= target else "MISS"
        rows.append(f"| {name} | {found['n']} | {found['best_ms']:.0f} | {found['median_ms']:.0f} | "
                    f"{found['cpu_median_ms']:.0f} | {'' if target is None else f'≤ {target}'} | {verdict} |")
    return rows


def document(results: dict[str, dict], starts: dict[str, dict], load: float, priority: bool) -> str:
    return "\n".join([
        "# turngate proxy: start-up and added latency", "",
        "Produced by `python3 benchmarks/proxy_latency.py --write`; every figure below is from one run.", "",
        f"- CPU: {cpu_model()}, {os.cpu_count()} cores",
        f"- turngate measured: {turngate_source()}",
        f"- Python {sys.version.split()[0]} ({platform.python_implementation()}), {platform.system()} "
        f"{platform.release()}",
        f"- Load average when the run began: {load:.1f} (other processes share the cores)",
        f"- Real-time priority for the run and every process it starts (SCHED_FIFO 10): "
        f"{'yes: the other processes delay none of it' if priority else 'no (not permitted here)'}", "",
        "Start-up: from the exec of the `turngate` console script (the environment's own interpreter) to "
        "the proxy serving (see benchmarks/proxy_http.py). The CPU time counts the thread that loads the "
        "judging core beside the start, which a second core runs in parallel. The reference row is a "
        "bare interpreter timed the same way: on an idle machine it takes about 20 ms, and the targets "
        f"(start-up and latency) are judged only where it took at most {IDLE_REFERENCE_MS} ms.", "",
        *start_lines(starts), "",
        "Latency: each call timed from the client's side, the direct and the proxied session in turns, after "
        f"a warm-up of {WARM_UP} calls. Added: the proxied median less the direct median. Over HTTP the direct "
        "side is the test server's own Streamable HTTP (the SDK's, under uvicorn).", "",
        *lines(results, idle(starts)), ""])


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--calls", type=int, default=300, help="timed calls per side and case (default 300)")
    options.add_argument("--starts", type=int, default=20, help="runs per start-up case (default 20)")
    options.add_argument("--write", action="store_true", help="write benchmarks/proxy_latency.md")
    args = options.parse_args()
    load = os.getloadavg()[0]
    priority = realtime()
    with tempfile.TemporaryDirectory() as scratch:
        starts = start_up(args.starts, server_environment(Path(scratch)))
    print("\n".join(start_lines(starts)))
    results = anyio.run(measure, args.calls)
    print("\n".join(lines(results, idle(starts))))
    print(json.dumps({"start_up": starts, "latency": results}, indent=1))
    if args.write:
        (HERE / "proxy_latency.md").write_text(document(results, starts, load, priority), encoding="utf-8")


if __name__ == "__main__":
    main()
