"""The skip promise against the official JSON-Schema-Test-Suite: no instance the suite marks
valid is refused, in any draft folder, optional ones included, under any shipped table."""

from __future__ import annotations

import json

import pytest

import turngate
from suite import DRAFTS, SuiteUnavailable, obtain_suite


@pytest.fixture(scope="session")
def suite():
    try:
        return obtain_suite()
    except SuiteUnavailable as error:
        pytest.fail(f"the JSON-Schema-Test-Suite could not be obtained: {error}", pytrace=False)


def valid_instances(folder):
    for path in sorted(folder.rglob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            for test in case["tests"]:
                if test["valid"]:
                    yield path.relative_to(folder), case, test


@pytest.mark.parametrize("table", sorted(turngate.shipped_tables()))
@pytest.mark.parametrize("draft", DRAFTS)
def test_no_valid_instance_is_refused(suite, draft, table):
    folder = suite / draft
    checked, refused = 0, []
    for file, case, test in valid_instances(folder):
        verdict = turngate.compile_schema(case["schema"], table).check(test["data"])
        checked += 1
        if not verdict.ok:
            refused.append(f"{file}: {case['description']} / {test['description']}: "
                           f"{[m.message for m in verdict.mismatches]}")
    assert (folder / "optional").is_dir()
    assert checked > 300, f"only {checked} valid instances found in {folder}"
    assert not refused, f"{len(refused)} valid instances refused:\n" + "\n".join(refused[:20])
