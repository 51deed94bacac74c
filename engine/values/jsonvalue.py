"""The type of a JSON value, for annotations: what `json.loads` returns, and what a call's
decoded arguments and its id are. A type checker reads it; at run time it is only a name."""

from __future__ import annotations

from typing import TypeAlias

#: A JSON value: an object (text keys), a list, text, a number, true or false, or null.
JSON: TypeAlias = "dict[str, JSON] | list[JSON] | str | int | float | bool | None"
#: A JSON object, as a tool's decoded arguments are.
JSONObject: TypeAlias = "dict[str, JSON]"
