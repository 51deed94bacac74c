"""A turn's calls and what the gate answers: `Call`, the verdict on a turn, and the answer
to each call of a refused turn; how a call given as a mapping is read, and how call ids are
told apart."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from attrs import field, frozen

from ..values.converters import as_tuple
from ..compile.casting import Cast
from ..kinds.verdict import Mismatch
from ..values.jsonvalue import JSON
from ..values.kinds import Unjudged, canonical_form


@frozen
class Call:
    """A tool call of the model: its id, the tool's name, and its arguments, decoded or as
    the raw JSON text OpenAI-style APIs send (a `str` is always taken as raw text). The id is
    the JSON value the model sent (text in the OpenAI and Anthropic formats), never converted."""

    id: JSON
    tool: str
    arguments: JSON = field(factory=dict)


if TYPE_CHECKING:  # for annotations only: at run time such a call is a `Call`
    class TextIdCall(Call):
        """A call whose id is text, as the OpenAI and Anthropic formats read it."""

        id: str


@frozen
class CallAnswer:
    """The answer to one call of a refused turn; `call_id` is the call's id as it was sent."""

    call_id: JSON
    tool: str
    status: str  # "refused" or "not-run"
    tool_refusal: str  # "arguments" (its own mismatch) or "turn" (a sibling's)
    codes: tuple[str, ...] = field(converter=as_tuple)
    text: str
    mismatches: tuple[Mismatch, ...] = field(converter=as_tuple, default=())
    truncated: bool = False
    offered: bool = True  # whether `tool` names a tool that was offered (else it is the model's text)


class TurnVerdict(NamedTuple):
    """`ok`: the turn may run, and `calls` are its calls with their arguments decoded (and
    cast, when the tools were compiled with casts: `casts` then says, per call, what
    changed). Else nothing runs, and `answers` holds one answer per call id, in the order of
    the turn.

    `given` holds the calls as they were given, and `arguments`, where some were given as
    JSON text, each call's arguments decoded; `calls` makes `Call`s of them when asked (a
    turn that may run is decided without them). A named tuple, as `Verdict` is: one is
    made per turn, in a third of the time of a frozen attrs instance."""

    ok: bool
    given: tuple[Call | Mapping[str, Any], ...]
    answers: tuple[CallAnswer, ...] = ()
    casts: tuple[Cast, ...] = ()
    arguments: tuple[Any, ...] = ()

    @property
    def calls(self) -> tuple[Call, ...]:
        given, arguments = self.given, self.arguments
        if not arguments:
            if all(type(item) is Call for item in given):
                return given  # type: ignore[return-value]
            return tuple(as_call(item) for item in given)
        calls = (as_call(item) for item in given)
        return tuple(call if sent is call.arguments else Call(call.id, call.tool, sent)
                     for call, sent in zip(calls, arguments))


def tool_name(item: Mapping[str, Any]) -> object:
    """The tool a call given as a mapping names: its "tool", or else (absent or null) its
    "name". Every reading of a call takes its tool from here."""
    tool = item.get("tool")
    return item.get("name") if tool is None else tool


def as_call(item: Call | Mapping[str, Any]) -> Call:
    """A `Call`, or a mapping with "id", "tool" (or "name") and "arguments". A call that
    names no tool as text is kept as it is, and refused when the turn is checked."""
    if isinstance(item, Call):
        return item
    if not isinstance(item, Mapping):
        raise TypeError('a call of a turn is a Call, or a mapping with "id", "tool" and "arguments"; '
                        f"this is a {type(item).__name__}")
    return Call(item.get("id"), tool_name(item), item.get("arguments", {}))  # type: ignore[arg-type]


def id_key(call_id: object) -> object:
    """What tells call ids apart: their value as JSON, as an API that answers each id reads
    them (1 and 1.0 are one number; true is not 1, "1" is not 1). Text is its own key; a value
    JSON cannot make is told apart by ==, or by identity where it cannot be hashed. A key can
    be hashed, so a turn is answered in time linear in its calls."""
    if type(call_id) is str:
        return call_id
    try:
        return canonical_form(call_id)
    except Unjudged:
        try:
            hash(call_id)
            return ("not JSON", call_id)
        except TypeError:
            return ("not JSON", id(call_id))
