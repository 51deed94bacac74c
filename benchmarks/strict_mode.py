"""How many real tool schemas OpenAI's strict function calling accepts as they are.

    python3 benchmarks/strict_mode.py                 # the MCP schemas of benchmarks/schemas
    python3 benchmarks/strict_mode.py FILE... [--json]

A tool marked `"strict": true` is decoded under a grammar made from its schema, so its calls
always fit; but OpenAI accepts only schemas within a subset of JSON Schema, as its Structured
Outputs guide ("Supported schemas") documents it. `problems(schema)` checks a schema against
those documented rules, as they read for models that are not fine-tuned:

- the root is an object schema (`"type": "object"`), not `anyOf`;
- every object sets `additionalProperties: false` and lists every property in `required`
  (an optional argument is written as a required one that may be null);
- types are string, number, integer, boolean, object, array and null; `enum`, `const` and
  `anyOf` (below the root) are supported, and `$ref` to the root or to `$defs`/`definitions`;
- `allOf`, `not`, `if`/`then`/`else`, `dependentRequired` and `dependentSchemas` are not;
- `format` is one of date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid;
- at most 5,000 object properties in all, 10 levels of nested objects, 1,000 enum values,
  120,000 characters of property names, definition names, enum and const values, and for an
  enum of more than 250 texts, 15,000 characters of them.

Keywords the guide neither lists as supported nor as unsupported (`default`, `examples`,
`minLength`, ...) are let through: the count is what the documented rules refuse, no more.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

HERE = Path(__file__).resolve().parent
MCP_SCHEMAS = sorted(HERE.glob("schemas/mcp-*.json"))

TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
UNSUPPORTED = ("allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas")
FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
LIMITS = {"properties": 5000, "levels of nested objects": 10, "enum values": 1000, "characters": 120_000}
LONG_ENUM, LONG_ENUM_CHARACTERS = 250, 15_000
_ONE = ("items", "additionalProperties")
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAPS = ("properties", "$defs", "definitions", "patternProperties")


def problems(schema: object) -> list[str]:
    """Why OpenAI's strict mode would refuse a tool's parameters schema: each documented
    rule it breaks, once, in the order found (empty: accepted as it is)."""
    found: dict[str, None] = {}
    if not isinstance(schema, dict) or schema.get("type") != "object" or "anyOf" in schema:
        found["the root is not an object schema"] = None
    totals: Counter[str] = Counter()
    for node, nesting in _nodes(schema):
        for problem in _node_problems(node, nesting, totals):
            found.setdefault(problem, None)
    for name, limit in LIMITS.items():
        if totals[name] > limit:
            found[f"more than {limit:,} {name}"] = None
    return list(found)


def _node_problems(node: dict[str, Any], nesting: int, totals: Counter[str]) -> Iterator[str]:
    declared = node.get("type")
    types = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
    if any(name not in TYPES for name in types):
        yield "a type outside the subset"
    if "oneOf" in node:
        yield "oneOf (only anyOf is supported)"
    for keyword in UNSUPPORTED:
        if keyword in node:
            yield f"{keyword} is not supported"
    if "format" in node and node["format"] not in FORMATS:
        yield "a format outside the subset"
    reference = node.get("$ref")
    if isinstance(reference, str) and not (reference == "#" or reference.startswith(("#/$defs/", "#/definitions/"))):
        yield "a $ref outside the schema's definitions"
    if "object" in types or "properties" in node:
        properties = node.get("properties", {})
        if node.get("additionalProperties") is not False:
            yield "an object without additionalProperties: false"
        if isinstance(properties, dict) and set(properties) - set(node.get("required") or ()):
            yield "an optional property (strict mode requires every one)"
        totals["properties"] += len(properties) if isinstance(properties, dict) else 0
        totals["characters"] += sum(len(str(name)) for name in properties)
        totals["levels of nested objects"] = max(totals["levels of nested objects"], nesting)
    yield from _enum_problems(node, totals)


def _enum_problems(node: dict[str, Any], totals: Counter[str]) -> Iterator[str]:
    enum = node.get("enum")
    values: list[object] = enum if isinstance(enum, list) else []
    texts = [value for value in values if isinstance(value, str)]
    totals["enum values"] += len(values)
    totals["characters"] += sum(map(len, texts)) + (len(node["const"]) if isinstance(node.get("const"), str) else 0)
    if len(texts) > LONG_ENUM and sum(map(len, texts)) > LONG_ENUM_CHARACTERS:
        yield f"an enum of more than {LONG_ENUM} texts longer than {LONG_ENUM_CHARACTERS:,} characters"


def _nodes(schema: object) -> Iterator[tuple[dict[str, Any], int]]:
    """Every schema object below the root, each with how many objects enclose it."""
    pending: list[tuple[object, int]] = [(schema, 1)]
    while pending:
        node, nesting = pending.pop()
        if not isinstance(node, dict):
            continue
        yield node, nesting
        deeper = nesting + ("properties" in node)
        pending.extend((node[key], deeper) for key in _ONE if isinstance(node.get(key), dict))
        pending.extend((item, deeper) for key in _LISTS if isinstance(node.get(key), list) for item in node[key])
        pending.extend((item, deeper) for key in _MAPS if isinstance(node.get(key), dict)
                       for item in node[key].values())
        if isinstance(node.get("items"), list):
            pending.extend((item, deeper) for item in node["items"])


def tools_of(document: object) -> list[tuple[str, object]]:
    """(name, parameters schema) of each tool of a file, as MCP (`inputSchema`), Anthropic
    (`input_schema`) or OpenAI (`parameters`) list them."""
    listed = document.get("tools", []) if isinstance(document, dict) else document
    found = []
    for tool in listed if isinstance(listed, list) else []:
        tool = tool.get("function", tool) if isinstance(tool, dict) else {}
        for key in ("inputSchema", "input_schema", "parameters"):
            if key in tool:
                found.append((str(tool.get("name")), tool[key]))
                break
    return found


def measure(paths: list[Path]) -> dict[str, Any]:
    files: list[dict[str, Any]] = []
    reasons: Counter[str] = Counter()
    for path in paths:
        tools = tools_of(json.loads(path.read_text(encoding="utf-8")))
        found = {name: problems(schema) for name, schema in tools}
        refused = {name: listed for name, listed in found.items() if listed}
        reasons.update(problem for listed in refused.values() for problem in listed)
        files.append({"file": path.name, "tools": len(tools), "accepted": len(tools) - len(refused)})
    total = {"tools": sum(f["tools"] for f in files), "accepted": sum(f["accepted"] for f in files)}
    return {"files": files, "total": total, "reasons": dict(reasons.most_common())}


def report(result: dict[str, Any]) -> str:
    lines = ["| schema file | tools | accepted as they are |", "|---|---:|---:|"]
    lines += [f"| {f['file']} | {f['tools']} | {f['accepted']} |" for f in result["files"]]
    total = result["total"]
    lines += [f"| all | {total['tools']} | {total['accepted']} |", "", "| why refused | tools |", "|---|---:|"]
    lines += [f"| {reason} | {count} |" for reason, count in result["reasons"].items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="schema files (default: the MCP ones of benchmarks/schemas)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    options = parser.parse_args(argv)
    result = measure(options.files or MCP_SCHEMAS)
    print(json.dumps(result) if options.json else report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
