"""The benchmark's smoke run (benchmarks/run.py --smoke): it runs on a few hundred real BFCL
calls, and turngate and every peer validator agree on which of them are clearly invalid
and that the ground truth jsonschema accepts is valid. It downloads the pinned bfcl-eval
wheel once into the git-ignored .cache/; when that cannot be done it fails, never skips."""

from __future__ import annotations

import pytest

import subprocess
import sys
from pathlib import Path

#: Builds the BFCL corpus and times every validator on a sample.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "benchmarks" / "run.py"


def test_benchmark_smoke_runs_and_validators_agree():
    done = subprocess.run([sys.executable, str(RUN), "--smoke"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    shown = f"stdout:\n{done.stdout[-4000:]}\nstderr:\n{done.stderr[-4000:]}"
    assert done.returncode != 2, f"the BFCL corpus could not be obtained\n{shown}"
    assert done.returncode == 0, f"the smoke run failed (exit {done.returncode})\n{shown}"
    assert "smoke: 300 calls, 0 disagreements" in done.stdout, shown
    assert "| valid | turngate |" in done.stdout, shown
