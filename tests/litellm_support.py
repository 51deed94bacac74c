"""The real LiteLLM proxy for the guardrail's tests and benchmark: started as its command line
starts it (`litellm --config ...`) on a free port of 127.0.0.1, offline (the local model cost
map, no callbacks), with the config the docs show (examples/gateway/config.yaml), or that
config without its guardrail."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import yaml

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "examples" / "gateway" / "config.yaml"
MASTER_KEY = "sk-turngate-test"
MODEL = "gpt-4o"  # the config's model group
LITELLM = Path(sys.executable).parent / "litellm"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def config_without_guardrail(folder: Path) -> Path:
    """The docs' config with its `guardrails` left out: the proxy as it runs without turngate."""
    config = yaml.safe_load(CONFIG.read_text())
    config.pop("guardrails")
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def config_with_telemetry(folder: Path) -> Path:
    """The docs' config with the guardrail's `telemetry: true` and LiteLLM's own OpenTelemetry
    set-up (its `otel` callback), as docs/gateway.md shows them."""
    config = yaml.safe_load(CONFIG.read_text())
    config["guardrails"][0]["litellm_params"]["telemetry"] = True
    config["litellm_settings"] = {"callbacks": ["otel"]}
    path = folder / "config-telemetry.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


#: The variables LiteLLM's OpenTelemetry set-up reads: the standard OTLP ones, and its own
#: switch for metrics (without it LiteLLM sets up no meter provider, and no counter is sent).
def otel_variables(endpoint: str) -> dict[str, str]:
    return {"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
            "LITELLM_OTEL_INTEGRATION_ENABLE_METRICS": "true", "OTEL_BSP_SCHEDULE_DELAY": "100"}


class Proxy:
    """A started proxy: `base_url` for the `openai` client, `folder` its working folder (where
    the config's `steps` file is written)."""

    def __init__(self, config: Path, folder: Path, upstream_base: str, **variables: str):
        self.folder, self.port = folder, free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        environment = {name: value for name, value in os.environ.items() if not name.startswith("LITELLM")}
        environment |= {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_MASTER_KEY": MASTER_KEY,
                        "UPSTREAM_API_BASE": upstream_base, "UPSTREAM_API_KEY": "sk-upstream",
                        "LITELLM_LOG": "ERROR", "NO_PROXY": "127.0.0.1,localhost", **variables}
        self.log = (folder / "proxy.log").open("wb")
        self.process = subprocess.Popen(
            [str(LITELLM), "--config", str(config), "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=folder, env=environment, stdout=self.log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the proxy stopped (exit {self.process.returncode}): {self.output()[-3000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health/liveliness", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"the proxy did not start in {timeout} s: {self.output()[-3000:]}")

    def output(self) -> str:
        self.log.flush()
        return (self.folder / "proxy.log").read_text(errors="replace")

    def interrupt(self) -> None:
        # SIGTERM: the server shuts down in a fraction of a second (after Ctrl-C, LiteLLM's
        # shutdown takes seconds).
        if self.process.poll() is None:
            self.process.terminate()

    def stop(self) -> None:
        self.interrupt()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


@contextmanager
def proxies(folder: Path, upstream_base: str, variables: dict[str, dict[str, str]] | None = None,
            **configs: Path) -> Iterator[dict[str, Proxy]]:
    """Proxies started side by side (each takes seconds to start), by name; `variables`: more
    of a proxy's environment, by its name."""
    started: dict[str, Proxy] = {}
    try:
        for name, config in configs.items():
            (folder / name).mkdir(exist_ok=True)
            started[name] = Proxy(config, folder / name, upstream_base, **(variables or {}).get(name, {}))
        for proxy in started.values():
            proxy.wait_ready()
        yield started
    finally:
        for proxy in started.values():
            proxy.interrupt()  # all at once: each takes seconds to shut down
        for proxy in started.values():
            proxy.stop()


def client(proxy: Proxy, **options: Any) -> Any:
    import openai

    return openai.OpenAI(base_url=proxy.base_url, api_key=MASTER_KEY, max_retries=0, **options)
