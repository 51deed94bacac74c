"""Wording a finding: the table's messages for one code, made into one function.

A refused call is worded while the model waits, so each code's messages become, once per
table, a function that makes only the texts those messages use, tests the guards of each
message in order with plain comparisons, and fills the chosen template by position. The
function is generated from the table's entries (as attrs and namedtuple generate theirs):
templates and text makers are passed in as names, never pasted into the source.
"""

from __future__ import annotations

import re
from string import Formatter
from typing import Callable

from .messages import (
    ELLIPSIS,
    OTHER_WIDTH,
    WIDTH,
    name_path,
    quote_any,
    quote_list,
    quote_scalar,
    quote_text,
)
from .registry import RULE_KINDS
from .table import Table
from .values import KIND_BY_TYPE, kind_of

Words = Callable[[dict, tuple], str]

_ABSENT: object = object()
_STRUCTURES = frozenset({"list", "object"})


#: The texts the engine makes from the facts its rule kinds report, as source lines that
#: set `OUT` (None when its fact was not reported: a message guarded by it is then not
#: used). `value` and `kind` are set first where a text needs them.
ENGINE_TEXTS: dict[str, tuple[str, ...]] = {
    "argument": (
        "head = path[0] if len(path) == 1 else None",
        "if type(head) is str and len(head) <= argument_room and head.isidentifier():",
        "    OUT = '\"' + head + '\"'",
        "else:",
        "    OUT = name_path(path)",
    ),
    "sent_kind": (
        "OUT = None if kind is ABSENT else (sent_kind_texts.get(kind) or sent_kind_text(kind))",
    ),
    "sent": (
        "OUT = None if kind is ABSENT or kind is None or kind in STRUCTURES else quote_scalar(value, sent_width)",
    ),
    "expected": (
        "types = facts.get('types')",
        "OUT = (expected_texts.get(types) or expected_text(types)) if types else None",
    ),
    "sent_json": (
        "held = facts.get('json')",
        "OUT = None if held is None else table.value_phrase_cut(held, sent_json_width)",
    ),
    "allowed": (
        "allowed = facts.get('allowed')",
        "OUT = quote_list(allowed, allowed_width) if allowed else None",
    ),
    "closest": (
        "closest = facts.get('closest')",
        "OUT = quote_text(closest, closest_width) if closest else None",
    ),
}
_VALUE_TEXTS = ("sent_kind", "sent")
_VALUE_LINES = (
    "value = facts.get('value', ABSENT)",
    "kind = ABSENT if value is ABSENT else (KIND_BY_TYPE.get(type(value)) or kind_of(value))",
)


def _host_text(name: str) -> Callable[[dict], str | None]:
    """A fact a host's rule kind declares, quoted like a sent value."""
    def text(facts: dict) -> str | None:
        other = facts.get(name)
        if other is None:
            return None
        return quote_list(other, OTHER_WIDTH) if kind_of(other) == "list" else quote_any(other, OTHER_WIDTH)
    return text


def words_for(table: Table, code: str) -> Words:
    """The function that words a finding of `code` from its facts and path (made once per
    table and code): the most specific message whose guards and placeholders are all known."""
    words = table.wordings.get(code)
    if words is None:
        words = table.wordings[code] = _make_words(table, code)
    return words


def host_facts(code: str) -> set[str]:
    """The facts hosts' rule kinds declare for findings of `code`: texts the engine does not
    make (or makes otherwise) from them."""
    return {fact for kind in RULE_KINDS.values() if code in kind.codes for fact in kind.facts}


def _make_words(table: Table, code: str) -> Words:
    host_facts_of_code = host_facts(code)
    namespace = _namespace(table)
    slots: dict[str, str] = {}
    body: list[str] = []

    def text_slot(name: str) -> str:
        if name not in slots:
            slot = slots[name] = f"t_{len(slots)}"
            lines: tuple[str, ...] = ENGINE_TEXTS.get(name, ())
            if name in host_facts_of_code or not lines:
                # A host's fact of an engine text's name is its own text, the engine's where absent.
                namespace[f"host_{slot}"] = _host_text(name)
                lines = (f"OUT = host_{slot}(facts)", *(("if OUT is None:", *("    " + line for line in lines)) if lines else ()))
            if name in _VALUE_TEXTS and _VALUE_LINES[0] not in body:
                body.extend(_VALUE_LINES)
            body.extend(re.sub(r"\bOUT\b", slot, line) for line in lines)
        return slots[name]

    # The argument is always named (the engine's text of it is never None).
    always_known = {text_slot("argument")} if "argument" not in host_facts_of_code else set()
    branches = []
    for index, entry in enumerate(table.messages_by_code[code]):
        parsed = list(Formatter().parse(entry.template))
        namespace[f"template_{index}"] = "".join(
            literal.replace("%", "%%") + ("%s" if name is not None else "") for literal, name, _, _ in parsed)
        filled = [text_slot(name) for _, name, _, _ in parsed if name is not None]
        needed = dict.fromkeys([*(text_slot(guard) for guard in entry.guards), *filled])
        test = " and ".join(f"{slot} is not None" for slot in needed if slot not in always_known) or "True"
        branches.append((test, f"template_{index} % ({''.join(slot + ', ' for slot in filled)})"))
    exec(compile(_words_source(body, branches, tuple(slots.values())), f"<words for {code}>", "exec"), namespace)
    return namespace["words"]  # type: ignore[return-value]


def _words_source(body: list[str], branches: list[tuple[str, str]], slots: tuple[str, ...]) -> str:
    """The function: make the texts, fill the first message whose texts are all known, cut
    it to the table's length, begin it with a capital."""
    lines = ["def words(facts, path):", *("    " + line for line in body)]
    for number, (test, fill) in enumerate(branches):
        lines += [f"    {'if' if number == 0 else 'elif'} {test}:", f"        sentence = {fill}"]
    # Every text a host's fact should give was not reported: the plainest message, with
    # what is unknown marked rather than guessed.
    lines += ["    else:", *(f"        {slot} = unknown if {slot} is None else {slot}" for slot in slots),
              f"        sentence = {branches[-1][1]}",
              "    if len(sentence) > length:",
              "        sentence = sentence[:length - 2] + unknown + '.'",
              "    return sentence[0].upper() + sentence[1:] if sentence[0].islower() else sentence"]
    return "\n".join(lines)


def _namespace(table: Table) -> dict[str, object]:
    """What the generated functions may name."""
    def sent_kind_text(kind: str | None) -> str:
        phrase = table.sent_kind_texts[kind] = table.value_phrase_cut(kind, WIDTH["sent_kind"])
        return phrase

    def expected_text(types: tuple[str, ...]) -> str:
        phrase = table.expected_texts[types] = table.expected_phrase(types, WIDTH["expected"])
        return phrase

    return {
        "table": table, "length": table.message_length, "unknown": ELLIPSIS, "ABSENT": _ABSENT,
        "STRUCTURES": _STRUCTURES, "KIND_BY_TYPE": KIND_BY_TYPE, "kind_of": kind_of,
        "name_path": name_path, "quote_scalar": quote_scalar, "quote_list": quote_list,
        "quote_text": quote_text, "sent_kind_texts": table.sent_kind_texts,
        "expected_texts": table.expected_texts, "sent_kind_text": sent_kind_text,
        "expected_text": expected_text, "argument_room": WIDTH["argument"] - 2,
        **{f"{name}_width": width for name, width in WIDTH.items()},
    }
