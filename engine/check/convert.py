"""The package's one cattrs converter: tables and verdicts to JSON-ready data and back."""

from __future__ import annotations

from typing import Any, TypeVar

import cattrs
from cattrs.cols import (
    namedtuple_dict_structure_factory,
    namedtuple_dict_unstructure_factory,
)
from cattrs.strategies import configure_union_passthrough

from ..kinds.verdict import Mismatch, Verdict

converter: cattrs.Converter = cattrs.Converter()
# Paths hold object keys and list indexes; both are JSON as they are.
configure_union_passthrough(str | int | None, converter)
for _named in (Mismatch, Verdict):
    converter.register_unstructure_hook(_named, namedtuple_dict_unstructure_factory(_named, converter))
    converter.register_structure_hook(_named, namedtuple_dict_structure_factory(_named, converter))


T = TypeVar("T")


def to_data(obj: object) -> Any:
    return converter.unstructure(obj)


def from_data(data: object, cls: type[T]) -> T:
    return converter.structure(data, cls)
