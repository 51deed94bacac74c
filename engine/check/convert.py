"""The package's one cattrs converter: tables and verdicts to JSON-ready data and back."""

from __future__ import annotations

from typing import Any, TypeVar

import cattrs
from cattrs.cols import (
    namedtuple_dict_structure_factory,
    namedtuple_dict_unstructure_factory,
)
from cattrs.strategies import configure_union_passthrough

from ..kinds.mismatch_facts import Stated
from ..kinds.verdict import Mismatch, Verdict

converter: cattrs.Converter = cattrs.Converter()
# Paths hold object keys and list indexes; both are JSON as they are.
configure_union_passthrough(str | int | None, converter)


def _mismatch_data(mismatch: Mismatch) -> dict[str, object]:
    """A mismatch as data: its path (a list), code and sentence, and the facts beside the
    sentence (`expected`, `sent`); what its rule reported is never written."""
    return {"path": list(mismatch.path), "code": mismatch.code, "message": mismatch.message,
            "expected": mismatch.expected, "sent": mismatch.sent}


def _mismatch(data: dict[str, object], _: type) -> Mismatch:
    facts = Stated(expected=data.get("expected"), sent=data.get("sent"))
    return Mismatch(tuple(data["path"]), str(data["code"]), str(data["message"]), facts)  # type: ignore[arg-type]


converter.register_unstructure_hook(Mismatch, _mismatch_data)
converter.register_structure_hook(Mismatch, _mismatch)
converter.register_unstructure_hook(Verdict, namedtuple_dict_unstructure_factory(Verdict, converter))
converter.register_structure_hook(Verdict, namedtuple_dict_structure_factory(Verdict, converter))


T = TypeVar("T")


def to_data(obj: object) -> Any:
    return converter.unstructure(obj)


def from_data(data: object, cls: type[T]) -> T:
    return converter.structure(data, cls)
