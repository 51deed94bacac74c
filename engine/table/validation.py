"""The reference checks a merged table must pass before it becomes a `Table`.

Each failure names the entry at fault (its file, line and column) and says what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from string import Formatter
from typing import Any, TYPE_CHECKING

from ..kinds.registry import RULE_KINDS
from ..values.kinds import BASE_KINDS, REFINED_KINDS
from .entries import AnswerEntry, LimitEntry, MessageEntry, RuleEntry, SkipEntry, Table, TypeEntry, ValueEntry
from .errors import Position
from .vocabulary import ANSWERS, HOST_FACT_WIDTH, LIMITS, MESSAGE_TEXTS, SKIP_TRIGGERS

if TYPE_CHECKING:
    from .parsing import Sourced

#: What a table may not say: a schema that is not an object is always skipped.
_ALWAYS_SKIPPED = "not-object"


def _quoted(items: Iterable[object]) -> str:
    return ", ".join(json.dumps(item) for item in items)


def check_table(name: str, merged: list[Sourced], file: str) -> Table:
    """The table the entries make, once every reference in them holds."""
    top = Position(file, 1, 1)
    parts: dict[type, list[Sourced]] = {}
    for item in merged:
        entry = getattr(item.item, "entry", item.item)
        parts.setdefault(type(entry), []).append(item)
    limits = _check_limits(parts.get(LimitEntry, []), top)
    _check_skips(parts.get(SkipEntry, []))
    kinds = _check_values(parts.get(ValueEntry, []))
    _check_types(parts.get(TypeEntry, []), kinds)
    codes = _check_rules(parts.get(RuleEntry, []))
    _check_messages(parts.get(MessageEntry, []), codes, limits["message-length"], top)
    _check_answers(parts.get(AnswerEntry, []), top)

    def plain(kind: type) -> list[Any]:
        return [getattr(i.item, "entry", i.item) for i in parts.get(kind, [])]

    return Table(name, plain(SkipEntry), plain(ValueEntry), plain(TypeEntry), plain(RuleEntry),
                 plain(MessageEntry), plain(AnswerEntry), plain(LimitEntry))


def _check_limits(items: list[Sourced], top: Position) -> dict[str, int]:
    values = {}
    for item in items:
        if item.item.name not in LIMITS:
            raise item.position.error(f'there is no limit "{item.item.name}"; limits are {_quoted(LIMITS)}')
        low, high = LIMITS[item.item.name]
        if not low <= item.item.value <= high:
            raise item.position.error(f'the limit "{item.item.name}" must be from {low} to {high}')
        values[item.item.name] = item.item.value
    missing = [name for name in LIMITS if name not in values]
    if missing:
        raise top.error(f"the table sets no limit {_quoted(missing)}; every table needs {_quoted(LIMITS)}")
    return values


def _check_skips(items: list[Sourced]) -> None:
    for item in items:
        trigger, argument = item.item.trigger, item.item.argument
        if trigger == _ALWAYS_SKIPPED:
            raise item.position.error(f'"{trigger}" is not a skip trigger: a schema that is not an object is '
                                      "always skipped, so drop this line")
        if trigger not in SKIP_TRIGGERS:
            raise item.position.error(f'there is no skip trigger "{trigger}"; triggers are {_quoted(SKIP_TRIGGERS)}')
        if SKIP_TRIGGERS[trigger] != (argument is not None):
            needs = "names the keywords that trigger it" if SKIP_TRIGGERS[trigger] else "takes no keyword"
            raise item.position.error(f'the skip trigger "{trigger}" {needs}')


def _check_values(items: list[Sourced]) -> set[str]:
    kinds = (*BASE_KINDS, *REFINED_KINDS)
    for item in items:
        if item.item.kind not in kinds:
            raise item.position.error(f'there is no kind of value "{item.item.kind}"; kinds are {_quoted(kinds)}')
    return {item.item.kind for item in items}


def _check_types(items: list[Sourced], kinds: set[str]) -> None:
    for item in items:
        for kind in item.item.admits:
            if kind not in kinds:
                raise item.position.error(
                    f'the type "{item.item.name}" names the kind "{kind}", which no value entry declares')


def _check_rules(items: list[Sourced]) -> dict[str, Sourced]:
    codes: dict[str, Sourced] = {}
    for item in items:
        kind = RULE_KINDS.get(item.item.entry.kind)
        if kind is None:
            raise item.position.error(
                f'there is no rule kind "{item.item.entry.kind}"; kinds are {_quoted(RULE_KINDS)} '
                "and those a host registers before loading")
        for code in kind.codes:
            codes.setdefault(code, item)
    return codes


def _fields(template: str, item: Sourced) -> list[tuple[str, str | None]]:
    try:
        parsed = list(Formatter().parse(template))
    except ValueError:
        raise item.position.error("the braces of this text do not pair up (write {{ for a brace)") from None
    for _, field_name, spec, conversion in parsed:
        if field_name is not None and (spec or conversion or not field_name.isidentifier()):
            raise item.position.error(f'"{{{field_name}}}" is not a plain placeholder')
    return [(literal, field_name) for literal, field_name, _, _ in parsed]


def _check_messages(items: list[Sourced], codes: dict[str, Sourced], length: int, top: Position) -> None:
    # A message for a code no rule of this table reports (its rule was dropped) is unused;
    # one for a code no rule kind reports at all is a mistake.
    facts_by_code = {code: kind.facts for kind in RULE_KINDS.values() for code in kind.codes}
    plain_codes = set()
    for item in items:
        entry: MessageEntry = item.item
        if entry.code not in facts_by_code:
            raise item.position.error(f'no rule kind reports the code "{entry.code}"')
        known = (*MESSAGE_TEXTS, *facts_by_code[entry.code])
        fields = _fields(entry.template, item)
        names = [name for _, name in fields if name is not None]
        for name in (*names, *entry.guards):
            if name not in known:
                raise item.position.error(f'"{name}" is not a fact of this message; facts are {_quoted(known)}')
        if "\n" in entry.template or "\r" in entry.template or not entry.template.endswith("."):
            raise item.position.error("a message is one sentence on one line, ending with a full stop")
        longest = sum(len(literal) for literal, _ in fields) + sum(
            MESSAGE_TEXTS.get(name, HOST_FACT_WIDTH) for name in names)
        if longest > length:
            raise item.position.error(
                f"this message can be {longest} characters long, more than the limit of {length}")
        if not entry.guards:
            plain_codes.add(entry.code)
    for code, item in codes.items():
        if code not in plain_codes:
            where = item.position if item.position.file == top.file else top
            raise where.error(
                f'the rule "{item.item.entry.name}" reports the code "{code}", '
                "but no message without guards says what the model is told for it")


def _check_answers(items: list[Sourced], top: Position) -> None:
    named = set()
    for item in items:
        entry: AnswerEntry = item.item
        if entry.name not in ANSWERS:
            raise item.position.error(f'there is no answer "{entry.name}"; answers are {_quoted(ANSWERS)}')
        for _, name in _fields(entry.template, item):
            if name is not None and name not in ANSWERS[entry.name]:
                raise item.position.error(
                    f'the answer "{entry.name}" can use {_quoted(ANSWERS[entry.name])}, not "{name}"')
        if "\n" in entry.template or "\r" in entry.template:
            raise item.position.error("an answer is one line")
        named.add(entry.name)
    missing = [name for name in ANSWERS if name not in named]
    if missing:
        raise top.error(f"the table words no answer {_quoted(missing)}")
