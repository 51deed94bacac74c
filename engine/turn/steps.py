"""Run steps: a record per tool call, so refusals can be counted even where no text is kept.

Two privacy levels: `full` keeps the answer texts and call ids; `metadata-only` keeps the
tool name, status, `tool_refusal` and mismatch codes, and never an argument value or a
message text.
"""

from __future__ import annotations

import json
from typing import IO, Iterable

from attrs import evolve, field, frozen
from cattrs import ClassValidationError, transform_error
from cattrs.v import format_exception

from ..check.convert import from_data, to_data
from ..values.decoding import decode_json
from .calls import TurnVerdict

STATUSES = ("ok", "failed", "refused", "not-run", "declined")
PRIVACY_LEVELS = ("full", "metadata-only")


REFUSALS = (None, "arguments", "turn")


def _one_of(allowed: tuple):
    def validate(_, attribute, value) -> None:
        if value not in allowed:
            raise ValueError(f"{attribute.name} is one of {', '.join(map(json.dumps, allowed))}, not {json.dumps(value)}")
    return validate


@frozen
class RunStep:
    """One tool call of a run: which turn, its place in the turn, what became of it."""

    turn: int
    index: int
    tool: str | None  # None: a tool that was not offered, at metadata-only (the name is the model's text)
    status: str = field(validator=_one_of(STATUSES))
    tool_refusal: str | None = field(default=None, validator=_one_of(REFUSALS))
    codes: tuple[str, ...] = field(converter=tuple, default=())
    call_id: str | int | None = None
    text: str | None = None
    privacy: str = field(default="full", validator=_one_of(PRIVACY_LEVELS))
    casts: tuple[str, ...] = field(converter=tuple, default=())  # arguments a cast changed
    cast_count: int = 0

    def at_privacy(self, privacy: str) -> RunStep:
        """This step as kept at `privacy`: metadata-only drops the call id, the text and the
        paths of casts (argument names are the model's text), keeping their count."""
        if privacy == "full":
            return self
        return evolve(self, call_id=None, text=None, casts=(), privacy=privacy)


def refused_steps(verdict: TurnVerdict, turn: int, privacy: str = "full") -> tuple[RunStep, ...]:
    """The steps of a refused turn: one per answered call id, in the order of the turn."""
    return tuple(
        RunStep(turn, index, answer.tool if answer.offered or privacy == "full" else None, answer.status,
                answer.tool_refusal, answer.codes, step_id(answer.call_id), answer.text).at_privacy(privacy)
        for index, answer in enumerate(verdict.answers, 1)
    )


def step_id(call_id: object) -> str | int | None:
    return call_id if call_id is None or type(call_id) in (str, int) else str(call_id)


def dump_steps(steps: Iterable[RunStep], out: IO[str]) -> None:
    """Steps as JSON lines."""
    for step in steps:
        out.write(json.dumps(to_data(step), ensure_ascii=False) + "\n")


def load_steps(lines: Iterable[str]) -> tuple[list[RunStep], list[tuple[int, str]]]:
    """Steps from JSON lines, and each line that is not a step, with its number and why.
    Blank lines are skipped."""
    steps: list[RunStep] = []
    broken: list[tuple[int, str]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = decode_json(line)
            if not isinstance(data, dict):
                raise ValueError("it is not a JSON object")
            steps.append(from_data(data, RunStep))
        except json.JSONDecodeError as error:
            broken.append((number, f"line {number} is not valid JSON ({error.msg.lower()} at column {error.colno})."))
        except Exception as error:  # cattrs reports structure problems as several classes
            broken.append((number, f"line {number} is not a run step ({_why(error)})."))
    return steps, broken


def _why(error: Exception) -> str:
    if isinstance(error, ClassValidationError):
        def say(exception: BaseException, type_) -> str:
            return str(exception) if isinstance(exception, ValueError) else format_exception(exception, type_)
        problems = transform_error(error, path="step", format_exception=say)
        return "; ".join(problems)[:200]
    return (str(error) or error.__class__.__name__)[:160].rstrip(".")
