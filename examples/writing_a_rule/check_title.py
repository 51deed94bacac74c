"""Run from the repository's top folder:  python examples/writing_a_rule/check_title.py"""

from pathlib import Path

import turngate
import max_length  # noqa: F401  (registers the rule kind "max-length")

table = turngate.load_table(Path(__file__).parent / "host.rules")
schema = {"type": "object", "properties": {"title": {"type": "string", "maxLength": 20}}}
verdict = turngate.compile_schema(schema, table).check({"title": "Opening hours and holiday closures"})
print(verdict.mismatches[0].message)
