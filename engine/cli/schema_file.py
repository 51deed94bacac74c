"""What `turngate check` and `check-turn` read a tool's schema from, and what they say of it.

`check` takes a schema, or a tool definition as OpenAI Chat Completions, OpenAI Responses,
Anthropic or MCP write one (read by `turn.tools`), or a list of tools (as a list, under
"tools", or an MCP `tools/list` result) with `--tool NAME` where it lists more than one. A
file that looks like a tool definition but cannot be read as one is told in one sentence.

Both commands note on standard error, in one line, a schema the table does not judge all
of, and which shipped table would judge more of it (`unjudged_note`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from ..check.schema import resolve_table
from ..compile.coverage import not_judged, unjudged_nodes
from ..table.entries import Table
from ..turn.tools import offered_tools
from ..values.quoting import quote_text
from ..values.shapes import FormatError
from .io import InputError, require_object

#: The keys only a tool definition (or a list of them) has at its top level, never a schema.
TOOL_KEYS = ("function", "parameters", "input_schema", "inputSchema")
#: The tables a note may point to, in the order they are named when they judge alike.
SHIPPED_TABLES = ("adr246", "extended", "strict")
_NAME_WIDTH = 60


def looks_like_tools(document: object) -> bool:
    """Whether a file holds tool definitions rather than a schema: a list of objects, an
    object with a key only tools have, `"type": "function"`, or a list under "tools"."""
    if isinstance(document, list):
        return any(isinstance(item, dict) for item in document)
    return isinstance(document, dict) and (any(key in document for key in TOOL_KEYS)
                                           or document.get("type") == "function"
                                           or isinstance(document.get("tools"), list))


def tool_schema(document: object, source: str, name: str | None) -> tuple[dict[str, object], str | None]:
    """The schema `check` judges by, and the tool's name where the file defines a tool:
    the document itself where it is a schema, else the tool's (the one named `name`, where
    it lists several)."""
    if not looks_like_tools(document):
        return require_object(document, source), None
    tools = _read_tools(document, source)
    if name is None:
        if len(tools) != 1:
            listed = "no tool" if not tools else f"{len(tools)} tools ({_names(tools)}); name one with --tool"
            raise InputError(f"{source} lists {listed}.")
        name = next(iter(tools))
    elif name not in tools:
        raise InputError(f"{source} lists no tool {quote_text(name, _NAME_WIDTH)}; it lists {_names(tools)}.")
    schema = tools[name]
    return require_object({} if schema is None else schema, f"the schema of tool {_quoted(name)} in {source}"), name


def _read_tools(document: object, source: str) -> dict[str, object]:
    """Tool name -> schema: from a list of tools, the list under "tools", or one tool."""
    if isinstance(document, dict) and not any(key in document for key in TOOL_KEYS) \
            and isinstance(document.get("tools"), list):
        document = document["tools"]
    try:
        return offered_tools(document if isinstance(document, list) else [document])
    except (TypeError, FormatError) as error:
        problem = str(error).rstrip(".")
        raise InputError(f"{source} looks like a tool definition, but cannot be read as one: {problem}.") from None


def _quoted(name: object) -> str:
    return quote_text(name, _NAME_WIDTH) if isinstance(name, str) else str(name)


def _names(tools: Mapping[str, object]) -> str:
    names = [_quoted(name) for name in tools]
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def unjudged_note(tool: str, schema: object, table: Table) -> str | None:
    """One line on a schema whose nodes the table does not all judge: how many, why, and
    the shipped table that judges the most of those (None where every node is judged):
    `note: 7 of 9 schema nodes of tool "x" are not judged under adr246 ($ref 2, anyOf 5);
    --table extended judges 7 of them.`"""
    if not not_judged(schema, table):
        return None
    nodes, unjudged = unjudged_nodes(schema, table)
    reasons = ", ".join(f"{reason} {count}" for reason, count in sorted(Counter(unjudged.values()).items()))
    best: tuple[int, str] | None = None
    for name in SHIPPED_TABLES:
        other = resolve_table(name)
        if other is table or other.name == table.name:
            continue
        judged = len(unjudged.keys() - unjudged_nodes(schema, other)[1].keys())
        if judged and (best is None or judged > best[0]):
            best = (judged, name)
    pointer = f"--table {best[1]} judges {best[0]} of them" if best else "no shipped table judges them"
    return (f"note: {len(unjudged)} of {nodes} schema nodes of tool {_quoted(tool)} are not judged under "
            f"{table.name} ({reasons}); {pointer}.")
