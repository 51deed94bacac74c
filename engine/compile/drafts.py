"""The JSON Schema drafts, and what each makes of the keywords the engine reads.

A schema is read as the draft its `$schema` names (python-jsonschema's `validator_for`:
the URI compared with its scheme lower-cased and an empty fragment dropped). Where
`$schema` is absent or names no known draft, the schema is read as every draft from
draft-04 to 2020-12 agrees: a keyword that one of them reads otherwise is not judged.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from attrs import frozen
from referencing import Specification
from referencing.jsonschema import DRAFT3, DRAFT4, DRAFT6, DRAFT7, DRAFT201909, DRAFT202012


@frozen
class Draft:
    """How one draft (or all of them at once) reads the keywords that differ between drafts.

    `specifications`: how `$id`, `id`, `$anchor` and pointers resolve (one per draft that
    must agree); `prefix_items`: `prefixItems` judges elements by position (2020-12);
    `item_list`: a list `items` judges elements by position (before 2020-12); `items_after_prefix`:
    a schema `items` judges only the elements after `prefixItems` (2020-12); `required_list`:
    `required` is a list of names (draft-04 on); `keywords`: the keywords the draft defines
    (those read by another, `then` by `if`, included). To a draft that does not define it, a
    keyword is unknown: an annotation, as it is to python-jsonschema.
    """

    name: str
    specifications: tuple[Specification, ...]
    prefix_items: bool
    item_list: bool
    items_after_prefix: bool
    required_list: bool = True
    keywords: frozenset[str] = frozenset()

    def defines(self, keyword: str) -> bool:
        """Whether the draft judges by `keyword` (or, with no draft named, any of those that
        must agree does)."""
        return keyword in self.keywords


#: The keywords each draft judges by, as python-jsonschema's validators read them (their
#: `VALIDATORS`, with the keywords one of those reads beside it: `tests/test_drafts.py`
#: holds the two equal).
_KEYWORDS_03 = frozenset({
    "$ref", "additionalItems", "additionalProperties", "dependencies", "disallow", "divisibleBy", "enum",
    "extends", "exclusiveMaximum", "exclusiveMinimum", "format", "items", "maxItems", "maxLength", "maximum",
    "minItems", "minLength", "minimum", "pattern", "patternProperties", "properties", "type", "uniqueItems"})
_KEYWORDS_04 = (_KEYWORDS_03 - {"disallow", "divisibleBy", "extends"}) | {
    "allOf", "anyOf", "oneOf", "not", "maxProperties", "minProperties", "multipleOf", "required"}
_KEYWORDS_06 = _KEYWORDS_04 | {"const", "contains", "propertyNames"}
_KEYWORDS_07 = _KEYWORDS_06 | {"if", "then", "else"}
_KEYWORDS_2019_09 = (_KEYWORDS_07 - {"dependencies"}) | {
    "$recursiveRef", "dependentRequired", "dependentSchemas", "maxContains", "minContains",
    "unevaluatedItems", "unevaluatedProperties"}
_KEYWORDS_2020_12 = (_KEYWORDS_2019_09 - {"$recursiveRef", "additionalItems"}) | {"$dynamicRef", "prefixItems"}
#: Every keyword some draft judges by: a keyword outside it is an annotation to every draft.
JUDGED_BY_SOME_DRAFT = _KEYWORDS_2020_12 | _KEYWORDS_2019_09 | _KEYWORDS_07 | _KEYWORDS_03


DRAFT_03 = Draft("draft-03", (DRAFT3,), prefix_items=False, item_list=True, items_after_prefix=False,
                 required_list=False, keywords=_KEYWORDS_03)
DRAFT_04 = Draft("draft-04", (DRAFT4,), prefix_items=False, item_list=True, items_after_prefix=False,
                 keywords=_KEYWORDS_04)
DRAFT_06 = Draft("draft-06", (DRAFT6,), prefix_items=False, item_list=True, items_after_prefix=False,
                 keywords=_KEYWORDS_06)
DRAFT_07 = Draft("draft-07", (DRAFT7,), prefix_items=False, item_list=True, items_after_prefix=False,
                 keywords=_KEYWORDS_07)
DRAFT_2019_09 = Draft("2019-09", (DRAFT201909,), prefix_items=False, item_list=True, items_after_prefix=False,
                      keywords=_KEYWORDS_2019_09)
DRAFT_2020_12 = Draft("2020-12", (DRAFT202012,), prefix_items=True, item_list=False, items_after_prefix=True,
                      keywords=_KEYWORDS_2020_12)
#: No draft named: only what draft-04 to 2020-12 all read alike. A schema `items` beside
#: `prefixItems` judges the elements after them (every draft agrees on those); the ones
#: before are judged by nothing, since the drafts disagree on which schema holds there.
#: A keyword one of them defines is read as defined (a node it would judge is not judged).
ANY_DRAFT = Draft("any", (DRAFT4, DRAFT6, DRAFT7, DRAFT201909, DRAFT202012), prefix_items=False,
                  item_list=False, items_after_prefix=True,
                  keywords=_KEYWORDS_04 | _KEYWORDS_06 | _KEYWORDS_07 | _KEYWORDS_2019_09 | _KEYWORDS_2020_12)
DRAFTS = (DRAFT_03, DRAFT_04, DRAFT_06, DRAFT_07, DRAFT_2019_09, DRAFT_2020_12)

_BY_URI = {
    "http://json-schema.org/draft-03/schema": DRAFT_03,
    "http://json-schema.org/draft-04/schema": DRAFT_04,
    "http://json-schema.org/draft-06/schema": DRAFT_06,
    "http://json-schema.org/draft-07/schema": DRAFT_07,
    "https://json-schema.org/draft/2019-09/schema": DRAFT_2019_09,
    "https://json-schema.org/draft/2020-12/schema": DRAFT_2020_12,
}


def named_draft(uri: object) -> Draft | None:
    """The draft a `$schema` value names, or None."""
    if type(uri) is not str:
        return None
    try:
        return _BY_URI.get(urlsplit(uri).geturl())
    except ValueError:  # not a URI at all
        return None


def draft_of(schema: object) -> Draft:
    """The draft a root schema is read as."""
    if type(schema) is dict and "$schema" in schema:
        return named_draft(schema["$schema"]) or ANY_DRAFT
    return ANY_DRAFT


def switches_draft(node: dict[str, Any], draft: Draft) -> bool:
    """Whether a subschema's own `$schema` would have it read as another draft: python-jsonschema
    switches there, so the engine judges nothing of such a node."""
    if "$schema" not in node:
        return False
    named = named_draft(node["$schema"])
    return named is not None and named is not draft
