"""Shared test set-up: snapshots live in the top-level `snapshots/` folder."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from syrupy.extensions.amber import AmberSnapshotExtension

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

#: Test files of frameworks that need an environment of their own, with the module each needs:
#: collected only where that module is installed (the matrix runs them in their environments).
FRAMEWORK_TESTS: dict[str, str] = {
    "test_integration_llamaindex.py": "llama_index.core",
    "test_integration_adk.py": "google.adk",
    "test_integration_adk_stops.py": "google.adk",
    "test_integration_crewai.py": "crewai",
    # litellm[proxy] pins rich<14, which the test extra's import-linter cannot live with.
    "test_integration_litellm.py": "litellm",
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


collect_ignore = [name for name, module in FRAMEWORK_TESTS.items() if not _installed(module)]


class TopLevelSnapshots(AmberSnapshotExtension):
    """One `.ambr` file per test module, in `snapshots/` rather than `__snapshots__/`."""

    @classmethod
    def dirname(cls, *, test_location) -> str:
        return str(ROOT / "snapshots")


@pytest.fixture
def snapshot(snapshot):
    return snapshot.use_extension(TopLevelSnapshots)


# The fuzz target (tests/test_fuzz.py) runs a short profile by default and in CI; the long
# run is `python -m pytest tests/test_fuzz.py --hypothesis-profile=fuzz --no-cov -n 0`.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("fuzz", max_examples=50_000, deadline=None,
                          suppress_health_check=list(HealthCheck))

# The differential test (tests/test_differential.py) runs "differential-ci" by default (CI,
# about half a minute); the long run is `python3 -m pytest tests/test_differential.py
# --hypothesis-profile=differential-long --no-cov -n 0 -p no:cacheprovider`. Its three tests (one
# per shipped table) run one after another, so each gets a large but finite budget (ten minutes
# or more each) rather than the first one running forever.
# 150 examples per table: the drafts (draft-03 too) and their keywords share them.
settings.register_profile("differential-ci", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.filter_too_much])
# TURNGATE_LONG_EXAMPLES=N sets the long profiles' budget (per table here, for the main
# turn-fuzz test there), to fit a run into the time it has: stop a long run by its budget,
# never by a signal (hypothesis then writes out strategies too large to write).
_LONG_EXAMPLES = os.environ.get("TURNGATE_LONG_EXAMPLES")
settings.register_profile("differential-long", max_examples=int(_LONG_EXAMPLES or 30_000), deadline=None,
                          suppress_health_check=list(HealthCheck))

# The turn fuzzer (tests/test_turn_fuzz.py, and tests/test_turn_fuzz_processes.py, which
# starts a process per batch of turns (replay) or per turn (check-turn)) runs a CI profile
# per test by default; the long run is `python3 -m pytest tests/test_turn_fuzz.py
# tests/test_turn_fuzz_processes.py --hypothesis-profile=turn-fuzz-long --no-cov -n 0 -p
# no:cacheprovider`, which gives each test its budget in LONG_BUDGETS
# (tests/turn_fuzz_support.py): 20,000 turns, 200 replayed batches, 300 commands.
# Any long run: TURNGATE_SURVEY=FILE records every broken promise and goes on (SECURITY.md).
_turn_fuzz_health = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("turn-fuzz-ci", max_examples=250, deadline=None, suppress_health_check=_turn_fuzz_health)
settings.register_profile("turn-fuzz-replay-ci", max_examples=2, deadline=None,
                          suppress_health_check=_turn_fuzz_health)
settings.register_profile("turn-fuzz-command-ci", max_examples=6, deadline=None,
                          suppress_health_check=_turn_fuzz_health)
settings.register_profile("turn-fuzz-long", max_examples=int(_LONG_EXAMPLES or 20_000), deadline=None,
                          suppress_health_check=list(HealthCheck))
