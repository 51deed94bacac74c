"""Exact validity, for casts: whether a value is valid under a schema node as python-jsonschema
judges it for the schema's draft, over the small part of JSON Schema a cast must be sure of.

A judge answers True (valid), False (invalid) or None (it cannot tell: a keyword outside this
part, a form the drafts that must agree read differently, a value JSON cannot make). A cast
is made only where a judge says False of the value as sent and True of the cast value, so a
value that is valid as sent is never changed (see `casts`). Keywords JSON Schema does not
define are annotations, as they are to python-jsonschema; `format` is one too.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

from ..values.kinds import Unjudged, canonical_form
from .drafts import ANY_DRAFT, DRAFT_03, DRAFT_04, Draft, switches_draft

Judge = Callable[[object], "bool | None"]

#: Every keyword some draft of JSON Schema judges by (what python-jsonschema evaluates).
JUDGED_KEYWORDS = frozenset({
    "$ref", "$dynamicRef", "$recursiveRef", "additionalItems", "additionalProperties", "allOf",
    "anyOf", "const", "contains", "dependencies", "dependentRequired", "dependentSchemas",
    "disallow", "divisibleBy", "enum", "exclusiveMaximum", "exclusiveMinimum", "extends", "if",
    "then", "else", "items", "maxContains", "maxItems", "maxLength", "maxProperties", "maximum",
    "minContains", "minItems", "minLength", "minProperties", "minimum", "multipleOf", "not",
    "oneOf", "pattern", "patternProperties", "prefixItems", "properties", "propertyNames",
    "required", "type", "unevaluatedItems", "unevaluatedProperties", "uniqueItems",
})
#: Keywords of a node whose verdict does not depend on what its members or elements hold,
#: only on their names and number: casting below such a node cannot break it.
_BLIND_TO_MEMBERS = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "prefixItems", "minItems",
    "maxItems", "minProperties", "maxProperties", "propertyNames", "dependentRequired",
    "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "pattern", "format",
})
_DEEPEST = 64
_JSON_TYPES = (type(None), bool, int, float, str, list, dict)


def casts_below(schema: dict) -> bool:
    """Whether a cast below this node (in its members or elements, its `$ref`'s target, its
    one union's branch) can only mend what fails there, and not break the node itself."""
    judged = [keyword for keyword in schema if keyword in JUDGED_KEYWORDS]
    if "$ref" in schema:
        return judged == ["$ref"]
    if "anyOf" in schema or "oneOf" in schema:
        return len(judged) == 1
    return all(keyword in _BLIND_TO_MEMBERS for keyword in judged)


#: The judges made so far while one schema is compiled (see `judges_made_once`), by schema
#: node and depth: each node's judge holds its children's, so without it every node would
#: make again the judges of everything below it.
_MADE: ContextVar[dict | None] = ContextVar("judges_made", default=None)


@contextmanager
def judges_made_once() -> Iterator[None]:
    """Within it (one schema's compiling), each node's judge is made once."""
    token = _MADE.set({})
    try:
        yield
    finally:
        _MADE.reset(token)


def exact_judge(schema: object, draft: Draft, depth: int = 0) -> Judge:
    """The judge of a schema node (and everything below it)."""
    made = _MADE.get()
    if made is None:
        return _exact_judge(schema, draft, depth)
    key = (id(schema), depth)
    if key not in made:
        made[key] = _exact_judge(schema, draft, depth)
    return made[key]


def _exact_judge(schema: object, draft: Draft, depth: int) -> Judge:
    if schema is True:
        return _valid
    if schema is False:
        return _invalid
    if type(schema) is not dict or depth > _DEEPEST or switches_draft(schema, draft):
        return _unknown
    tests = []
    for keyword, argument in schema.items():
        if keyword not in JUDGED_KEYWORDS or keyword == "format":
            continue
        if keyword in ("then", "else") and "if" not in schema:
            continue  # read only beside an `if`
        make = _KEYWORDS.get(keyword)
        test = make(argument, schema, draft, depth) if make is not None else None
        if test is None:
            return _unknown
        if test is not _valid:
            tests.append(test)
    return _all_of(tuple(tests))


def _valid(value: object) -> bool:
    return True


def _invalid(value: object) -> bool:
    return False


def _unknown(value: object) -> None:
    return None


#: Within one cast (see `verdicts_kept`), each node's verdict on each list or object, by
#: judge and value: a cast asks each node along its way about the value there, and each
#: judge asks those below it again, so without it a cast 60 levels deep would judge what
#: lies at the bottom 60 times. The value is kept beside its verdict, so no other value can
#: take its identity while the cast runs.
_VERDICTS: ContextVar[dict | None] = ContextVar("verdicts", default=None)


@contextmanager
def verdicts_kept() -> Iterator[None]:
    token = _VERDICTS.set({})
    try:
        yield
    finally:
        _VERDICTS.reset(token)


def _all_of(tests: tuple[Judge, ...]) -> Judge:
    if not tests:
        return _valid

    def judge(value: object) -> bool | None:
        verdicts = _VERDICTS.get() if type(value) in (dict, list) else None
        if verdicts is not None:
            kept = verdicts.get((id(judge), id(value)))
            if kept is not None and kept[0] is value:
                return kept[1]
        verdict = _judged(tests, value)
        if verdicts is not None:
            verdicts[(id(judge), id(value))] = (value, verdict)
        return verdict
    return judge


def _judged(tests: tuple[Judge, ...], value: object) -> bool | None:
    if not _is_json(value):
        return None
    verdict: bool | None = True
    for test in tests:
        found = test(value)
        if found is False:
            return False
        if found is None:
            verdict = None
    return verdict


def _is_json(value: object) -> bool:
    """A value JSON text can hold (exact types, finite numbers): the judges know no other."""
    if type(value) not in _JSON_TYPES:
        return False
    return not (type(value) is float and not math.isfinite(value))  # type: ignore[arg-type]


def type_verdict(names: tuple[str, ...], value: object, draft: Draft) -> bool | None:
    """Whether a value is of one of the declared types, as the draft's type checker says."""
    verdict: bool | None = False
    for name in names:
        found = _is_of_type(name, value, draft)
        if found:
            return True
        if found is None:
            verdict = None
    return verdict


def _is_of_type(name: str, value: object, draft: Draft) -> bool | None:
    kind = type(value)
    if name == "integer":
        if kind is int:
            return True
        if kind is float and value.is_integer():  # type: ignore[union-attr]
            # draft-03 and draft-04 call 1.0 a number, not an integer; later drafts both.
            return None if draft is ANY_DRAFT else draft not in (DRAFT_03, DRAFT_04)
        return False
    found = _TYPE_OF.get(name)
    if found is None:
        return None  # python-jsonschema raises on a type it does not know
    return kind in found


_TYPE_OF = {"string": (str,), "number": (int, float), "boolean": (bool,), "null": (type(None),),
            "array": (list,), "object": (dict,)}


def _type(argument, schema, draft, depth) -> Judge | None:
    names = (argument,) if type(argument) is str else argument
    if type(names) not in (tuple, list) or not names or not all(type(name) is str for name in names):
        return None
    names = tuple(names)
    return lambda value: type_verdict(names, value, draft)


def _enum(argument, schema, draft, depth) -> Judge | None:
    if type(argument) is not list:
        return None
    return lambda value: _any_equal(value, argument)


def _const(argument, schema, draft, depth) -> Judge | None:
    if draft is ANY_DRAFT or draft in (DRAFT_03, DRAFT_04):
        return None  # no keyword before draft-06
    return lambda value: _any_equal(value, (argument,))


def _any_equal(value: object, members) -> bool | None:
    """Whether a value equals a member as JSON values do (1 equals 1.0, true not 1)."""
    try:
        form = canonical_form(value)
        return any(canonical_form(member) == form for member in members)
    except Unjudged:
        return None


def _is_bound(argument: object) -> bool:
    return type(argument) in (int, float) and math.isfinite(argument)  # type: ignore[arg-type]


def _lower_bound(argument, schema, draft, depth) -> Judge | None:
    """`minimum`; before draft-06 a true `exclusiveMinimum` beside it makes it exclusive."""
    if not _is_bound(argument):
        return None
    if draft in (DRAFT_03, DRAFT_04) and schema.get("exclusiveMinimum"):
        return lambda value: type(value) not in _NUMBERS or value > argument
    return lambda value: type(value) not in _NUMBERS or value >= argument


def _upper_bound(argument, schema, draft, depth) -> Judge | None:
    if not _is_bound(argument):
        return None
    if draft in (DRAFT_03, DRAFT_04) and schema.get("exclusiveMaximum"):
        return lambda value: type(value) not in _NUMBERS or value < argument
    return lambda value: type(value) not in _NUMBERS or value <= argument


def _exclusive_lower(argument, schema, draft, depth) -> Judge | None:
    if draft in (DRAFT_03, DRAFT_04):
        return _valid  # read by `minimum` only
    if draft is ANY_DRAFT or not _is_bound(argument):
        return None  # a modifier of `minimum` before draft-06, a bound of its own after
    return lambda value: type(value) not in _NUMBERS or value > argument


def _exclusive_upper(argument, schema, draft, depth) -> Judge | None:
    if draft in (DRAFT_03, DRAFT_04):
        return _valid  # read by `maximum` only
    if draft is ANY_DRAFT or not _is_bound(argument):
        return None
    return lambda value: type(value) not in _NUMBERS or value < argument


def _counted(kind: type, fails: Callable[[int, int], bool]):
    """`minLength` and its kin: a value of `kind` fails where `fails(len(value), argument)`."""
    def make(argument, schema, draft, depth) -> Judge | None:
        if type(argument) is not int or argument < 0:
            return None
        return lambda value: type(value) is not kind or not fails(len(value), argument)  # type: ignore[arg-type]
    return make


def _required(argument, schema, draft, depth) -> Judge | None:
    if draft is DRAFT_03 or type(argument) is not list or not all(type(name) is str for name in argument):
        return None
    return lambda value: type(value) is not dict or all(name in value for name in argument)


def _properties(argument, schema, draft, depth) -> Judge | None:
    if type(argument) is not dict:
        return None
    judges = {name: exact_judge(child, draft, depth + 1) for name, child in argument.items()}

    def judge(value: object) -> bool | None:
        if type(value) is not dict:
            return True
        return _every(judges[name](item) for name, item in value.items() if name in judges)
    return judge


def _additional(argument, schema, draft, depth) -> Judge | None:
    declared = schema.get("properties", {})
    if "patternProperties" in schema or type(declared) is not dict:
        return None
    extra = exact_judge(argument, draft, depth + 1)

    def judge(value: object) -> bool | None:
        if type(value) is not dict:
            return True
        return _every(extra(item) for name, item in value.items() if name not in declared)
    return judge


def _items(argument, schema, draft, depth) -> Judge | None:
    if "additionalItems" in schema:
        return None
    if type(argument) is list:
        return _by_position(argument, draft, depth) if draft.item_list and "prefixItems" not in schema else None
    if "prefixItems" in schema and not draft.prefix_items:
        return None  # the drafts that must agree read the first elements differently
    skipped = len(schema["prefixItems"]) if draft.prefix_items and type(schema.get("prefixItems")) is list else 0
    rest = exact_judge(argument, draft, depth + 1)
    return lambda value: type(value) is not list or _every(rest(item) for item in value[skipped:])


def _prefix_items(argument, schema, draft, depth) -> Judge | None:
    if not draft.prefix_items or type(argument) is not list:
        return None
    return _by_position(argument, draft, depth)


def _by_position(schemas: list, draft: Draft, depth: int) -> Judge:
    judges = [exact_judge(child, draft, depth + 1) for child in schemas]
    return lambda value: type(value) is not list or _every(judge(item) for judge, item in zip(judges, value))


def _every(verdicts) -> bool | None:
    verdict: bool | None = True
    for found in verdicts:
        if found is False:
            return False
        if found is None:
            verdict = None
    return verdict


_NUMBERS = (int, float)
_KEYWORDS = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "minimum": _lower_bound,
    "maximum": _upper_bound,
    "exclusiveMinimum": _exclusive_lower,
    "exclusiveMaximum": _exclusive_upper,
    "minLength": _counted(str, lambda size, bound: size < bound),
    "maxLength": _counted(str, lambda size, bound: size > bound),
    "minItems": _counted(list, lambda size, bound: size < bound),
    "maxItems": _counted(list, lambda size, bound: size > bound),
    "minProperties": _counted(dict, lambda size, bound: size < bound),
    "maxProperties": _counted(dict, lambda size, bound: size > bound),
    "required": _required,
    "properties": _properties,
    "additionalProperties": _additional,
    "items": _items,
    "prefixItems": _prefix_items,
}
