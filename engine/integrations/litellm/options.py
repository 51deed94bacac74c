"""The guardrail's own options, read in one place from what LiteLLM hands `__init__`: the
`litellm_params` of its `config.yaml` entry (LiteLLM's own keys among them), or keywords
given in Python. Each wrong value is one sentence, raised when the proxy starts."""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from attrs import frozen

from turngate import RunStep, Table, TableError, Telemetry, TelemetryError, Toolset, dump_steps, load_table
from turngate.formats import FormatError, openai_chat

#: What the guardrail hands each step of a refused turn to (a list's `append`, a writer...).
RecordStep = Callable[[RunStep], None]

#: The options this guardrail reads; every other key is LiteLLM's.
OPTION_NAMES = ("table", "casts", "rounds", "privacy", "steps", "record", "telemetry")
PRIVACY_LEVELS = ("full", "metadata-only")  # those of turngate's run steps
MAX_ROUNDS = 10


class OptionError(ValueError):
    """A guardrail option that cannot be used, in one sentence."""


@frozen
class GateOptions:
    """`table`: the rules table; `casts`: a fitting turn is returned with the exact casts
    applied; `rounds`: corrective requests at most per request (0: fail closed at once);
    `privacy` of the run steps given to `record` and appended to the `steps` file;
    `telemetry`, which each judged round is reported to as a turn (gate "litellm")."""

    table: Table
    casts: bool = False
    rounds: int = 2
    privacy: str = "metadata-only"
    steps: Path | None = None
    record: RecordStep | None = None
    telemetry: Telemetry | None = None


def gate_options(given: Mapping[str, object]) -> GateOptions:
    """The options in `given` (only this guardrail's keys), each checked."""
    table = given.get("table")
    try:
        loaded = table if isinstance(table, Table) else load_table(str(table) if table is not None else "adr246")
    except TableError as error:
        raise OptionError(f"turngate guardrail: table {table!r} cannot be used: {error}") from None
    rounds = given.get("rounds", 2)
    if type(rounds) is not int or not 0 <= rounds <= MAX_ROUNDS:
        raise OptionError(f"turngate guardrail: rounds is a whole number from 0 to {MAX_ROUNDS}, not {rounds!r}.")
    casts = given.get("casts", False)
    if type(casts) is not bool:
        raise OptionError(f"turngate guardrail: casts is true or false, not {casts!r}.")
    privacy = given.get("privacy", "metadata-only")
    if privacy not in PRIVACY_LEVELS:
        raise OptionError(f"turngate guardrail: privacy is \"full\" or \"metadata-only\", not {privacy!r}.")
    record = given.get("record")
    if record is not None and not callable(record):
        raise OptionError("turngate guardrail: record is a function given each run step, not "
                          f"{type(record).__name__}.")
    steps = given.get("steps")
    return GateOptions(loaded, casts, rounds, str(privacy), _steps_path(steps), record,
                       _telemetry(given.get("telemetry"), str(privacy)))


def _telemetry(telemetry: object, privacy: str) -> Telemetry | None:
    """From `config.yaml`: true (OpenTelemetry's global providers, at the run steps' `privacy`),
    "metadata-only" or "full" (at that level), false; in Python, also a host's `Telemetry`."""
    if telemetry is None or telemetry is False:
        return None
    if isinstance(telemetry, Telemetry):
        return telemetry.for_gate("litellm")
    if telemetry is not True and telemetry not in PRIVACY_LEVELS:
        raise OptionError("turngate guardrail: telemetry is true, false, \"metadata-only\" or \"full\" (or, in "
                          f"Python, a turngate Telemetry), not {telemetry!r}.")
    level = privacy if telemetry is True else telemetry
    try:
        return Telemetry(privacy="full" if level == "full" else "metadata-only").for_gate("litellm")
    except TelemetryError as error:
        raise OptionError(f"turngate guardrail: {error}") from None


def _steps_path(steps: object) -> Path | None:
    if steps is None:
        return None
    if not isinstance(steps, str) or not steps:
        raise OptionError(f"turngate guardrail: steps is the path of a file to append run steps to, not {steps!r}.")
    path = Path(steps)
    if not path.parent.is_dir():
        raise OptionError(f"turngate guardrail: steps {steps!r} cannot be written: its folder does not exist.")
    return path


def keep_steps(options: GateOptions, steps: tuple[RunStep, ...]) -> None:
    """Hand each step to `record` and append it to the `steps` file (as JSON lines)."""
    if options.record is not None:
        for step in steps:
            options.record(step)
    if options.steps is not None:
        with options.steps.open("a", encoding="utf-8") as out:
            dump_steps(steps, out)


class ToolsetCache:
    """The request's tools as a `Toolset`, made once per distinct list (by content), the
    least recently used dropped past `size`; a list that cannot be read is kept as its
    `FormatError`, so it is not read again on every request."""

    table: Table
    casts: bool
    size: int

    def __init__(self, table: Table, casts: bool, size: int = 256):
        self.table, self.casts, self.size = table, casts, size
        self._entries: OrderedDict[str, Toolset | FormatError] = OrderedDict()

    def toolset(self, tools: object) -> Toolset | FormatError:
        try:
            key = json.dumps(tools, sort_keys=True, separators=(",", ":"), allow_nan=True)
        except (TypeError, ValueError, RecursionError):
            return self._made(tools)
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
            return found
        made = self._entries[key] = self._made(tools)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return made

    def _made(self, tools: object) -> Toolset | FormatError:
        try:
            # Schemas compiled by content in turngate's shared cache (bounded), so two lists
            # that share a tool share its compiled schema.
            return Toolset(openai_chat.tools(tools), self.table, casts=self.casts)
        except FormatError as error:
            return error
        except TypeError as error:  # not a list of tools at all
            return FormatError(str(error))
