"""Reading plain JSON data in a format's shape: each value taken is known by where it sits,
so a shape that is not the format's is told in one sentence naming what is missing and where.
An SDK's objects are read as the plain data they dump to.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from attrs import frozen

from .quoting import quote_any, quote_text


class FormatError(ValueError):
    """Data that is not in the shape of the format it was read as. Its text is one sentence
    naming what is missing or wrong and where, e.g. `message.tool_calls[1].function has no
    "name".`"""


_DESCRIBED = ((bool, "a boolean"), (int, "a number"), (float, "a number"), (str, "text"),
              (list, "a list"), (tuple, "a list"), (dict, "an object"))


def plain_data(value: object) -> object:
    """An SDK's object (a pydantic model, as the OpenAI, Anthropic and MCP SDKs return) as
    the plain data it dumps to, by its fields' names on the wire; a list of them likewise;
    anything else as it is."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return dump(by_alias=True, exclude_none=True)
    if isinstance(value, (list, tuple)) and any(hasattr(item, "model_dump") for item in value):
        return [plain_data(item) for item in value]
    return value


def described(value: object) -> str:
    """What a value is, as a sentence names it."""
    if value is None:
        return "null"
    for python_type, words in _DESCRIBED:
        if isinstance(value, python_type):
            return words
    return f"a {type(value).__name__}"


@frozen
class Place:
    """Where a value sits in the data read: `message.tool_calls[1].function`."""

    path: str

    def key(self, name: str) -> Place:
        return Place(f"{self.path}.{name}")

    def index(self, number: int) -> Place:
        return Place(f"{self.path}[{number}]")

    def error(self, problem: str) -> FormatError:
        return FormatError(f"{self.path} {problem}.")


def as_object(value: object, place: Place) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise place.error(f"is {described(value)}, not an object")
    return value


def as_list(value: object, place: Place) -> list[Any] | tuple[Any, ...]:
    if not isinstance(value, (list, tuple)):
        raise place.error(f"is {described(value)}, not a list")
    return value


def member(data: Mapping[str, Any], name: str, place: Place) -> Any:
    """A member that must be there (null counts as there)."""
    if name not in data:
        raise place.error(f'has no "{name}"')
    return data[name]


def text_member(data: Mapping[str, Any], name: str, place: Place) -> str:
    value = member(data, name, place)
    if not isinstance(value, str):
        raise place.key(name).error(f"is {described(value)}, not text")
    return value


def object_member(data: Mapping[str, Any], name: str, place: Place) -> Mapping[str, Any]:
    return as_object(member(data, name, place), place.key(name))


def list_member(data: Mapping[str, Any], name: str, place: Place, *, optional: bool = False) -> list[Any] | tuple[Any, ...]:
    """A list member; an optional one may be absent or null, which reads as empty."""
    if optional and data.get(name) is None:
        return ()
    return as_list(member(data, name, place), place.key(name))


def objects(items: list[Any] | tuple[Any, ...], place: Place) -> Iterator[tuple[Mapping[str, Any], Place]]:
    """Each item of a list that must hold objects, with its place."""
    for number, item in enumerate(items):
        yield as_object(item, place.index(number)), place.index(number)


def tool_schemas(named: list[tuple[str, object, Place]]) -> dict[str, object]:
    """Tool name -> schema. A name offered twice is an error: the gate could not tell which
    schema a call of it means."""
    schemas: dict[str, object] = {}
    first: dict[str, Place] = {}
    for name, schema, place in named:
        if name in schemas:
            raise place.error(f"offers the tool {quote_text(name, 60)} again, after {first[name].path}")
        schemas[name], first[name] = schema, place
    return schemas


def assistant_message(message: object, place: Place) -> Mapping[str, Any]:
    """A message that may hold tool calls: an object whose role, if given, is "assistant"."""
    message = as_object(message, place)
    role = message.get("role", "assistant")
    if role != "assistant":
        raise place.key("role").error(f'is {quote_any(role, 40)}, but tool calls come in an "assistant" message')
    return message
