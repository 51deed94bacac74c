"""Obtaining the official JSON-Schema-Test-Suite: it ships inside the `jsonschema` source
distribution (folder `json/tests`). Downloaded once into the git-ignored `.cache/`."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache"
SUITE = CACHE / "JSON-Schema-Test-Suite"
VERSION = "4.26.0"
DRAFTS = ("draft3", "draft4", "draft6", "draft7", "draft2019-09", "draft2020-12", "draft-next")


class SuiteUnavailable(Exception):
    pass


def obtain_suite() -> Path:
    """The suite's `tests` folder; downloads it when the cache has none. Raises when it
    cannot be obtained: a conformance test must never pass without the suite."""
    if all((SUITE / draft).is_dir() for draft in DRAFTS):
        return SUITE
    downloads = CACHE / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    archive = downloads / f"jsonschema-{VERSION}.tar.gz"
    if not archive.is_file():
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
             f"jsonschema=={VERSION}", "-d", str(downloads)],
            capture_output=True, text=True)
        if done.returncode != 0 or not archive.is_file():
            raise SuiteUnavailable(f"pip download of jsonschema=={VERSION} failed:\n{done.stderr[-2000:]}")
    prefix = f"jsonschema-{VERSION}/json/tests/"
    partial = SUITE.with_name(SUITE.name + ".partial")
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(prefix) and m.isfile()]
        if not members:
            raise SuiteUnavailable(f"{archive} holds no {prefix} folder")
        for member in members:
            member.name = member.name[len(prefix):]
        tar.extractall(partial, members=members, filter="data")
    partial.rename(SUITE)
    return SUITE
