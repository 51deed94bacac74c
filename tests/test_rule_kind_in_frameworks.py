"""A host's rule kind that raises inside a framework's run surfaces from the run as the one
documented error, `turngate.RuleKindError` (issue 20): nothing of the turn runs, and the
turn is neither answered as refused nor let through. Each framework's real run, with the
scripted model of its own test module."""

from __future__ import annotations

from typing import ClassVar

import pytest

import scripted_models as s
import test_integration_langchain as langchain_runs
import test_integration_langgraph as langgraph_runs
import test_integration_openai_agents as openai_agents_runs
import test_integration_pydantic_ai as pydantic_ai_runs
import turngate
from turngate.integrations.openai_agents import TurnGate as AgentsGate


class RaisingRule:
    """Raises when it tests a call's arguments (any object schema with properties)."""

    codes: ClassVar = ("boom",)
    facts: ClassVar = ()

    @classmethod
    def from_node(cls, node, context):
        return cls() if "properties" in node else None

    def fits(self, value):
        raise ValueError("the host's bug")

    def findings(self, value, walk):
        return iter(())


@pytest.fixture
def raising_table(tmp_path):
    turngate.register_rule_kind("test-raising-in-runs", RaisingRule)
    (tmp_path / "host.rules").write_text('table host extends adr246\nrule boom uses test-raising-in-runs\n'
                                         'message boom "{argument} boom."\n')
    yield turngate.load_table(tmp_path / "host.rules")
    del turngate.kinds.registry.RULE_KINDS["test-raising-in-runs"]


def raises_from_the_run(run) -> None:
    with pytest.raises(turngate.RuleKindError) as caught:
        run()
    assert caught.value.kind == "test-raising-in-runs"


def test_langchain(raising_table):
    agent, _, recorder = langchain_runs.build([s.CLEAN_TURN, s.FINAL_TEXT], table=raising_table)
    raises_from_the_run(lambda: s.run_graph(agent, "invoke", lambda interrupt: {"decisions": [{"type": "approve"}]}))
    assert recorder.runs == []


def test_langgraph(raising_table):
    graph, _, recorder = langgraph_runs.build([s.CLEAN_TURN, s.FINAL_TEXT], table=raising_table)
    raises_from_the_run(lambda: s.run_graph(graph, "invoke", langgraph_runs.approve))
    assert recorder.runs == []


def test_openai_agents(raising_table):
    agent, _, recorder = openai_agents_runs.build([s.CLEAN_TURN, s.FINAL_TEXT])
    gate = AgentsGate(agent, table=raising_table)
    raises_from_the_run(lambda: openai_agents_runs.run(gate.agent, "plain", gate.run_config()))
    assert recorder.runs == []


def test_pydantic_ai(raising_table):
    agent, _, recorder = pydantic_ai_runs.build([s.CLEAN_TURN, s.FINAL_TEXT], table=raising_table)
    raises_from_the_run(lambda: pydantic_ai_runs.run(agent, "plain"))
    assert recorder.runs == []
