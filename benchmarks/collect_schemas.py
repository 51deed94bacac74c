"""Re-collect the corpus of real tool input schemas in benchmarks/schemas/.

    python benchmarks/collect_schemas.py                 # everything
    python benchmarks/collect_schemas.py git pydantic    # only these outputs

What it writes: one `mcp-<server>.json` per MCP server below, holding the `tools/list`
result (name, description, inputSchema, and whatever else the server listed, in the
server's order, verbatim), and `pydantic-models.json`, holding `Model.model_json_schema()`
of the tool-input models in `schemas/pydantic_models.py`. They measure how much of
real-world schemas turngate can judge.

What it installs, all under a scratch folder (default /tmp/turngate-schemas, or
$COLLECT_SCHEMAS_SCRATCH), never into the project or the running Python:
- venv `mcp2`: the `mcp` 2.x SDK (the client used here), pydantic, and the Python servers
  that run on mcp 2.x; this file re-runs itself with that venv's Python.
- venv `mcp1`: Python servers that still need mcp 1.x (they fail to start on 2.x).
- `npm/`: the Node servers (Node 20 + npm), installed with --ignore-scripts because no
  server needs its install scripts just to list tools (puppeteer's would fetch a browser).
Versions are pinned, so re-running gives the same files; npm's transitive packages are
not locked, so each npm file names the MCP TypeScript SDK version that made its schemas.
Servers are started over stdio with no API keys and never asked to touch the network;
those needing a path get one in <scratch>/work (a folder, an empty git repo, a db file).
"""
import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SCRATCH = Path(os.environ.get("COLLECT_SCHEMAS_SCRATCH", "/tmp/turngate-schemas"))
OUT_DIR = Path(__file__).resolve().parent / "schemas"
WORK = SCRATCH / "work"
CLIENT_VENV = SCRATCH / "mcp2"
PYTHON_PINS = {
    "mcp2": ["mcp==2.3.0", "pydantic==2.14.4", "fastmcp==4.2.3",
             "mcp-server-fetch==2026.10.24", "mcp-server-git==2026.10.19",
             "mcp-server-time==2026.10.19", "duckduckgo-mcp-server==0.7.0",
             "mcp-server-motherduck==1.1.0"],
    "mcp1": ["mcp==1.30.0", "pydantic==2.14.4", "mcp-server-sqlite==2025.4.25",
             "arxiv-mcp-server==0.8.2"],
}
NPM_PINS = [
    "@modelcontextprotocol/server-filesystem@2026.8.31",
    "@modelcontextprotocol/server-memory@2026.8.31",
    "@modelcontextprotocol/server-everything@2026.8.31",
    "@modelcontextprotocol/server-sequential-thinking@2026.8.31",
    "@modelcontextprotocol/server-github@2025.4.8",
    "@modelcontextprotocol/server-puppeteer@2025.5.12",
    "@modelcontextprotocol/server-postgres@0.6.2",
]


@dataclass(frozen=True)
class Server:
    slug: str  # the output file is mcp-<slug>.json
    package: str  # as named on PyPI or npm
    where: str  # "mcp2" or "mcp1" (a venv) or "npm"
    command: str  # the executable the package installs
    args: tuple[str, ...] = ()  # "{work}" stands for the scratch work folder
    # Advertise sampling, elicitation and roots (declining any use): some servers list
    # more tools to a client that has them.
    client_features: bool = False


SERVERS = [
    Server("fetch", "mcp-server-fetch", "mcp2", "mcp-server-fetch"),
    Server("git", "mcp-server-git", "mcp2", "mcp-server-git", ("--repository", "{work}/git-repo")),
    Server("time", "mcp-server-time", "mcp2", "mcp-server-time"),
    Server("duckduckgo", "duckduckgo-mcp-server", "mcp2", "duckduckgo-mcp-server"),
    # An in-memory DuckDB is the one local database this server accepts without --read-write.
    Server("motherduck", "mcp-server-motherduck", "mcp2", "mcp-server-motherduck",
           ("--db-path", ":memory:", "--read-write")),
    Server("sqlite", "mcp-server-sqlite", "mcp1", "mcp-server-sqlite",
           ("--db-path", "{work}/test.db")),
    Server("arxiv", "arxiv-mcp-server", "mcp1", "arxiv-mcp-server",
           ("--storage-path", "{work}/papers")),
    Server("filesystem", "@modelcontextprotocol/server-filesystem", "npm", "mcp-server-filesystem",
           ("{work}/files",)),
    Server("memory", "@modelcontextprotocol/server-memory", "npm", "mcp-server-memory"),
    Server("everything", "@modelcontextprotocol/server-everything", "npm", "mcp-server-everything",
           client_features=True),
    Server("sequential-thinking", "@modelcontextprotocol/server-sequential-thinking", "npm",
           "mcp-server-sequential-thinking"),
    # Lists its tools without a token; only calls would need GITHUB_PERSONAL_ACCESS_TOKEN.
    Server("github", "@modelcontextprotocol/server-github", "npm", "mcp-server-github"),
    Server("puppeteer", "@modelcontextprotocol/server-puppeteer", "npm", "mcp-server-puppeteer"),
    # The pool connects lazily, so no PostgreSQL needs to run for tools/list.
    Server("postgres", "@modelcontextprotocol/server-postgres", "npm", "mcp-server-postgres",
           ("postgresql://localhost/unused",)),
]


