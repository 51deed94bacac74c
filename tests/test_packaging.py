"""The wheel carries the engine and its tables: built, installed into a fresh virtual
environment, and run there on an example, away from the checkout."""

from __future__ import annotations

import json
import subprocess
import sys
import venv
import zipfile

from conftest import EXAMPLES, ROOT


def test_the_wheel_installs_into_a_fresh_environment_and_checks_an_example(tmp_path):
    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(wheels), str(ROOT)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = wheels.glob("turngate-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "engine/rules/adr246.rules" in names and "engine/table.lark" in names

    environment = tmp_path / "env"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    installed = subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)],
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr[-3000:]

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import engine, json; print(json.dumps([engine.__file__, "
                            "{k: str(v) for k, v in engine.shipped_tables().items()}]))"],
        capture_output=True, text=True, cwd=elsewhere)
    module, tables = json.loads(where.stdout)
    assert module.startswith(str(environment))
    assert tables["adr246"].startswith(str(environment)) and tables["adr246"].endswith("engine/rules/adr246.rules")

    checked = subprocess.run(
        [str(environment / "bin" / "turngate"), "check",
         str(EXAMPLES / "update_page_metadata.schema.json"), str(EXAMPLES / "update_page_metadata.bad.json")],
        capture_output=True, text=True, cwd=elsewhere)
    assert checked.returncode == 1, checked.stderr
    assert checked.stdout.startswith('Refused: the arguments do not match the schema of tool "update_page_metadata"')
    assert '- "uid" must be an integer, but an object was sent.' in checked.stdout
