"""The latency turngate's LiteLLM guardrail adds to a turn that fits: `python3
benchmarks/litellm_latency.py [--requests N] [--write]` (in an environment with the `litellm`
extra: see docs/gateway.md).

Two real LiteLLM proxies on 127.0.0.1, one started with the docs' config
(examples/gateway/config.yaml, the guardrail on) and one with the same config less its
guardrail, in front of the same scripted upstream (tests/litellm_upstream.py), which answers
every request at once with the same fitting turn of two calls. The real `openai` client asks
each proxy in turns (plain, gated, plain, ...) so that drift on the machine hits both alike;
after a warm-up, the median of N requests each (default 200), plain and streamed.

Prints the figures; `--write` also writes them to benchmarks/litellm_latency.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
import litellm_support as support  # noqa: E402
import scenario  # noqa: E402
from litellm_upstream import ScriptedUpstream, turn  # noqa: E402


WARM_UP = 20
TOOLS = [{"type": "function", "function": {"name": name, "parameters": schema}}
         for name, schema in scenario.SCHEMAS.items()]
MESSAGES = [{"role": "user", "content": scenario.USER_TEXT}]


def summary(samples: list[float]) -> dict[str, Any]:
    ordered = sorted(samples)
    return {"median_us": round(statistics.median(ordered) * 1e6, 1),
            "p10_us": round(ordered[len(ordered) // 10] * 1e6, 1),
            "p90_us": round(ordered[len(ordered) * 9 // 10] * 1e6, 1), "n": len(ordered)}


def cpu_model() -> str:
    # (benchmarks/report.py has the same, but imports every peer validator of the full benchmark)
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else ():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def turngate_source() -> str:
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(HERE.parent), *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    changed = " with uncommitted changes to engine/" if git("status", "--porcelain", "engine") else ""
    return f"git {git('rev-parse', '--short', 'HEAD') or '(not a checkout)'}{changed}"


def cpu_seconds(pid: int) -> float:
    """The processor time a process has used (user and system): unlike the wall clock, hardly
    moved by the other processes sharing the cores."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(app: Any, streamed: bool) -> float:
    began = time.perf_counter()
    if streamed:
        chunks = list(app.chat.completions.create(model=support.MODEL, messages=MESSAGES, tools=TOOLS, stream=True))
        assert any(chunk.choices and chunk.choices[0].delta.tool_calls for chunk in chunks)
    else:
        response = app.chat.completions.create(model=support.MODEL, messages=MESSAGES, tools=TOOLS)
        assert len(response.choices[0].message.tool_calls) == 2
    return time.perf_counter() - began


def measure(requests: int) -> dict[str, dict[str, Any]]:
    upstream = ScriptedUpstream(default=turn(scenario.CLEAN_TURN))
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        with support.proxies(folder, upstream.base_url, gated=support.CONFIG,
                             plain=support.config_without_guardrail(folder)) as started:
            apps = {name: support.client(proxy) for name, proxy in started.items()}
            for streamed in (False, True):
                times: dict[str, list[float]] = {"plain": [], "gated": []}
                cpu: dict[str, float] = {}
                for number in range(WARM_UP + requests):
                    if number == WARM_UP:
                        cpu = {name: -cpu_seconds(proxy.process.pid) for name, proxy in started.items()}
                    for name in ("plain", "gated"):
                        took = timed(apps[name], streamed)
                        if number >= WARM_UP:
                            times[name].append(took)
                for name, proxy in started.items():
                    cpu[name] = (cpu[name] + cpu_seconds(proxy.process.pid)) / requests * 1e6
                plain, gated = summary(times["plain"]), summary(times["gated"])
                results["streamed" if streamed else "plain"] = {
                    "without": plain, "with": gated, "added_median_us": round(gated["median_us"] - plain["median_us"], 1),
                    "proxy_cpu_us": {name: round(value) for name, value in cpu.items()}}
    upstream.close()
    return results


