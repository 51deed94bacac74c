"""JSON pointers into a schema, walked as `referencing` walks them (`Resource.pointer`: the
same decoding, the same subresources entered, the same base URIs), in linear time.

`referencing` asks at every segment whether the path since the last base URI enters a
subresource, from that base URI on: quadratic in the pointer's length. Only a subresource
that names a base URI (an object with an `$id`, or a draft-04 `id`) can change anything, so
the segments are walked once, and `referencing` is asked only at those. A pointer through
many such objects that enter nothing is given up past a budget (never followed, so never
judged): only a schema made to be slow has one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from referencing import Specification

#: Segments `referencing` may be asked to read again, per segment of a pointer and in all.
_ASKED_PER_SEGMENT, _ASKED_FLOOR = 4, 64


class Resolved:
    """What a look-up found, as `referencing`'s `Resolved`: the contents and their resolver."""

    __slots__ = ("contents", "resolver")
    contents: object
    resolver: Any

    def __init__(self, contents: object, resolver: Any):
        self.contents, self.resolver = contents, resolver


class Walked:
    """A pointer's segments as decoded, where it leads, and the places on the way (their
    index and contents) that name a base URI."""

    __slots__ = ("segments", "contents", "naming")
    contents: object

    def __init__(self, contents: object, pointer: str):
        self.segments: list[int | str] = []
        self.naming: list[tuple[int, object]] = []
        for part in unquote(pointer[1:]).split("/"):
            kind = type(contents)
            if kind is list or (kind is not dict and isinstance(contents, Sequence)):
                segment: int | str = int(part)
            else:
                segment = part.replace("~1", "/").replace("~0", "~")
            contents = contents[segment]  # type: ignore[index]
            self.segments.append(segment)
            if type(contents) is dict or isinstance(contents, Mapping):
                if _names_base(contents):
                    self.naming.append((len(self.segments), contents))
        self.contents = contents


def _names_base(contents: Mapping[str, Any]) -> bool:
    return contents.get("$id") is not None or contents.get("id") is not None


def resolved(walked: Walked, resolver: Any, specification: Specification[Any]) -> Resolved:
    """Where `walked` leads from `resolver` (reading the resource by `specification`)."""
    segments = walked.segments
    budget = _ASKED_PER_SEGMENT * len(segments) + _ASKED_FLOOR
    start = 0  # where the path since the last base URI begins
    for end, contents in walked.naming:
        budget -= end - start
        if budget < 0:
            raise LookupError("a pointer too costly to follow")
        last = resolver
        resolver = specification.maybe_in_subresource(
            segments=segments[start:end], resolver=resolver, subresource=specification.create_resource(contents))
        if resolver is not last:
            start = end
    return Resolved(walked.contents, resolver)
