"""Exact validity, for casts: whether a value is valid under a schema node, as python-jsonschema
itself judges it for the schema's draft.

A judge answers True (valid), False (invalid) or None (it cannot tell). A cast is made only
where a judge says False of the value as sent and True of the cast value, so a value that is
valid as sent is never changed (see `casting`). python-jsonschema is imported the first time
a judge is asked, so neither `import turngate` nor the check pays for it.

A judge cannot tell (and no cast is made there) where python-jsonschema's verdict could take
time out of proportion to the value or the schema, or could read outside the node:
- its subschemas hold a `$ref` (or `$dynamicRef`, `$recursiveRef`: a reference can lead
  anywhere, and many can multiply the work), a regular expression (`pattern`,
  `patternProperties`: no regular expression from a schema is ever run), `uniqueItems`
  (pairwise), `unevaluatedProperties`/`unevaluatedItems`, or a `$schema` of their own;
- it has more than 256 subschemas, or they nest more than 16 levels below it;
- no draft is named, and the drafts from draft-04 to 2020-12 read one of its keywords
  differently (`const`, a list `items`, `exclusiveMinimum`, ...), or a whole float meets
  `integer` (draft-04 calls 5.0 a number only, later drafts an integer too);
- the value is not one JSON makes, or python-jsonschema raises (a type it does not know).
Format is an annotation, as python-jsonschema reads it by default; nothing is fetched.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from ..values.stack import on_a_fresh_stack
from .drafts import (ANY_DRAFT, DRAFT_03, DRAFT_04, DRAFT_06, DRAFT_07, DRAFT_2019_09, DRAFT_2020_12, Draft,
                     switches_draft)

Judge = Callable[[object], "bool | None"]

#: Keywords whose verdict could read outside the node or take unbounded time (see above).
_UNBOUNDED = frozenset({"$ref", "$dynamicRef", "$recursiveRef", "pattern", "patternProperties", "uniqueItems",
                        "unevaluatedItems", "unevaluatedProperties"})
#: Keywords every draft from draft-04 to 2020-12 reads alike (python-jsonschema judges each by
#: one function in all five); `minimum`, `maximum` and a schema `items` too, as `_agreed` says.
_AGREED = frozenset({"additionalProperties", "allOf", "anyOf", "enum", "format", "maxItems", "maxLength",
                     "maxProperties", "minItems", "minLength", "minProperties", "multipleOf", "not", "oneOf",
                     "properties", "required", "type"})
#: Keywords under which python-jsonschema reads subschemas: one, a list of them, a map of them.
_ONE_SCHEMA = ("additionalProperties", "additionalItems", "items", "contains", "propertyNames", "not", "if",
               "then", "else", "extends")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items", "extends", "type", "disallow")
_SCHEMA_MAPS = ("properties", "dependentSchemas", "dependencies")
_MOST_SUBSCHEMAS = 256
_DEEPEST = 64  # a node deeper than the deepest a table judges is not judged
_DEEPEST_BELOW = 16  # python-jsonschema recurses five frames or so per level of its own
_JSON_TYPES = (type(None), bool, int, float, str, list, dict)
#: Keywords of a node whose verdict does not depend on what its members or elements hold,
#: only on their names and number: casting below such a node cannot break it.
_BLIND_TO_MEMBERS = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "prefixItems", "minItems",
    "maxItems", "minProperties", "maxProperties", "propertyNames", "dependentRequired",
    "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "pattern", "format",
})


class _Undecided(Exception):
    """The drafts that must agree do not: raised from inside python-jsonschema's check."""


def casts_below(schema: dict, draft: Draft) -> bool:
    """Whether a cast below this node (in its members or elements, its `$ref`'s target, its
    one union's branch) can only mend what fails there, and not break the node itself."""
    judged = [keyword for keyword in schema if draft.defines(keyword)]
    if "$ref" in judged:
        return judged == ["$ref"]
    if "anyOf" in judged or "oneOf" in judged:
        return len(judged) == 1
    return all(keyword in _BLIND_TO_MEMBERS for keyword in judged)


def exact_judge(schema: object, draft: Draft, depth: int = 0) -> Judge:
    """The judge of a schema node (and everything below it)."""
    if schema is True:
        return _valid
    if schema is False:
        return _invalid
    if type(schema) is not dict or depth > _DEEPEST or switches_draft(schema, draft):
        return _unknown
    judged = [keyword for keyword in schema if draft.defines(keyword) and keyword != "format"]
    if not judged:
        return _valid  # annotations only (`format` is one, as python-jsonschema reads it by default)
    names = schema.get("type")
    names = (names,) if type(names) is str else names
    if judged == ["type"] and type(names) in (tuple, list) and names and all(type(n) is str for n in names):
        return _type_judge(tuple(names), draft)  # what python-jsonschema's `type` asks of its type checker
    return _Judge(schema, draft)


def _type_judge(names: tuple[str, ...], draft: Draft) -> Judge:
    def judge(value: object) -> bool | None:
        return type_verdict(names, value, draft) if _is_json(value) else None
    return judge