# ---- Stage 1, any Python 3.11+: make the scratch installs, then re-run in the mcp2 venv.

def run(*cmd: str | Path, **kwargs) -> None:
    subprocess.run([str(c) for c in cmd], check=True, **kwargs)


def ensure_installed(stamp: Path, pins: list[str], install) -> None:
    """Run install() unless the stamp file says these exact pins are already in place."""
    wanted = "\n".join(pins)
    if stamp.exists() and stamp.read_text() == wanted:
        return
    install()
    stamp.write_text(wanted)


def ensure_scratch_installs() -> None:
    for venv_name, pins in PYTHON_PINS.items():
        venv = SCRATCH / venv_name

        def install(venv=venv, pins=pins):
            run(sys.executable, "-m", "venv", venv)
            run(venv / "bin" / "python", "-m", "pip", "install", "-q", *pins)
        ensure_installed(venv / "collect-pins.txt", pins, install)
    npm = SCRATCH / "npm"
    npm.mkdir(parents=True, exist_ok=True)
    ensure_installed(npm / "collect-pins.txt", NPM_PINS, lambda: run(
        "npm", "install", "--prefix", npm, "--ignore-scripts", "--no-audit", "--no-fund",
        "--save-exact", *NPM_PINS))


def prepare_work_folder() -> None:
    """The paths that the filesystem, git, sqlite and arxiv servers are started with."""
    (WORK / "files").mkdir(parents=True, exist_ok=True)
    (WORK / "papers").mkdir(parents=True, exist_ok=True)
    repo = WORK / "git-repo"
    if not (repo / ".git").exists():
        run("git", "init", "-q", repo)
        run("git", "-C", repo, "-c", "user.name=collect", "-c", "user.email=collect@localhost",
            "commit", "-q", "--allow-empty", "-m", "empty")


if __name__ == "__main__" and Path(sys.prefix).resolve() != CLIENT_VENV.resolve():
    ensure_scratch_installs()
    prepare_work_folder()
    client_python = str(CLIENT_VENV / "bin" / "python")
    os.execv(client_python, [client_python, __file__, *sys.argv[1:]])

# ---- Stage 2, inside the mcp2 venv: dump the pydantic models, list the servers' tools.
import importlib.metadata  # noqa: E402
import importlib.util  # noqa: E402

import anyio  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.types import INVALID_REQUEST, ErrorData, PaginatedRequestParams  # noqa: E402


def write_json(name: str, data: dict) -> None:
    with open(OUT_DIR / name, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=False, ensure_ascii=False)
        f.write("\n")


def dump_pydantic_models() -> int:
    # Loaded by path: the schemas folder is data, not a package on sys.path.
    sys.dont_write_bytecode = True  # and no __pycache__ left in it
    spec = importlib.util.spec_from_file_location("pydantic_models", OUT_DIR / "pydantic_models.py")
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    tools = [{"name": m.__name__, "inputSchema": m.model_json_schema()} for m in models.TOOL_MODELS]
    source = f"pydantic {importlib.metadata.version('pydantic')}"
    write_json("pydantic-models.json", {"source": source, "tools": tools})
    return len(tools)


def executable(server: Server) -> Path:
    if server.where == "npm":
        return SCRATCH / "npm" / "node_modules" / ".bin" / server.command
    return SCRATCH / server.where / "bin" / server.command


def package_version(server: Server) -> str:
    if server.where == "npm":
        return npm_version(server.package)
    pin = next(p for p in PYTHON_PINS[server.where] if p.startswith(server.package + "=="))
    return pin.split("==")[1]


def npm_version(package: str, inside: str = "") -> str:
    """The installed version; with inside, as resolved from that package (nested first)."""
    modules = SCRATCH / "npm" / "node_modules"
    nested = [modules / inside / "node_modules" / package] if inside else []
    for candidate in nested + [modules / package]:
        if (candidate / "package.json").exists():
            return json.loads((candidate / "package.json").read_text())["version"]
    raise FileNotFoundError(package)