def in_process(calls: int) -> dict[str, dict[str, Any]]:
    """The guardrail's hooks alone, called in this process with LiteLLM's own objects as the
    proxy hands them over: the part of the added latency that is turngate's work (the rest is
    the proxy's, for running a guardrail at all), measured without the network's noise."""
    import asyncio

    from litellm import ModelResponse
    from litellm.types.utils import ModelResponseStream
    from litellm_upstream import completion, events

    from turngate.integrations.litellm import TurnGuardrail

    gate = TurnGuardrail(guardrail_name="turngate", event_hook="post_call", default_on=True)
    data = {"model": support.MODEL, "messages": MESSAGES, "tools": TOOLS}
    reply = turn(scenario.CLEAN_TURN)

    async def streamed(hooked: bool) -> None:
        async def upstream() -> Any:
            for event in events(reply, 1, usage=True):
                yield ModelResponseStream(**event)
        chunks = gate.async_post_call_streaming_iterator_hook(None, upstream(), data | {"stream": True}) \
            if hooked else upstream()
        async for _ in chunks:
            pass

    async def plain(hooked: bool) -> None:
        response = ModelResponse(**completion(reply, 1))
        if hooked:
            assert await gate.async_post_call_success_hook(data, None, response) is None

    results = {}
    for name, case in (("plain", plain), ("streamed", streamed)):
        times: dict[str, list[float]] = {"without": [], "with": []}
        for number in range(WARM_UP + calls):
            for hooked in (False, True):
                began = time.perf_counter()
                asyncio.run(case(hooked))
                if number >= WARM_UP:
                    times["with" if hooked else "without"].append(time.perf_counter() - began)
        plain_times, gated = summary(times["without"]), summary(times["with"])
        results[name + " (hooks in process)"] = {"without": plain_times, "with": gated, "added_median_us": round(
            gated["median_us"] - plain_times["median_us"], 1)}
    return results


def lines(results: dict[str, dict[str, Any]]) -> list[str]:
    rows = ["| request | n | without guardrail median µs | with guardrail median µs | added µs | without p90 µs | "
            "with p90 µs |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name, result in results.items():
        plain, gated = result["without"], result["with"]
        rows.append(f"| {name}: a fitting turn of two calls | {plain['n']} | {plain['median_us']:.0f} | "
                    f"{gated['median_us']:.0f} | {result['added_median_us']:.0f} | {plain['p90_us']:.0f} | "
                    f"{gated['p90_us']:.0f} |")
    return rows


def document(results: dict[str, dict[str, Any]], load: float) -> str:
    import litellm

    return "\n".join([
        "# turngate's LiteLLM guardrail: added latency", "",
        "Produced by `python3 benchmarks/litellm_latency.py --write`; every figure below is from one run.", "",
        f"- CPU: {cpu_model()}, {os.cpu_count()} cores",
        f"- turngate measured: {turngate_source()}",
        f"- LiteLLM {getattr(litellm, 'version', None) or _version('litellm')}, openai {_version('openai')}",
        f"- Python {sys.version.split()[0]} ({platform.python_implementation()}), {platform.system()} "
        f"{platform.release()}",
        f"- Load average when the run began: {load:.1f} (other processes share the cores)", "",
        "Each request timed from the app's side (the `openai` client, until the whole response or the "
        "last chunk is read), the proxy without and the proxy with the guardrail in turns, after a warm-up "
        f"of {WARM_UP} requests each. Added: the median with the guardrail less the median without. "
        "The rows marked \"hooks in process\" time the guardrail's two hooks alone, called in the "
        "benchmark's process with LiteLLM's own response objects (without: the response made, or the "
        "chunks read, with no hook): turngate's own share of the added time, free of the network's noise.", "",
        *lines(results), "",
        "The proxies' own processor time per request (user and system, read from /proc before and "
        "after the timed requests), which the other processes on the machine hardly move:", "",
        "| request | without guardrail µs | with guardrail µs | added µs |", "|---|---:|---:|---:|",
        *[f"| {name} | {result['proxy_cpu_us']['plain']} | {result['proxy_cpu_us']['gated']} | "
          f"{result['proxy_cpu_us']['gated'] - result['proxy_cpu_us']['plain']} |"
          for name, result in results.items() if "proxy_cpu_us" in result], ""])


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--requests", type=int, default=200, help="timed requests per proxy and case (default 200)")
    options.add_argument("--write", action="store_true", help="write benchmarks/litellm_latency.md")
    args = options.parse_args()
    load = os.getloadavg()[0]
    results = measure(args.requests) | in_process(10 * args.requests)
    print("\n".join(lines(results)))
    print(json.dumps(results, indent=1))
    if args.write:
        (HERE / "litellm_latency.md").write_text(document(results, load), encoding="utf-8")


if __name__ == "__main__":
    main()
