"""Reading a run's steps for `timeline` and `stats`: each line of a record file is a step, or
is told in one plain sentence (`line 3 of the steps file "s.jsonl" is not a run step: "turn"
is missing.`, the reason from `turn.step_fields`); only the first few such lines are told,
the rest counted."""

from __future__ import annotations

from ..turn.steps import RunStep, read_step
from .io import InputError, bad_lines, json_lines, parse_json, source_name

NOT_A_STEP = ("a run step", "run steps")


def read_step_line(line: str, number: int, source: str) -> RunStep:
    where = f"line {number} of {source}"
    data = parse_json(line, where)
    try:
        return read_step(data)
    except ValueError as problem:
        raise InputError(f"{where} is not a run step: {problem}") from None


def read_steps_file(path: str) -> tuple[list[RunStep], list[int]]:
    """The steps of a record file, and the numbers of its lines that are not steps: the
    first few are told on standard error, the rest counted. A file with no step at all is
    unusable."""
    source = source_name(path, "steps")
    steps: list[RunStep] = []
    broken: list[tuple[int, str]] = []
    for number, line in json_lines(path, "steps"):
        try:
            steps.append(read_step_line(line, number, source))
        except InputError as error:
            broken.append((number, str(error)))
    bad_lines([sentence for _, sentence in broken], source, *NOT_A_STEP)
    if not steps:
        raise InputError(f"{source} holds no run step.")
    return steps, [number for number, _ in broken]
