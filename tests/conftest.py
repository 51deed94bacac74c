"""Shared test set-up: snapshots live in the top-level `snapshots/` folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.extensions.amber import AmberSnapshotExtension

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


class TopLevelSnapshots(AmberSnapshotExtension):
    """One `.ambr` file per test module, in `snapshots/` rather than `__snapshots__/`."""

    @classmethod
    def dirname(cls, *, test_location) -> str:
        return str(ROOT / "snapshots")


@pytest.fixture
def snapshot(snapshot):
    return snapshot.use_extension(TopLevelSnapshots)


# The fuzz target (tests/test_fuzz.py) runs a short profile by default and in CI; the long
# run is `python -m pytest tests/test_fuzz.py --hypothesis-profile=fuzz --no-cov`.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("fuzz", max_examples=50_000, deadline=None,
                          suppress_health_check=list(HealthCheck))
