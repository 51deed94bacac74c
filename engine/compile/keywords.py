"""The keywords the compiler reads apart from the rule kinds: what makes a union branch more
than a plain typed node, what only annotates, and what each skip trigger needs to apply. Kept
apart from `reading`, which reads nodes by them, so that `compiled_table` indexes them without
importing the reading that asks it."""

from __future__ import annotations

#: Keywords that make a union branch more than a plain typed node.
UNION_BREAKERS = ("anyOf", "oneOf", "allOf", "not", "if")
#: Keywords that only annotate a schema: no rule kind the engine ships reads them.
ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment", "format",
                         "deprecated", "readOnly", "writeOnly"})

#: The keywords without which a trigger never applies (a node that has none is not asked).
TRIGGER_KEYWORDS: dict[str, frozenset[str]] = {
    "malformed-type": frozenset({"type"}),
    "unknown-type": frozenset({"type"}),
    "unresolved-ref": frozenset({"$ref"}),
    "mixed-union": frozenset({"anyOf", "oneOf"}),
}
