"""Gating a turn: check every call of the model's turn before any runs.

Run from the repository's top folder:  python examples/gate_turn.py
"""

import json
from pathlib import Path

import turngate

EXAMPLES = Path(__file__).parent
tools = {
    "get_page": json.loads((EXAMPLES / "get_page.schema.json").read_text()),
    "update_page_metadata": json.loads((EXAMPLES / "update_page_metadata.schema.json").read_text()),
}
toolset = turngate.Toolset(tools)          # compile once per run; reuse for every turn
turn = json.loads((EXAMPLES / "turn.json").read_text())

verdict = turngate.check_turn(turn, toolset)
if verdict.ok:
    for call in verdict.calls:           # arguments decoded, ready to run
        print("run", call.tool, call.arguments)
else:                                    # nothing runs; every call id gets one answer
    for answer in verdict.answers:
        print(f"[{answer.call_id}] {answer.status} ({answer.tool_refusal}) {answer.codes}")
        print(answer.text)