class ToolsListTap:
    """The transport's read stream, keeping each tools/list result as the server sent it.

    The SDK's Tool model dumps a tool's own keys in its field order, not the server's (the
    inputSchema itself is kept as sent), so the files take the tools from the raw reply.
    """

    def __init__(self, stream):
        self.stream, self.pages = stream, []

    def __getattr__(self, name):  # the dispatcher reads e.g. last_context off the stream
        return getattr(self.stream, name)

    async def __aenter__(self):
        await self.stream.__aenter__()
        return self

    async def __aexit__(self, *exc_info):
        return await self.stream.__aexit__(*exc_info)

    def __aiter__(self):
        return self

    async def __anext__(self):
        item = await self.stream.__anext__()
        result = getattr(getattr(item, "message", None), "result", None)
        if isinstance(result, dict) and "tools" in result:
            self.pages.append(result["tools"])
        return item


async def decline(*_args) -> ErrorData:
    """Sampling, elicitation and roots callback: the feature is there, but never used."""
    return ErrorData(code=INVALID_REQUEST, message="declined by collect_schemas.py")


async def list_tools(server: Server) -> tuple[list[dict], str]:
    """Start the server over stdio, list every tool page; return the tools and a reply summary."""
    args = [a.replace("{work}", str(WORK)) for a in server.args]
    params = StdioServerParameters(command=str(executable(server)), args=args, cwd=str(WORK))
    (SCRATCH / "logs").mkdir(exist_ok=True)
    with open(SCRATCH / "logs" / f"{server.slug}.log", "w") as errlog, anyio.fail_after(120):
        async with stdio_client(params, errlog=errlog) as (read, write):
            tap = ToolsListTap(read)
            features = {"sampling_callback": decline, "elicitation_callback": decline,
                        "list_roots_callback": decline} if server.client_features else {}
            async with ClientSession(tap, write, **features) as session:
                init = await session.initialize()
                listed, cursor = [], None
                while True:  # the SDK validates each page; the tap keeps it verbatim
                    page = await session.list_tools(
                        params=PaginatedRequestParams(cursor=cursor) if cursor else None)
                    listed += [tool.name for tool in page.tools]
                    if not (cursor := page.next_cursor):
                        break
    tools = [tool for raw_page in tap.pages for tool in raw_page]
    if [tool["name"] for tool in tools] != listed:
        raise RuntimeError("the raw tools/list replies differ from what the SDK listed")
    info = init.server_info
    reply = (f"server reports {info.name} {info.version or '(no version)'}, "
             f"protocol {init.protocol_version}")
    return tools, reply


def describe_source(server: Server, reply: str) -> str:
    registry = "npm" if server.where == "npm" else "PyPI"
    shown_args = [a.replace("{work}", "<scratch>/work") for a in server.args]
    sdk = (f"@modelcontextprotocol/sdk {npm_version('@modelcontextprotocol/sdk', server.package)}"
           if server.where == "npm" else f"mcp {PYTHON_PINS[server.where][0].split('==')[1]}")
    client = f"the mcp {importlib.metadata.version('mcp')} Python SDK client"
    if server.client_features:
        client += " advertising sampling, elicitation and roots"
    return (f"{server.package} {package_version(server)} from {registry} (built on {sdk}), "
            f"started over stdio as `{' '.join([server.command, *shown_args])}`; {reply}; "
            f"tools/list by {client}")


async def collect_server(server: Server) -> int:
    tools, reply = await list_tools(server)
    source = describe_source(server, reply)
    write_json(f"mcp-{server.slug}.json", {"source": source, "tools": tools})
    return len(tools)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="server slugs and/or 'pydantic'; default all")
    only = set(parser.parse_args().only)
    if unknown := only - {server.slug for server in SERVERS} - {"pydantic"}:
        parser.error(f"unknown: {', '.join(sorted(unknown))}")
    OUT_DIR.mkdir(exist_ok=True)
    failed = []
    if not only or "pydantic" in only:
        print(f"pydantic-models.json: {dump_pydantic_models()} tools")
    for server in SERVERS:
        if only and server.slug not in only:
            continue
        try:  # one server failing must not cost the others' files
            print(f"mcp-{server.slug}.json: {anyio.run(collect_server, server)} tools")
        except Exception as error:  # noqa: BLE001 - reported, then the exit code says so
            failed.append(server.slug)
            log = SCRATCH / "logs" / f"{server.slug}.log"
            print(f"mcp-{server.slug}.json: FAILED ({error!r}); see {log}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
