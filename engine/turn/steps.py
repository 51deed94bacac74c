"""Run steps: a record per tool call, so refusals can be counted even where no text is kept.

Two privacy levels: `full` keeps the answer texts and call ids; `metadata-only` keeps the
tool name, status, `tool_refusal` and mismatch codes, and never an argument value or a
message text. A refused call's step keeps each mismatch's facts (`Mismatch.facts()`): at
`metadata-only` only their code and what the schema expects (the path holds argument names,
the model's text, and `sent` its value).
"""

from __future__ import annotations

import json
from typing import IO, Any, Callable, Iterable

from attrs import Attribute, evolve, field, frozen
from cattrs.gen import make_dict_unstructure_fn, override

from ..values.converters import as_tuple
from ..check.convert import converter, from_data, to_data
from ..values.decoding import decode_json
from ..values.encoding import encode_json
from ..values.quoting import quote_any
from .calls import TurnVerdict
from .step_fields import FIELDS, PRIVACY_LEVELS, REFUSALS, STATUSES, step_problem


def _one_of(allowed: tuple[Any, ...]) -> Callable[[object, Attribute[Any], object], None]:
    def validate(_: object, attribute: Attribute[Any], value: object) -> None:
        if value not in allowed:
            raise ValueError(f"{attribute.name} is one of {', '.join(map(quote_any, allowed))}, not {quote_any(value)}")
    return validate


@frozen
class RunStep:
    """One tool call of a run: which turn, its place in the turn, what became of it."""

    turn: int
    index: int
    tool: str | None  # None: a tool that was not offered, at metadata-only (the name is the model's text)
    status: str = field(validator=_one_of(STATUSES))
    tool_refusal: str | None = field(default=None, validator=_one_of(REFUSALS))
    codes: tuple[str, ...] = field(converter=as_tuple, default=())
    call_id: str | int | None = None
    text: str | None = None
    privacy: str = field(default="full", validator=_one_of(PRIVACY_LEVELS))
    casts: tuple[str, ...] = field(converter=as_tuple, default=())  # arguments a cast changed
    cast_count: int = 0
    judged: bool = True  # False: the call ran without being judged (no schema was at hand)
    #: Each mismatch's facts, as `Mismatch.facts()` gives them (at metadata-only, code and
    #: expected): read from the mismatches the codes are, so steps compare without them.
    facts: tuple[dict[str, Any], ...] = field(converter=as_tuple, default=(), eq=False)

    def at_privacy(self, privacy: str) -> RunStep:
        """This step as kept at `privacy`: metadata-only drops the call id, the text and the
        paths of casts and mismatches (argument names are the model's text), keeping their
        count, and the values sent."""
        if privacy == "full":
            return self
        facts = tuple({"code": found.get("code"), "expected": found.get("expected")} for found in self.facts)
        return evolve(self, call_id=None, text=None, casts=(), privacy=privacy, facts=facts)


# `judged` and `facts` are written only where they are not the default: every step written
# before them stays as it was.
converter.register_unstructure_hook(
    RunStep, make_dict_unstructure_fn(RunStep, converter, judged=override(omit_if_default=True),
                                      facts=override(omit_if_default=True)))


def refused_steps(verdict: TurnVerdict, turn: int, privacy: str = "full") -> tuple[RunStep, ...]:
    """The steps of a refused turn: one per answered call id, in the order of the turn."""
    return tuple(
        RunStep(turn, index, answer.tool if answer.offered or privacy == "full" else None, answer.status,
                answer.tool_refusal, answer.codes, step_id(answer.call_id), answer.text,
                facts=tuple(mismatch.facts() for mismatch in answer.mismatches)).at_privacy(privacy)
        for index, answer in enumerate(verdict.answers, 1)
    )


def step_id(call_id: object) -> str | int | None:
    """A call id as a step keeps it: text or an integer (of any size) as it is, null as null,
    anything else as its JSON text (`true`, `1.5`), or where JSON cannot write it, a text
    that says so."""
    if call_id is None or type(call_id) in (str, int):
        return call_id  # type: ignore[return-value]
    try:
        return encode_json(call_id)
    except (TypeError, ValueError, RecursionError):  # not JSON: a host's own object
        return quote_any(call_id)


def dump_steps(steps: Iterable[RunStep], out: IO[str]) -> None:
    """Steps as JSON lines (integers of any size, as the step holds them)."""
    for step in steps:
        out.write(encode_json(to_data(step)) + "\n")


def load_steps(lines: Iterable[str]) -> tuple[list[RunStep], list[tuple[int, str]]]:
    """Steps from JSON lines, and each line that is not a step, with its number and why in a
    sentence. Blank lines are skipped."""
    steps: list[RunStep] = []
    broken: list[tuple[int, str]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            steps.append(read_step(decode_json(line)))
        except json.JSONDecodeError as error:
            problem = error.msg[:1].lower() + error.msg[1:]
            broken.append((number, f"line {number} is not valid JSON: {problem} at column {error.colno}."))
        except (ValueError, RecursionError) as error:
            broken.append((number, f"line {number} is not a run step: {error}"))
    return steps, broken


def read_step(data: object) -> RunStep:
    """A decoded record as a step; `ValueError` saying why in a sentence where it is not one.
    Fields the record does not know are ignored (a newer writer may add some)."""
    problem = step_problem(data)
    if problem is None:
        try:
            return from_data({name: data[name] for name in FIELDS if name in data}, RunStep)  # type: ignore[index, operator]
        except Exception:  # noqa: BLE001  (cattrs raises several kinds; the checks above let none through)
            problem = "its fields do not make a step."
    raise ValueError(problem)
