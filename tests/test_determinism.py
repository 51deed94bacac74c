"""The same schema and arguments give byte-identical output in every process, whatever
PYTHONHASHSEED is."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import EXAMPLES, ROOT

SCRIPT = r"""
import json, sys
sys.path.insert(0, "tests")
import turngate
from turngate.check.convert import to_data
from test_messages import CASES, KEYS, OPEN, QUOTING, STRING
out = []
for name, (schema, arguments) in sorted(CASES.items()):
    compiled = turngate.compile_schema(schema)
    verdict = compiled.check(arguments)
    out.append(json.dumps(to_data(verdict), ensure_ascii=False))
    out.append(compiled.refusal(name, verdict))
for value in [*QUOTING.values(), *KEYS.values()]:
    out.append(repr([m.message for m in turngate.compile_schema(STRING).check({"v": value}).mismatches]))
closest = {"type": "object", "properties": {n: {} for n in ["abcd", "abce", "abdc", "bacd"]},
           "additionalProperties": False}
out.append(repr(turngate.compile_schema(closest).check({"abcx": 1, "bcad": 2}).mismatches))
sys.stdout.buffer.write("\n".join(out).encode("utf-8"))
"""


def run(seed: str, *argv: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run([sys.executable, *argv], capture_output=True, cwd=ROOT, env=env)
    assert done.stderr == b"", done.stderr.decode()
    return done.stdout


def test_verdicts_and_messages_are_identical_under_any_hash_seed():
    outputs = {seed: run(seed, "-c", SCRIPT) for seed in ("0", "1", "4242", "random")}
    assert len(outputs["0"]) > 1000
    assert len(set(outputs.values())) == 1


def test_the_batch_command_is_identical_under_any_hash_seed():
    argv = ("-m", "turngate.cli", "batch", str(EXAMPLES / "corpus.jsonl"))
    outputs = {run(seed, *argv) for seed in ("0", "1", "4242")}
    assert len(outputs) == 1 and outputs.pop().count(b"\n") == 5
