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
(`validators` says which nodes python-jsonschema judges.) Format is an annotation, as
python-jsonschema reads it by default; nothing is fetched.

Work is bounded: while one schema compiles for casts each node's judge is made once
(`judges_made_once`); within one cast each judge's verdict on a list or object is kept, so a
cast that asks a node again about the same value (a union's branch, then whether that branch
alone holds it) does not judge it again; a value its declared types refuse is refused without
asking python-jsonschema (whose `type` would refuse it all the same); and each keyword check
python-jsonschema makes spends a unit of the cast's budget (see `budget`).
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator

from ..values.stack import on_a_fresh_stack
from .budget import JUDGING, CastTooCostly
from .drafts import Draft, switches_draft
from .validators import type_verdict, validator

Judge = Callable[[object], "bool | None"]

_DEEPEST = 64  # a node deeper than the deepest a table judges is not judged
_JSON_TYPES = (type(None), bool, int, float, str, list, dict)
#: The Python types of JSON value each JSON Schema type may hold, as python-jsonschema's type
#: checkers of every draft read them (a whole float may be an integer; draft-03's "any" holds all).
_MAY_HOLD: dict[str, frozenset[type]] = {
    "string": frozenset({str}), "integer": frozenset({int, float}), "number": frozenset({int, float}),
    "boolean": frozenset({bool}), "null": frozenset({type(None)}), "array": frozenset({list}),
    "object": frozenset({dict}), "any": frozenset(_JSON_TYPES)}
#: Keywords of a node whose verdict does not depend on what its members or elements hold,
#: only on their names and number: casting below such a node cannot break it.
_BLIND_TO_MEMBERS = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "prefixItems", "minItems",
    "maxItems", "minProperties", "maxProperties", "propertyNames", "dependentRequired",
    "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "pattern", "format",
})


def casts_below(schema: dict[str, Any], draft: Draft) -> bool:
    """Whether a cast below this node (in its members or elements, its `$ref`'s target, its
    one union's branch) can only mend what fails there, and not break the node itself."""
    judged = [keyword for keyword in schema if draft.defines(keyword)]
    if "$ref" in judged:
        return judged == ["$ref"]
    if "anyOf" in judged or "oneOf" in judged:
        return len(judged) == 1
    return all(keyword in _BLIND_TO_MEMBERS for keyword in judged)


#: The judges made so far while one schema is compiled (see `judges_made_once`), by schema
#: node and depth: a schema node compiled more than once (a Python object that contains
#: itself, at each depth) shares one judge, and so one validator made when first asked.
_MADE: ContextVar[dict[tuple[int, bool], Judge] | None] = ContextVar("judges_made", default=None)


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
    key = (id(schema), depth > _DEEPEST)
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
    judged = [keyword for keyword in schema if draft.defines(keyword) and keyword != "format"]
    if not judged:
        return _valid  # annotations only (`format` is one, as python-jsonschema reads it by default)
    declared: Any = schema.get("type")
    names: tuple[str, ...] = (declared,) if type(declared) is str else tuple(declared) \
        if type(declared) in (tuple, list) and all(type(n) is str for n in declared) else ()
    if judged == ["type"] and names:
        return _type_judge(names, draft)  # what python-jsonschema's `type` asks of its type checker
    return _Judge(schema, draft, _refused_by(names) if names else frozenset())


def _refused_by(names: tuple[str, ...]) -> frozenset[type]:
    """The Python types of JSON value that declared types certainly refuse (none where one of
    them is a name python-jsonschema does not know: it cannot tell there)."""
    if not all(name in _MAY_HOLD for name in names):
        return frozenset()
    held = frozenset().union(*(_MAY_HOLD[name] for name in names))
    return frozenset(_JSON_TYPES) - held


def judged_by_branches(value: object) -> None:
    """The judge of a node of one `anyOf` or `oneOf` alone, compiled to a union rule: it cannot
    tell, so a cast goes on to the union, where the one branch made for the value's kind (the
    only branch it can be valid under, see `kinds.union`) judges it; python-jsonschema would
    judge every branch, for every value."""
    return None


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
    where it cannot be trusted to tell, see above); a value of a Python type its declared
    types refuse (`refused`) is invalid without asking."""

    __slots__ = ("schema", "draft", "validator", "refused")

    def __init__(self, schema: dict[str, Any], draft: Draft, refused: frozenset[type]) -> None:
        self.schema, self.draft, self.validator, self.refused = schema, draft, _UNMADE, refused

    def __call__(self, value: object) -> bool | None:
        made = self.validator
        if made is _UNMADE:
            made = self.validator = validator(self.schema, self.draft)
        if made is None or not _is_json(value):
            return None
        if type(value) in self.refused:
            return False
        judging = JUDGING.get() if type(value) in (dict, list) else None
        if judging is None:
            return _judged(made, value)
        kept = judging.verdicts.get((id(self), id(value)))
        if kept is not None and kept[0] is value:
            return kept[1]
        verdict = _judged(made, value)
        judging.verdicts[(id(self), id(value))] = (value, verdict)
        return verdict


def _judged(made: Any, value: object) -> bool | None:
    """python-jsonschema's verdict on a value (None where it cannot tell)."""
    try:
        return bool(made.is_valid(value))
    except CastTooCostly:
        raise  # the cast's budget is spent: the cast is not made
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
    return not (type(value) is float and not math.isfinite(value))
