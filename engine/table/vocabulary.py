"""The table language's vocabulary, each in one place: the skip triggers a table may name,
the texts a message or an answer may use and how wide each can grow, the answers every table
words, and the limits with their ranges. The loader checks tables against these; the
compiler and the wording implement exactly these."""

from __future__ import annotations

#: Skip triggers, and whether each names the keywords that trigger it. A schema node that is
#: not an object, nested past the depth limit, or read as another draft (its own `$schema`)
#: is always skipped: those are not the table's to choose.
SKIP_TRIGGERS = {
    "keyword": True,          # the node has one of the keywords named
    "malformed-type": False,  # `type` is not a name or a non-empty list of names
    "unknown-type": False,    # `type` names a type the table does not declare
    "unresolved-ref": False,  # a `$ref` that cannot be followed here
    "mixed-union": False,     # an `anyOf`/`oneOf` with a branch that is not a plain typed node
}

#: The texts the engine makes for a message from the facts its rule kinds report, and the
#: most characters each can become.
MESSAGE_TEXTS = {
    "argument": 50,   # the path: "fields.title", "elements[2].uid", "the arguments"
    "sent": 40,       # the value sent, a scalar quoted as JSON and cut
    "sent_kind": 16,  # the kind of value sent: "a list"
    "sent_json": 16,  # the kind of JSON a text sent holds
    "expected": 56,   # the declared types: "text or a list"
    "allowed": 70,    # the enum members or the allowed arguments
    "closest": 40,    # the allowed argument nearest to one sent
}
#: The width of a fact a host's rule kind adds (text, number or list of them).
HOST_FACT_WIDTH = 40

#: The answers every table words, and the texts each may use.
ANSWERS = {
    "refused": ("tool",), "item": ("message",), "cut": ("limit",),
    "not-run": ("tool",),
    "invalid-json": ("tool", "problem", "line", "column"),
    "cut-off-json": ("tool", "line", "column"),
    "unknown-tool": ("tool",), "unknown-tool-closest": ("tool", "closest"), "no-tool": (),
    "duplicate-id": ("tool", "id"),
    "declined": ("tool",), "failed": ("tool",),
}
#: Texts of an answer that are the model's own (quoted and cut like a sent value), and the
#: most characters each can become.
MODEL_TEXTS = {"tool": 60, "id": 40, "closest": 40}

#: Each limit a table sets, with the range it must lie in. Compiling recurses once per level
#: of depth (eight frames at the most, through a `$ref`), so at 64 it takes a little over half
#: of Python's default 1,000 frames (`tests/test_stack.py`); a host deep in its own stack
#: has its call made again on a fresh stack (`values.stack`).
LIMITS = {"mismatches": (1, 1000), "depth": (1, 64), "message-length": (1, 10000)}
