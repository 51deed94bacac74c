"""python-jsonschema as the judge of casts uses it (see `exact`): which schema nodes it may
judge, and each draft's validator class.

A node is judged only where python-jsonschema's verdict is bounded by the node and the value
and cannot read outside the node (its subschemas hold no reference, no regular expression,
no `uniqueItems`, no `unevaluated*`, no `$schema` of their own; at most 256 of them, nested
at most 16 levels below it), and, with no draft named, where the drafts from draft-04 to
2020-12 read each of its keywords alike. Each keyword check it makes within a cast spends a
unit of the cast's budget (see `budget`).
"""

from __future__ import annotations

from typing import Any, Callable

from .budget import JUDGING, CastTooCostly
from .drafts import ANY_DRAFT, DRAFT_03, DRAFT_04, DRAFT_06, DRAFT_07, DRAFT_2019_09, DRAFT_2020_12, Draft

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
_DEEPEST_BELOW = 16  # python-jsonschema recurses five frames or so per level of its own


class _Undecided(Exception):
    """The drafts that must agree do not: raised from inside python-jsonschema's check."""


def validator(schema: dict[str, Any], draft: Draft) -> Any:
    """python-jsonschema's validator of a node, where it may judge it (see above); else None."""
    if not _bounded(schema, draft):
        return None
    from referencing import Registry

    try:
        return _validator_class(draft)(schema, registry=Registry())
    except Exception:  # noqa: BLE001  (a malformed `$id`: no base to judge from)
        return None


def _bounded(schema: dict[str, Any], draft: Draft) -> bool:
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


def _agreed(keyword: str, argument: object, node: dict[str, Any]) -> bool:
    if keyword in _AGREED:
        return True
    if keyword == "minimum":
        return "exclusiveMinimum" not in node
    if keyword == "maximum":
        return "exclusiveMaximum" not in node
    if keyword == "items":
        return type(argument) is dict and "prefixItems" not in node and "additionalItems" not in node
    return False


def _subschemas(node: dict[str, Any]) -> list[object]:
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
    """python-jsonschema's validator of a draft, each keyword check counted (see `budget`);
    with no draft named, 2020-12's, stopping where a whole float meets `integer` (the one type
    the drafts that must agree read apart)."""
    found = _CLASSES.get(draft.name)
    if found is None:
        from jsonschema import validators

        if draft is ANY_DRAFT:
            base = validators.Draft202012Validator
            checker = base.TYPE_CHECKER.redefine("integer", _integer_if_agreed)
        else:
            base = {DRAFT_03.name: validators.Draft3Validator, DRAFT_04.name: validators.Draft4Validator,
                    DRAFT_06.name: validators.Draft6Validator, DRAFT_07.name: validators.Draft7Validator,
                    DRAFT_2019_09.name: validators.Draft201909Validator,
                    DRAFT_2020_12.name: validators.Draft202012Validator}[draft.name]
            checker = base.TYPE_CHECKER
        counted = {keyword: _counted(check) for keyword, check in base.VALIDATORS.items()}
        found = _CLASSES[draft.name] = validators.extend(base, validators=counted, type_checker=checker)
    return found


def _counted(check: Callable[..., Any]) -> Callable[..., Any]:
    def counted(validator: Any, argument: object, instance: object, schema: object) -> Any:
        judging = JUDGING.get()
        if judging is not None:
            judging.left -= 1  # `Judging.spend`, in place: this runs for every check
            if judging.left < 0:
                raise CastTooCostly
        return check(validator, argument, instance, schema)
    return counted


def _integer_if_agreed(checker: object, value: object) -> bool:
    if type(value) is float and value.is_integer():
        raise _Undecided
    return isinstance(value, int) and not isinstance(value, bool)
