"""Helpers the tests share."""

from __future__ import annotations

import turngate


def verdict(schema, arguments, table=None):
    return turngate.compile_schema(schema, table).check(arguments)


def codes_and_paths(schema, arguments, table=None):
    return [(m.code, m.path) for m in verdict(schema, arguments, table).mismatches]


def refusal(schema, arguments, tool="update_page_metadata", table=None):
    compiled = turngate.compile_schema(schema, table)
    return compiled.refusal(tool, compiled.check(arguments))


#: What a message may never hold raw: control, format, surrogate, private-use and
#: unassigned characters, line and paragraph separators (escaped as \uXXXX instead).
RAW_CONTROLS = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def one_clean_line(text: str) -> bool:
    import unicodedata
    return not any(unicodedata.category(char) in RAW_CONTROLS for char in text)
