"""The package's one cattrs converter: tables and verdicts to JSON-ready data and back."""

from __future__ import annotations

import cattrs
from cattrs.strategies import configure_union_passthrough

converter = cattrs.Converter()
# Paths hold object keys and list indexes; both are JSON as they are.
configure_union_passthrough(str | int | None, converter)


def to_data(obj: object) -> object:
    return converter.unstructure(obj)


def from_data(data: object, cls: type):
    return converter.structure(data, cls)
