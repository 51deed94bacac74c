"""A mismatch's facts beside its sentence, read from what its rule kind reported: what the
schema expects (its keyword and value) and what was sent (as the message quotes it).

They are read when a host asks for them (`Mismatch.expected`, `.sent`, `.facts()`, the
package converter's JSON), never while checking: a refusal keeps the facts its rule reported
beside the sentence, which costs a reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..values.kinds import KIND_BY_TYPE, kind_of
from ..values.quoting import quote_scalar

#: How many characters a sent value is quoted in: as a message quotes it (the `sent` text of
#: `table.vocabulary.MESSAGE_TEXTS`; a test holds the two equal).
SENT_WIDTH = 40
_UNQUOTED = (None, "list", "object")  # no scalar to quote: a message names it by its kind
_ABSENT: Any = object()


class Stated(dict[str, object]):
    """Facts already read (a mismatch read back from JSON): `expected` and `sent` as they are."""

    __slots__ = ()


def expected_of(code: str, path: tuple[str | int, ...], reported: Mapping[str, object] | None) -> dict[str, object] | None:
    """What the schema expects of a finding of `code` (see `Mismatch.expected`)."""
    if reported is None:
        return None
    if type(reported) is Stated:
        return reported.get("expected")  # type: ignore[return-value]
    types = reported.get("types")
    if code == "additional":
        return {"keyword": "additionalProperties", "value": False}
    if code == "enum" and isinstance(reported.get("allowed"), (list, tuple)):
        return {"keyword": "enum", "value": list(reported["allowed"])}  # type: ignore[call-overload]
    if code in ("kind", "null") and isinstance(types, tuple) and types:
        return {"keyword": "type", "value": types[0] if len(types) == 1 else list(types)}
    if code in ("missing", "null") and path:
        return {"keyword": "required", "value": path[-1]}
    return None


def sent_of(code: str, reported: Mapping[str, object] | None) -> str | None:
    """The value sent as a message quotes it (see `Mismatch.sent`)."""
    if reported is None:
        return None
    if type(reported) is Stated:
        return reported.get("sent")  # type: ignore[return-value]
    value = reported.get("value", None if code == "null" else _ABSENT)
    if value is _ABSENT or (KIND_BY_TYPE.get(type(value)) or kind_of(value)) in _UNQUOTED:
        return None
    return quote_scalar(value, SENT_WIDTH)
