"""The wheel carries the package `turngate` (its source is engine/), its tables and the demo,
and nothing named `engine`: built, installed into a fresh virtual environment, and run there
on an example, away from the checkout."""

from __future__ import annotations

import json
import subprocess
import sys
import venv
import zipfile

from conftest import EXAMPLES, ROOT
from turngate.cli.demo import INSTALL_MCP


def built_wheel(tmp_path):
    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(wheels), str(ROOT)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = wheels.glob("turngate-*.whl")
    return wheel


def installed(tmp_path, requirement: str):
    """A fresh virtual environment with `requirement` installed; its folder."""
    environment = tmp_path / "env"
    venv.create(environment, with_pip=True)
    done = subprocess.run([str(environment / "bin" / "python"), "-m", "pip", "install", "-q", requirement],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return environment


def test_the_wheel_installs_into_a_fresh_environment_and_checks_an_example(tmp_path):
    wheel = built_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    assert "turngate/rules/adr246.rules" in names and "turngate/table/grammar.lark" in names
    assert "turngate/mcp/demo_turn.json" in names and "turngate/mcp/demo_server.py" in names
    assert "turngate/py.typed" in names and "turngate-0.1.0.dist-info/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(wheel).read("turngate-0.1.0.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata and "Classifier: Typing :: Typed" in metadata
    assert "Project-URL: Source, " in metadata and "Project-URL: Documentation, " in metadata
    packaged = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert packaged == {"turngate"}, packaged
    # Every module of the source is in the wheel, under its installed name.
    sources = {"turngate/" + path.relative_to(ROOT / "engine").as_posix()
               for path in (ROOT / "engine").rglob("*.py")}
    assert sources <= set(names), sources - set(names)

    environment = installed(tmp_path, str(wheel))
    python = environment / "bin" / "python"

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import turngate, json, importlib.util; print(json.dumps([turngate.__file__, "
                            "{k: str(v) for k, v in turngate.shipped_tables().items()}, "
                            "importlib.util.find_spec('engine') is None]))"],
        capture_output=True, text=True, cwd=elsewhere)
    module, tables, no_engine = json.loads(where.stdout)
    assert module.startswith(str(environment)) and no_engine
    assert tables["adr246"].startswith(str(environment)) and tables["adr246"].endswith("turngate/rules/adr246.rules")

    checked = subprocess.run(
        [str(environment / "bin" / "turngate"), "check",
         str(EXAMPLES / "update_page_metadata.schema.json"), str(EXAMPLES / "update_page_metadata.bad.json")],
        capture_output=True, text=True, cwd=elsewhere)
    assert checked.returncode == 1, checked.stderr
    assert checked.stdout.startswith('Refused: the arguments do not match the schema of tool "update_page_metadata"')
    assert '- "uid" must be an integer, but an object was sent.' in checked.stdout

    demo = subprocess.run([str(environment / "bin" / "turngate"), "demo"], capture_output=True, text=True,
                          cwd=elsewhere)
    assert (demo.returncode, demo.stdout) == (2, "")
    assert demo.stderr == f"turngate: {INSTALL_MCP}\n"


def test_the_demo_runs_from_the_wheel_with_the_mcp_extra(tmp_path):
    """The recorded turn and the example server ship inside the package."""
    environment = installed(tmp_path, f"{built_wheel(tmp_path)}[mcp]")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    demo = subprocess.run([str(environment / "bin" / "turngate"), "demo"], capture_output=True, text=True,
                          cwd=elsewhere, timeout=120)
    assert (demo.returncode, demo.stderr) == (0, ""), demo.stderr[-3000:]
    from_checkout = subprocess.run([sys.executable, "-m", "turngate.cli", "demo"], capture_output=True, text=True,
                                   cwd=ROOT, timeout=120)
    assert demo.stdout == from_checkout.stdout
    assert demo.stdout.endswith("Calls sent to the server so far: 2.\n")
