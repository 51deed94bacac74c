"""Sums up a survey (TURNGATE_SURVEY=FILE, see differential_survey.py): each kind of broken
promise found, how often, and its shortest recorded case.

    python3 tests/survey_report.py FILE [--all]
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict


def main(path: str, every: bool = False) -> None:
    cases: dict[str, list[str]] = defaultdict(list)
    counts: Counter = Counter()
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if "counts" in record:
                counts.update(record["kinds"])
            else:
                cases[record["kind"]].append(record["details"])
    for kind in sorted(cases, key=lambda kind: -counts.get(kind, len(cases[kind]))):
        print(f"== {kind}  ({counts.get(kind, len(cases[kind]))} found)")
        for details in sorted(cases[kind], key=len)[: None if every else 1]:
            print("   " + details.replace("\n", "\n   ")[:3000])
        print()


if __name__ == "__main__":
    main(sys.argv[1], "--all" in sys.argv[2:])
