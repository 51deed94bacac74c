"""Instances aimed at a schema for the differential test: values built by walking the schema
(properties, items, prefixItems, enum and const members, references), so that many are valid
and many are nearly so: the lenient variants turngate admits ("5" and 5.0 for an integer,
"true", 1 and 0 for a boolean, a number for text, "Draft" for "draft", a list or JSON text for
an object), a required name left out, null, an extra key; numbers of any size and kind (more
than 4,300 digits, -0.0, 1e308, 5.0 for 5, floats a hair from an integer) and texts that look
like them (" 5", "5e0", "٥", "NaN"); and now and then any small JSON."""

from __future__ import annotations

import copy
from functools import lru_cache

from hypothesis import strategies as st

from differential_json import any_digits, dumps
from differential_keywords import HUGE
from differential_refs import chance, follow_pointer, names_in, picked, resolve_loosely
from differential_schemas import FORMATS, PATTERN_KEY, PATTERNS

KEYS = ["a", "b", "c", "uid", "title", "extra", PATTERN_KEY, "x/y", "s t"]
#: Numbers at the edges of JSON's and Python's: of more than 4,300 digits (Python reads and
#: writes those only in parts), signed zero, the largest and smallest floats, integers a
#: float cannot hold, floats a hair from an integer, 5.0 (an integer from draft-06 on).
ODD_NUMBERS = [HUGE, -HUGE, 10 ** 4300, 2 ** 53 + 1, 2 ** 64, -0.0, 0.0, 1e308, -1e308, 5e-324, 4.999999999999999,
               5.000000000000001, 0.30000000000000004, 1e16, 5.0, 1.0, 0.5, 1e-7, 123456789012345678901234567890]
#: Texts that look like a number or a boolean to one reader or another.
NUMBER_LIKE_TEXTS = [" 5", "5 ", "+5", "05", "5.0", "5e0", "0x5", "\u0665", "5_000", "1e400", "-0", "-0.0", "NaN",
                     "Infinity", "-Infinity", "1,000", "\u00bd", "TRUE", "True", "yes", "None", "0b1", "1e308",
                     "5" * 4400, "-" + "9" * 4400, "5." + "0" * 4400]
odd_numbers = picked(ODD_NUMBERS)
#: Finite, JSON-representable scalars (no NaN: JSON has none, and NaN != NaN).
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10, 10),
                    st.floats(-100, 100, allow_nan=False, allow_infinity=False),
                    st.text(max_size=5), st.sampled_from(["1", "5", "true", "A", "draft", "x1"]),
                    odd_numbers, picked(NUMBER_LIKE_TEXTS))
small_json = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3), max_leaves=6)

FORMAT_EXAMPLES = {"date": "2024-01-31", "email": "a@x.test", "uri": "http://x.test/",
                   "date-time": "2024-01-31T10:00:00Z", "uuid": "12345678-1234-1234-1234-123456789abc"}
assert set(FORMAT_EXAMPLES) == set(FORMATS)
#: How a loose aimer bends a value: as often a lenient variant as left as aimed, now and
#: then null (an exact aimer leaves every value as aimed).
MOODS = ["aimed"] * 4 + ["lenient"] * 5 + ["null"]
MAX_DEPTH = 5
moods = st.sampled_from(MOODS)
TEXT_ALPHABET = st.sampled_from(list("abAB1 é\U0001F600"))  # an astral character counts as one
#: Texts that are valid where text is declared, and that a careless cast would turn into a
#: number, a boolean, null, an object or a list.
TEMPTING_TEXTS = ["5", "1", "2.5", "true", "A", "Draft", "null", "{}", '{"a": 1}', "[]", "[1]",
                  '{"a": {"b": [1, "2"]}}', '{"a": ' + "1" * 4400 + "}", *NUMBER_LIKE_TEXTS]
tempting_texts = picked(TEMPTING_TEXTS)


@lru_cache(maxsize=None)
def texts(shortest: int, longest: int):
    return st.lists(TEXT_ALPHABET, min_size=shortest, max_size=longest).map("".join)


