"""What a run step's record must hold, and why a decoded record is not one, in the words of a
sentence (`"turn" is missing.`, `"status" must be one of "ok", ..., not "done".`): what
`load_steps` and `turngate timeline`/`stats` say of a line that is not a step."""

from __future__ import annotations

from typing import Any, Callable

from ..values.quoting import escaped, quote_any, quote_text
from ..values.shapes import described

#: What became of a call, who refused it, and how much a record keeps.
STATUSES = ("ok", "failed", "refused", "not-run", "declined")
REFUSALS = (None, "arguments", "turn")
PRIVACY_LEVELS = ("full", "metadata-only")
REQUIRED = ("turn", "index", "tool", "status")


def _integer(value: object) -> bool:
    return type(value) is int


def _text_or_null(value: object) -> bool:
    return value is None or type(value) is str


def _list_of_text(value: object) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


def _one_of(allowed: tuple[Any, ...]) -> Callable[[object], bool]:
    return lambda value: any(value is choice or (type(value) is str and value == choice) for choice in allowed)


def _listed(choices: tuple[Any, ...]) -> str:
    return "one of " + ", ".join("null" if choice is None else f'"{choice}"' for choice in choices)


#: Each field a step may hold: the test of its value, and what it must be.
FIELDS: dict[str, tuple[Callable[[object], bool], str]] = {
    "turn": (_integer, "an integer"),
    "index": (_integer, "an integer"),
    "tool": (_text_or_null, "text or null"),
    "status": (_one_of(STATUSES), _listed(STATUSES)),
    "tool_refusal": (_one_of(REFUSALS), _listed(REFUSALS)),
    "codes": (_list_of_text, "a list of text"),
    "call_id": (lambda value: value is None or type(value) in (str, int), "text, an integer or null"),
    "text": (_text_or_null, "text or null"),
    "privacy": (_one_of(PRIVACY_LEVELS), _listed(PRIVACY_LEVELS)),
    "casts": (_list_of_text, "a list of text"),
    "cast_count": (_integer, "an integer"),
    "judged": (lambda value: type(value) is bool, "true or false"),
    "facts": (lambda value: type(value) is list and all(type(item) is dict for item in value), "a list of objects"),
}


def _shown(value: object) -> str:
    """A value of a record, for a sentence: scalars as JSON (cut), lists and objects by kind."""
    if type(value) is str:
        return quote_text(value, 40)
    if isinstance(value, (list, dict)):
        return described(value)
    text = quote_any(value, 40)
    return escaped(text)


def _but(value: object, must_be: str) -> str:
    if type(value) is list and must_be == "a list of text":  # an item is not text
        number, item = next((n, item) for n, item in enumerate(value, 1) if type(item) is not str)
        return f"but item {number} is {_shown(item)}"
    return f"not {_shown(value)}"


def _names(names: list[str]) -> str:
    quoted = [f'"{name}"' for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def step_problem(data: object) -> str | None:
    """Why decoded JSON is not a run step, as the end of a sentence; None where it is one.
    Fields the record does not know are ignored (a newer writer may add some)."""
    if not isinstance(data, dict):
        return f"it is {described(data)}, not a JSON object."
    missing = [name for name in REQUIRED if name not in data]
    if missing:
        return f"{_names(missing)} {'is' if len(missing) == 1 else 'are'} missing."
    for name, (test, must_be) in FIELDS.items():
        if name in data and not test(data[name]):
            return f'"{name}" must be {must_be}, {_but(data[name], must_be)}.'
    return None
