"""Helpers the tests share."""

from __future__ import annotations

import engine


def verdict(schema, arguments, table=None):
    return engine.compile_schema(schema, table).check(arguments)


def codes_and_paths(schema, arguments, table=None):
    return [(m.code, m.path) for m in verdict(schema, arguments, table).mismatches]


def refusal(schema, arguments, tool="update_page_metadata", table=None):
    compiled = engine.compile_schema(schema, table)
    return compiled.refusal(tool, compiled.check(arguments))