class Aimer:
    """Draws values aimed at the nodes of one schema (the root resolves its references).
    An exact aimer aims every value, so that most of its instances are valid (the promises
    about valid instances need many); a nudging one too, but now and then gives a scalar a
    lenient variant ("5" for 5, -0.0 for 0, "Draft" for "draft"): where casts happen, in
    instances that are otherwise as aimed (valid as sent under the drafts that do not judge
    the keyword there, invalid and castable where they do); a loose one also bends values
    (lenient variants, null, a required name left out, an extra key, any JSON)."""

    def __init__(self, draw, root: object, exact: bool, nudge: bool = False):
        self.draw, self.root, self.named, self.exact, self.nudge = draw, root, names_in(root), exact, nudge

    def value(self, node: object, depth: int = 0) -> object:
        node = self.follow_references(node)
        if depth > MAX_DEPTH or not isinstance(node, dict):
            return self.draw(small_json)
        if self.exact:
            aimed = self.aimed(node, depth)
            nudged = self.nudge and chance(self.draw, 2 if isinstance(aimed, (dict, list)) else 6)
            return self.lenient(aimed) if nudged else aimed
        if chance(self.draw, 1):
            return self.draw(small_json)
        mood = self.draw(moods)
        if mood == "null":
            return None
        aimed = self.aimed(node, depth)
        return self.lenient(aimed) if mood == "lenient" else aimed

    def follow_references(self, node: object) -> object:
        """The node a `$ref` leads to, mostly; its siblings are forgotten, which is fine:
        jsonschema judges what the value turns out to be."""
        for _ in range(4):
            if not (isinstance(node, dict) and reference_keyword(node) and (self.exact or chance(self.draw, 8))):
                break
            target = self.resolve(node)
            if target is None:
                break
            node = target
        return node

    def resolve(self, node: dict) -> object | None:
        """Where the node's `$ref` leads. A node with an `$id` of its own is the base of its
        `$ref` from 2019-09 on, not before (a `$ref` then hides its siblings, `$id` too):
        either reading is aimed at, now and then. A `$recursiveRef` leads to the node with
        `$recursiveAnchor` (or the root), a `$dynamicRef` to its anchor, dynamic or not."""
        keyword = reference_keyword(node)
        if keyword == "$recursiveRef":
            return self.named.get("$recursiveAnchor", self.root)
        reference = node[keyword]
        has_base = any(isinstance(node.get(key), str) and not node[key].startswith("#") for key in ("$id", "id"))
        if has_base and isinstance(reference, str) and reference.startswith("#/") and self.draw(st.booleans()):
            return follow_pointer(node, reference[1:])
        return resolve_loosely(reference, self.root, self.named)

    def aimed(self, node: dict, depth: int) -> object:
        if "const" in node and chance(self.draw, 7):
            return copy.deepcopy(node["const"])
        enum = node.get("enum")
        if isinstance(enum, list) and enum and chance(self.draw, 8):
            return copy.deepcopy(self.draw(picked(enum)))
        branches = [node.get(keyword) for keyword in ("anyOf", "oneOf", "allOf", "extends")]
        branches = [branch for group in branches for branch in (group if isinstance(group, list) else [group])
                    if isinstance(branch, dict)]
        if branches and chance(self.draw, 7):
            return self.value(self.draw(st.sampled_from(branches)), depth + 1)
        kind = self.kind(node)
        if isinstance(kind, dict):  # draft-03: a schema among the types
            return self.value(kind, depth + 1)
        if kind == "object":
            return self.object_value(node, depth)
        if kind == "array":
            return self.array_value(node, depth)
        return self.scalar_value(kind, node)

    def kind(self, node: dict) -> str | dict | None:
        declared = node.get("type")
        if isinstance(declared, list) and declared:
            declared = self.draw(picked(declared))
        if isinstance(declared, (str, dict)):
            return None if declared == "any" else declared
        if any(key in node for key in ("properties", "required", "additionalProperties", "patternProperties")):
            return "object"
        return "array" if "items" in node or "prefixItems" in node else None

    def object_value(self, node: dict, depth: int) -> dict:
        properties = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        required = node.get("required") if isinstance(node.get("required"), list) else []
        # draft-03 marks a required property on its own schema (jsonschema: any true value).
        required = [*required, *(name for name, schema in properties.items()
                                 if isinstance(schema, dict) and schema.get("required"))]
        value = {}
        for name, schema in properties.items():
            # A required name is now and then left out (never by an exact aimer), an optional one often.
            if chance(self.draw, (10 if name in required else 8) if self.exact else (9 if name in required else 5)):
                value[name] = self.value(schema, depth + 1)
        for name in required:
            if isinstance(name, str) and name not in properties and (self.exact or chance(self.draw, 8)):
                value[name] = self.draw(small_json)
        if chance(self.draw, 2) and not (self.exact and node.get("additionalProperties") is False):
            value.update(self.extra_key(node, depth))
        return value

    def extra_key(self, node: dict, depth: int) -> dict:
        patterned = node.get("patternProperties")
        if isinstance(patterned, dict) and patterned and chance(self.draw, 5):
            return {PATTERN_KEY: self.value(next(iter(patterned.values())), depth + 1)}
        additional = node.get("additionalProperties")
        if isinstance(additional, dict):
            return {"extra": self.value(additional, depth + 1)}
        return {"extra": self.draw(small_json)}

    def array_value(self, node: dict, depth: int) -> list:
        """Elements by position, then the rest, as one draft or another reads the keywords:
        2020-12 (prefixItems, then items), the drafts before it (a list items, then
        additionalItems), or none (every element from a schema items): which reading counts
        is the schema's draft's, and jsonschema's to judge."""
        items, prefix = node.get("items"), node.get("prefixItems")
        reading = self.draw(st.sampled_from(["2020-12", "before", "none"]))
        if reading == "2020-12" and isinstance(prefix, list):
            positions, rest = prefix, items if isinstance(items, (dict, bool)) else True
        elif reading == "before" and isinstance(items, list):
            positions, rest = items, node.get("additionalItems", True)
        else:
            positions, rest = [], items if isinstance(items, (dict, bool)) else True
        count = self.draw(st.integers(0, len(positions)))
        value = [self.value(schema, depth + 1) for schema in positions[:count]]
        if count == len(positions) and rest is not False:
            value += [self.value(rest, depth + 1) for _ in range(self.draw(st.integers(0, 2)))]
        return value

    def scalar_value(self, kind: str | None, node: dict) -> object:
        if kind == "string":
            return self.text(node)
        if kind in ("integer", "number"):
            return self.number(node, kind)
        if kind == "boolean":
            return self.draw(st.booleans())
        return None if kind == "null" else self.draw(small_json)

    def text(self, node: dict) -> str:
        if node.get("pattern") in PATTERNS:
            return self.draw(st.sampled_from(PATTERNS[node["pattern"]]))
        if node.get("format") in FORMAT_EXAMPLES and chance(self.draw, 8):
            return FORMAT_EXAMPLES[node["format"]]
        if not {"pattern", "minLength", "maxLength"} & set(node) and chance(self.draw, 3):
            return self.draw(tempting_texts)
        shortest = node.get("minLength", 0) if isinstance(node.get("minLength"), int) else 0
        longest = node.get("maxLength", 5) if isinstance(node.get("maxLength"), int) else 5
        return self.draw(texts(min(shortest, longest), max(shortest, longest)))

    def number(self, node: dict, kind: str) -> int | float:
        """Within the node's bounds, mostly: a value on the bound is valid or not depending
        on the draft's exclusive form, which is jsonschema's to judge."""
        low = next((node[key] for key in ("minimum", "exclusiveMinimum") if type(node.get(key)) is int), -5)
        high = node["maximum"] if type(node.get("maximum")) is int else low + 10
        if chance(self.draw, 2):
            return self.draw(odd_numbers)
        whole = self.draw(st.integers(low, max(low, high)))
        if node.get("multipleOf") == 2:
            whole -= whole % 2
        if kind == "number" and chance(self.draw, 3):
            return whole + 0.5
        # 5.0 is an integer from draft-06 on (not in draft-04): valid, yet not an int.
        return float(whole) if chance(self.draw, 2) else whole

    def lenient(self, value: object) -> object:
        """A variant of an aimed value that turngate's default table admits for the same
        declared type, or that an enum matches loosely."""
        variants = lenient_variants(value)
        return self.draw(picked(variants)) if variants else value