def _valid(value: object) -> bool:
    return True


def _invalid(value: object) -> bool:
    return False


def _unknown(value: object) -> None:
    return None


_UNMADE: Any = object()


class _Judge:
    """python-jsonschema's verdict on a node, its validator made when first asked for (None
    where it cannot be trusted to tell, see above)."""

    __slots__ = ("schema", "draft", "validator")

    def __init__(self, schema: dict, draft: Draft):
        self.schema, self.draft, self.validator = schema, draft, _UNMADE

    def __call__(self, value: object) -> bool | None:
        validator = self.validator
        if validator is _UNMADE:
            validator = self.validator = _validator(self.schema, self.draft)
        if validator is None or not _is_json(value):
            return None
        try:
            return bool(validator.is_valid(value))
        except RecursionError:
            if not on_a_fresh_stack():
                raise  # the host's own depth, maybe: decided again on a fresh stack
            return None
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # noqa: BLE001  (an unknown type, drafts that disagree, too deep: cannot
            return None  # tell; rpds can turn a RecursionError into a pyo3 PanicException, a BaseException)


def _is_json(value: object) -> bool:
    """A value JSON text can hold (exact types, finite numbers): the judges know no other."""
    if type(value) not in _JSON_TYPES:
        return False
    return not (type(value) is float and not math.isfinite(value))  # type: ignore[arg-type]


def _validator(schema: dict, draft: Draft) -> Any:
    if not _bounded(schema, draft):
        return None
    from referencing import Registry

    try:
        return _validator_class(draft)(schema, registry=Registry())
    except Exception:  # noqa: BLE001  (a malformed `$id`: no base to judge from)
        return None


def _bounded(schema: dict, draft: Draft) -> bool:
    """Whether python-jsonschema's verdict on the node is bounded by it and agreed on by the
    drafts that must agree (see above): its subschemas walked once, at most 256 of them."""
    pending: list[tuple[object, int]] = [(schema, 0)]
    count = 0
    while pending:
        node, depth = pending.pop()
        if type(node) is not dict:
            continue
        count += 1
        if count > _MOST_SUBSCHEMAS or depth > _DEEPEST_BELOW:
            return False
        for keyword, argument in node.items():
            if keyword in _UNBOUNDED or (keyword == "$schema" and depth):
                return False
            if draft is ANY_DRAFT and draft.defines(keyword) and not _agreed(keyword, argument, node):
                return False
        pending.extend((child, depth + 1) for child in _subschemas(node))
    return True


def _agreed(keyword: str, argument: object, node: dict) -> bool:
    if keyword in _AGREED:
        return True
    if keyword == "minimum":
        return "exclusiveMinimum" not in node
    if keyword == "maximum":
        return "exclusiveMaximum" not in node
    if keyword == "items":
        return type(argument) is dict and "prefixItems" not in node and "additionalItems" not in node
    return False


def _subschemas(node: dict) -> list[object]:
    found: list[object] = [node[keyword] for keyword in _ONE_SCHEMA if type(node.get(keyword)) is dict]
    for keyword in _SCHEMA_LISTS:
        if type(node.get(keyword)) is list:
            found.extend(node[keyword])
    for keyword in _SCHEMA_MAPS:
        if type(node.get(keyword)) is dict:
            found.extend(node[keyword].values())
    return found


def type_verdict(names: tuple[str, ...], value: object, draft: Draft) -> bool | None:
    """Whether a value is of one of the declared types, as the draft's type checker says;
    None where it cannot tell (a type it does not know, drafts that disagree)."""
    checker = _validator_class(draft).TYPE_CHECKER
    verdict: bool | None = False
    for name in names:
        try:
            if checker.is_type(value, name):
                return True
        except Exception:  # noqa: BLE001  (an unknown type name; drafts that disagree)
            verdict = None
    return verdict


_CLASSES: dict[str, Any] = {}


def _validator_class(draft: Draft) -> Any:
    """python-jsonschema's validator of a draft; with no draft named, 2020-12's, stopping
    where a whole float meets `integer` (the one type the drafts that must agree read apart)."""
    found = _CLASSES.get(draft.name)
    if found is None:
        from jsonschema import validators

        if draft is ANY_DRAFT:
            latest = validators.Draft202012Validator
            checker = latest.TYPE_CHECKER.redefine("integer", _integer_if_agreed)
            found = validators.extend(latest, type_checker=checker)
        else:
            found = {DRAFT_03.name: validators.Draft3Validator, DRAFT_04.name: validators.Draft4Validator,
                     DRAFT_06.name: validators.Draft6Validator, DRAFT_07.name: validators.Draft7Validator,
                     DRAFT_2019_09.name: validators.Draft201909Validator,
                     DRAFT_2020_12.name: validators.Draft202012Validator}[draft.name]
        _CLASSES[draft.name] = found
    return found


def _integer_if_agreed(checker: object, value: object) -> bool:
    if type(value) is float and value.is_integer():
        raise _Undecided
    return isinstance(value, int) and not isinstance(value, bool)
