"""Instructions per gated turn, this tree against a commit (an A/B of a change to the check
path, with no timing: callgrind counts the instructions, so a loaded machine does not matter).

    python benchmarks/turn_instructions.py BASE_COMMIT [--turns 5000] [--repeats 2]

Each side's package is the tree as files (the commit's through `git archive`), imported as
`turngate`; each kind of turn is decided `--turns` times more in one run than in another, under
`valgrind --tool=callgrind` with a fixed hash seed, and the difference divided: start-up and
compiling cancel out. Needs valgrind.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("fits", "text", "refused")

#: One process: decides a turn of KIND, N times, with the turngate found first on sys.path.
PROGRAM = """
import json, sys
sys.path.insert(0, sys.argv[1])
from turngate import Toolset, check_turn
kind, n = sys.argv[2], int(sys.argv[3])
examples = sys.argv[4]
schema = json.load(open(examples + "/update_page_metadata.schema.json"))
page = {"type": "object", "required": ["uid"], "properties": {"uid": {"type": "integer"}}}
tools = Toolset({"update_page_metadata": schema, "get_page": page})
good = {"uid": 42, "status": "review", "fields": {"title": "Opening hours", "keywords": ["a", "b"]}}
bad = {"uid": "x", "status": "archived", "fields": {}}
turn = {"fits": [{"id": "c1", "tool": "get_page", "arguments": {"uid": 42}},
                 {"id": "c2", "tool": "update_page_metadata", "arguments": good}],
        "text": [{"id": "c1", "tool": "get_page", "arguments": '{"uid": 42}'},
                 {"id": "c2", "tool": "update_page_metadata", "arguments": json.dumps(good)}],
        "refused": [{"id": "c1", "tool": "get_page", "arguments": {"uid": 42}},
                    {"id": "c2", "tool": "update_page_metadata", "arguments": bad}]}[kind]
check_turn(turn, tools)
for _ in range(n):
    check_turn(turn, tools)
"""


def package_tree(source: Path | None, commit: str | None, into: Path) -> Path:
    """A folder holding `turngate/` (engine/ with rules/ inside) of the tree, or of `commit`."""
    if commit is not None:
        archive = subprocess.run(["git", "archive", commit, "engine", "rules"], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
        source = into
    assert source is not None
    target = into / "package"
    shutil.copytree(source / "engine", target / "turngate")
    shutil.copytree(source / "rules", target / "turngate" / "rules")
    return target


def instructions(package: Path, kind: str, turns: int) -> int:
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c",
                           PROGRAM, str(package), kind, str(turns), str(ROOT / "examples")],
                          capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, check=True)
    line = next(line for line in done.stderr.splitlines() if "Collected" in line)
    return int(line.split()[-1])


def per_turn(package: Path, kind: str, turns: int) -> float:
    return (instructions(package, kind, 2 * turns) - instructions(package, kind, turns)) / turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the commit to compare with (e.g. HEAD~1)")
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as base_dir, tempfile.TemporaryDirectory() as new_dir:
        sides = {"base": package_tree(None, args.base, Path(base_dir)), "this": package_tree(ROOT, None, Path(new_dir))}
        for kind in KINDS:
            counts = {side: [per_turn(package, kind, args.turns) for _ in range(args.repeats)]
                      for side, package in sides.items()}
            base, this = min(counts["base"]), min(counts["this"])
            print(f"{kind:>8}: base {base:9.0f}  this {this:9.0f}  ({(this - base) / base:+.2%})  "
                  f"runs {counts}", flush=True)


if __name__ == "__main__":
    main()