def lenient_variants(value: object) -> list:
    """"5" and 5.0 for 5 (and -0.0 for 0), "5" for 5.0, "true", 1 and "TRUE" for true, case
    variants of a text ("Draft" for "draft") and its number, a list or JSON text for an
    object (or for it less a key), JSON text or an object keyed "0", "1" for a list."""
    if isinstance(value, bool):
        return ["true" if value else "false", int(value), str(value).upper()]
    if isinstance(value, int):
        zero = [-0.0] if value == 0 else []
        return [dumps(value), float(value), *zero] if abs(value) < 2 ** 1000 else [dumps(value), -value]
    if isinstance(value, float):
        zero = [-value] if value == 0 else []
        return [dumps(value), int(value), *zero] if value.is_integer() else [dumps(value)]
    if isinstance(value, str):
        with any_digits():
            number = [int(value)] if value.isascii() and value.strip().isdigit() else []
        return [value.swapcase(), value.capitalize(), value.lower(), value.upper(), *number]
    if isinstance(value, dict):  # JSON text of it, and of it without its first key (a required one, maybe)
        return [list(value.values()), dumps(value), dumps(dict(list(value.items())[1:]))]
    if isinstance(value, list):
        return [dumps(value), {str(index): item for index, item in enumerate(value)}]
    return []


def reference_keyword(node: dict) -> str | None:
    return next((key for key in ("$ref", "$dynamicRef", "$recursiveRef") if key in node), None)


@st.composite
def instances_for(draw, schema: object) -> object:
    """One instance aimed at the schema: exactly, nudged or loosely (a third each), or (one
    in twenty) any small JSON."""
    if chance(draw, 1) and draw(st.booleans()):
        return draw(small_json)
    how = draw(st.sampled_from(["exact", "nudged", "loose"]))
    return Aimer(draw, schema, exact=how != "loose", nudge=how == "nudged").value(schema)
