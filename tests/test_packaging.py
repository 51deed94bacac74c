"""The wheel carries the package `turngate` (its source is engine/), its tables and the demo,
and nothing named `engine`: built once, installed once with the MCP extra into a fresh
virtual environment, and run there, away from the checkout. The sdist holds what builds that
same wheel and no tests: they need the whole checkout (docs, examples, snapshots, .ci/run)."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile

import pytest

from conftest import EXAMPLES, ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    wheels = tmp_path_factory.mktemp("wheels")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(wheels), str(ROOT)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    (found,) = wheels.glob("turngate-*.whl")
    return found


@pytest.fixture(scope="module")
def environment(wheel, tmp_path_factory):
    """A fresh virtual environment with the wheel and its MCP extra installed; its folder."""
    folder = tmp_path_factory.mktemp("env")
    venv.create(folder, with_pip=True)
    done = subprocess.run([str(folder / "bin" / "python"), "-m", "pip", "install", "-q", f"{wheel}[mcp]"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


def test_the_wheel_holds_the_package_its_data_and_its_metadata(wheel):
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


def test_installed_it_imports_as_turngate_and_checks_an_example(environment, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [str(environment / "bin" / "python"), "-c", "import turngate, json, importlib.util; print(json.dumps(["
         "turngate.__file__, {k: str(v) for k, v in turngate.shipped_tables().items()}, "
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


def test_the_demo_runs_from_the_wheel(environment, tmp_path):
    """The recorded turn and the example server ship inside the package."""
    demo = subprocess.run([str(environment / "bin" / "turngate"), "demo"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert (demo.returncode, demo.stderr) == (0, ""), demo.stderr[-3000:]
    from_checkout = subprocess.run([sys.executable, "-m", "turngate.cli", "demo"], capture_output=True, text=True,
                                   cwd=ROOT, timeout=120)
    assert demo.stdout == from_checkout.stdout
    assert demo.stdout.endswith("Calls sent to the server so far: 2.\n")


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    """The sdist, built by the build backend pyproject.toml names, in a venv of its own."""
    folder = tmp_path_factory.mktemp("sdist")
    venv.create(folder / "builder", with_pip=True)
    python = str(folder / "builder" / "bin" / "python")
    backend = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
    done = subprocess.run([python, "-m", "pip", "install", "-q", *backend["requires"]], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    built = subprocess.run([python, "-c", f"import sys, {backend['build-backend']} as backend; "
                            "print(backend.build_sdist(sys.argv[1]))", str(folder)],
                           capture_output=True, text=True, cwd=ROOT)
    assert built.returncode == 0, built.stderr[-3000:]
    return folder / built.stdout.splitlines()[-1]


def test_the_sdist_ships_no_tests_and_builds_the_same_wheel(sdist, wheel, tmp_path):
    names = [name.split("/", 1)[1] for name in tarfile.open(sdist).getnames() if "/" in name]
    assert not [name for name in names if name.split("/")[0] in ("tests", "snapshots", "examples", "docs")]
    assert {"pyproject.toml", "README.md", "LICENSE", "rules/adr246.rules", "engine/table/grammar.lark",
            "engine/mcp/demo_turn.json"} <= set(names)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path), str(sdist)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    (from_sdist,) = tmp_path.glob("turngate-*.whl")
    assert sorted(zipfile.ZipFile(from_sdist).namelist()) == sorted(zipfile.ZipFile(wheel).namelist())
