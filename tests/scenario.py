"""The scenario every agent-framework test plays, with no framework imported: two tools (one
needs approval), the model's turns, the texts turngate answers them with, and the tools' side
effects. Each framework's scripted model plays these turns (see `scripted_models` for LangChain,
LangGraph and pydantic-ai)."""

from __future__ import annotations

import io
import json
from typing import Literal

from turngate import Call, RunStep, check_turn, dump_steps, load_steps

# The scenario --------------------------------------------------------------------------------

GET_PAGE_DOC = "Read a page."
UPDATE_DOC = "Change a page's title and status."
Status = Literal["draft", "review", "published"]
USER_TEXT = "Retitle page 42 and put it up for review."

# A turn with a bad call: "title" is missing and "status" is outside its enum.
REFUSED_TURN = [
    ("call_1", "get_page", {"uid": 42, "language": "de"}),
    ("call_2", "update_page_metadata", {"uid": 42, "status": "archived"}),
]
# The model's next turn, written after it read the answers: it may run.
CLEAN_TURN = [
    ("call_3", "get_page", {"uid": 42, "language": "de"}),
    ("call_4", "update_page_metadata", {"uid": 42, "title": "Opening hours", "status": "review"}),
]
# Raw arguments that are not JSON, a tool that was never offered, and a call that fits.
BROKEN_TURN = [
    ("call_5", "get_page", '{"uid": 42,, "language": "de"}'),
    ("call_6", "get_pages", {"uid": 42}),
    ("call_7", "get_page", {"uid": 7, "language": "en"}),
]
FINAL_TEXT = "Done."

NOT_RUN_GET_PAGE = (
    'Not run: this call of tool "get_page" matched its schema, but another call of the same turn '
    "did not, so nothing was run; send this call again, unchanged, together with the corrected one.")
REFUSED_UPDATE = (
    'Refused: the arguments do not match the schema of tool "update_page_metadata", so nothing was run.\n'
    '- "title" is missing; it is required and must be text.\n'
    '- "status" must be one of "draft", "review", "published", but "archived" was sent.')

#: The two tools' schemas, written out: what turngate itself is given in `turngate_answers`.
SCHEMAS = {
    "get_page": {"type": "object", "required": ["uid", "language"],
                 "properties": {"uid": {"type": "integer"}, "language": {"type": "string"}}},
    "update_page_metadata": {"type": "object", "required": ["uid", "title", "status"], "properties": {
        "uid": {"type": "integer"}, "title": {"type": "string"},
        "status": {"type": "string", "enum": ["draft", "review", "published"]}}},
}
#: The steps recorded at metadata-only for REFUSED_TURN then BROKEN_TURN: (tool, status, refusal, codes).
REFUSED_STEPS = [("get_page", "not-run", "turn", ()),
                 ("update_page_metadata", "refused", "arguments", ("missing", "enum"))]
BROKEN_STEPS = [("get_page", "refused", "arguments", ("invalid-json",)),
                (None, "refused", "arguments", ("unknown-tool",)),  # the model's name is not kept
                ("get_page", "not-run", "turn", ())]


def turngate_answers(turn) -> dict:
    """The answers turngate's own turn gate gives `turn`, by call id."""
    verdict = check_turn([Call(*call) for call in turn], SCHEMAS)
    return {answer.call_id: answer.text for answer in verdict.answers}


class Recorder:
    """The tools' side effects: every run of a tool."""

    def __init__(self):
        self.log: list[tuple[str, dict]] = []

    @property
    def runs(self) -> list[tuple[str, dict]]:
        """The runs sorted: frameworks run a turn's calls at once, in no fixed order."""
        return sorted(self.log, key=repr)

    def get_page(self, uid: int, language: str) -> str:
        self.log.append(("get_page", {"uid": uid, "language": language}))
        return f"Page {uid} ({language}): Opening hours"

    def update_page_metadata(self, uid: int, title: str, status: Status) -> str:
        self.log.append(("update_page_metadata", {"uid": uid, "title": title, "status": status}))
        return f"Page {uid} updated: {title}, {status}"


def raw(arguments) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)




def assert_steps_of_the_refused_and_the_broken_turn(steps: list) -> None:
    """The run steps of REFUSED_TURN then BROKEN_TURN, at metadata-only, and read back as
    they were written."""
    assert steps == [RunStep(turn, index, tool, status, refusal, codes, privacy="metadata-only")
                     for turn, found in ((1, REFUSED_STEPS), (2, BROKEN_STEPS))
                     for index, (tool, status, refusal, codes) in enumerate(found, 1)]
    written = io.StringIO()
    dump_steps(steps, written)
    assert load_steps(written.getvalue().splitlines()) == (steps, [])
