"""Every error is one documented type with one clean sentence (issue 20): error texts escape
what they quote, every failure to read a table is a TableError, the command line never
prints a traceback, and a host's rule kind that raises surfaces as a RuleKindError naming it
(exit 3 on the command line), never as a refusal and never as a silent pass."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import ClassVar

import pytest

import turngate
from turngate import Call, check_turn, formats
from support import one_clean_line

HOSTILE = ["a\nturngate: forged", "a\x1b[31m", "a\u2028b", "a\u202eb"]


def run(*arguments: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "turngate.cli", *arguments], capture_output=True, text=True, cwd=cwd)


# ── Error texts escape what they quote ──────────────────────────────────────────────────

@pytest.mark.parametrize("name", HOSTILE)
def test_a_tool_offered_twice_is_named_escaped(name):
    with pytest.raises(formats.FormatError) as caught:
        turngate.Toolset([{"name": name, "inputSchema": {}}, {"name": name, "inputSchema": {}}])
    assert one_clean_line(str(caught.value)) and "offers the tool " in str(caught.value)


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_tool_call_type_is_named_escaped(kind):
    message = {"role": "assistant", "tool_calls": [{"type": kind, "id": "1", "function": {"name": "t"}}]}
    with pytest.raises(formats.FormatError) as caught:
        formats.openai_chat.calls(message)
    assert one_clean_line(str(caught.value)) and str(caught.value).startswith("message.tool_calls[0] is a ")


@pytest.mark.parametrize("name", HOSTILE)
def test_a_missing_table_is_named_escaped(name, tmp_path):
    with pytest.raises(turngate.TableError) as caught:
        turngate.load_table(tmp_path / f"{name}.rules")
    assert one_clean_line(str(caught.value))


# ── Every failure to read a table is a TableError ───────────────────────────────────────

def unreadable_tables(folder):
    (folder / "loop").symlink_to(folder / "loop")
    (folder / "a.rules").write_text("table a extends adr246\n")
    (folder / "long.rules").write_text(f'table long extends "{"x/" * 2500}t.rules"\n')
    (folder / "nul.rules").write_text('table nul extends "a\\u0000.rules"\n')
    (folder / "loops.rules").write_text('table loops extends "loop"\n')
    (folder / "folder.rules").mkdir()
    (folder / "locked.rules").write_text("table locked extends adr246\n")
    (folder / "locked.rules").chmod(0)
    chain = folder / "chain0.rules"
    chain.write_text("table chain0 extends adr246\n")
    for number in range(1, 40):
        (folder / f"chain{number}.rules").write_text(f'table chain{number} extends "chain{number - 1}.rules"\n')
    return {"a symlink loop": folder / "loop", "a 5,000-character extends path": folder / "long.rules",
            "a NUL in an extends path": folder / "nul.rules", "a NUL in a path": str(folder / "a\x00.rules"),
            "an extends path that loops": folder / "loops.rules", "a folder": folder / "folder.rules",
            "a 5,000-character path": str(folder) + "/" + "y" * 5000,
            "a chain of 40 tables": folder / "chain39.rules", "a file that cannot be read": folder / "locked.rules"}


def test_every_failure_to_read_a_table_is_a_table_error(tmp_path):
    for what, path in unreadable_tables(tmp_path).items():
        if what == "a file that cannot be read" and os.geteuid() == 0:
            continue  # root reads every file
        with pytest.raises(turngate.TableError) as caught:
            turngate.load_table(path)
        text = str(caught.value)
        assert one_clean_line(text) and text.endswith(".") and len(text) < 400, (what, text)


def test_the_command_line_says_why_a_table_cannot_be_read_in_one_sentence(tmp_path):
    (tmp_path / "s.json").write_text("{}")
    (tmp_path / "a.json").write_text("{}")
    for what, path in unreadable_tables(tmp_path).items():
        if what == "a NUL in a path" or (what == "a file that cannot be read" and os.geteuid() == 0):
            continue  # no argument holds a NUL; root reads every file
        done = run("check", "--table", str(path), str(tmp_path / "s.json"), str(tmp_path / "a.json"))
        assert done.returncode == 2 and done.stderr.count("\n") == 1, (what, done.stderr)
        assert done.stderr.startswith("turngate: ") and one_clean_line(done.stderr[:-1]), (what, done.stderr)


# ── A host's rule kind that raises ──────────────────────────────────────────────────────

class RaisingRule:
    codes: ClassVar = ("boom",)
    facts: ClassVar = ()
    stage: ClassVar = "fits"

    def __init__(self, stage: str):
        self.stage = stage

    @classmethod
    def from_node(cls, node, context):
        if node.get("x-boom") == "from_node":
            raise KeyError("read \x1b[31m")
        return cls(node["x-boom"]) if "x-boom" in node else None

    def fits(self, value):
        if self.stage == "fits":
            raise ValueError("the host's bug\nsecond line")
        return self.stage != "findings"

    def findings(self, value, walk):
        raise RuntimeError("cannot word")
        yield

    def cast_value(self, value):
        if self.stage == "cast":
            raise TypeError("cannot cast")
        return value


@pytest.fixture
def raising_table(tmp_path):
    turngate.register_rule_kind("test-raising", RaisingRule)
    (tmp_path / "host.rules").write_text('table host extends adr246\nrule boom uses test-raising\n'
                                         'message boom "{argument} boom."\n')
    yield turngate.load_table(tmp_path / "host.rules")
    del turngate.kinds.registry.RULE_KINDS["test-raising"]


@pytest.mark.parametrize("stage, said", [("from_node", "KeyError: 'read \\x1b[31m' while reading a schema"),
                                         ("fits", "ValueError: the host's bug while testing a value"),
                                         ("findings", "RuntimeError: cannot word while reporting")])
def test_a_raising_rule_kind_is_a_rule_kind_error_naming_it(stage, said, raising_table):
    schema = {"type": "object", "properties": {"p": {"x-boom": stage}}}
    with pytest.raises(turngate.RuleKindError) as caught:
        turngate.compile_schema(schema, raising_table).check({"p": 1})
    assert str(caught.value) == f'the rule kind "test-raising" raised {said}.' and caught.value.kind == "test-raising"
    for gate in (lambda: check_turn([Call("1", "t", {"p": 1})], {"t": schema}, raising_table),
                 lambda: formats.mcp_calls.gate([{"name": "t", "arguments": {"p": 1}}],
                                                turngate.Toolset({"t": schema}, raising_table))):
        with pytest.raises(turngate.RuleKindError):
            gate()  # never a refusal, never a silent pass


def test_a_rule_kind_raising_in_a_cast_is_a_rule_kind_error(raising_table):
    compiled = turngate.compile_schema({"type": "integer", "x-boom": "cast"}, raising_table, casts=True)
    with pytest.raises(turngate.RuleKindError, match="TypeError: cannot cast while casting"):
        compiled.cast("5")


@pytest.fixture
def raising_extended(tmp_path):
    """The raising kind in a table that resolves references and judges unions."""
    turngate.register_rule_kind("test-raising", RaisingRule)
    (tmp_path / "host.rules").write_text('table host extends extended\nrule boom uses test-raising\n'
                                         'message boom "{argument} boom."\n')
    yield turngate.load_table(tmp_path / "host.rules")
    del turngate.kinds.registry.RULE_KINDS["test-raising"]


#: Where a host's rule sits behind a link: a reference's target compiled once (the queue of
#: targets), reached from its own depth and from deeper (a cycle back to the root), and a
#: union's branch looked up by the value's kind.
LINKED = {
    "target": lambda boom: {"$defs": {"t": {"type": "integer", "x-boom": boom}}, "type": "object",
                            "properties": {"p": {"$ref": "#/$defs/t"}}},
    "cycle": lambda boom: {"type": "object", "properties": {"p": {"$ref": "#"},
                                                            "q": {"type": "integer", "x-boom": boom}}},
    "union": lambda boom: {"type": "object", "properties": {"p": {"anyOf": [
        {"type": "integer", "x-boom": boom}, {"type": "null"}]}}},
}


@pytest.mark.parametrize("shape", LINKED)
@pytest.mark.parametrize("stage", ["from_node", "fits", "findings"])
def test_a_rule_kind_raising_behind_a_reference_or_a_union_is_a_rule_kind_error(shape, stage, raising_extended):
    """Each schema node is compiled once, as a reference's target or a union's branch, and its
    walk made when a value is first refused there: a host's kind raising in any of them is
    a RuleKindError all the same."""
    schema = LINKED[shape](stage)
    sent = {"p": {"p": {"q": 5}}} if shape == "cycle" else {"p": 5}
    with pytest.raises(turngate.RuleKindError, match='rule kind "test-raising"'):
        turngate.compile_schema(schema, raising_extended).check(sent)


class LazyRule(RaisingRule):
    """A kind whose walk is made when first asked for, as the engine's own kinds make theirs."""

    @property
    def collect(self):
        raise LookupError("no walk")


def test_a_rule_kind_whose_walk_raises_when_made_is_a_rule_kind_error(tmp_path):
    turngate.register_rule_kind("test-lazy", LazyRule)
    try:
        (tmp_path / "host.rules").write_text('table host extends extended\nrule boom uses test-lazy\n'
                                             'message boom "{argument} boom."\n')
        table = turngate.load_table(tmp_path / "host.rules")
        with pytest.raises(turngate.RuleKindError, match="LookupError: no walk while reading a schema"):
            turngate.compile_schema({"type": "integer", "x-boom": "findings"}, table)
    finally:
        del turngate.kinds.registry.RULE_KINDS["test-lazy"]


@pytest.mark.parametrize("shape", LINKED)
def test_a_rule_kind_raising_in_a_cast_behind_a_reference_or_a_union_is_a_rule_kind_error(shape, raising_extended):
    schema = LINKED[shape]("cast")
    sent = {"p": {"p": {"q": "5"}}} if shape == "cycle" else {"p": "5"}
    compiled = turngate.compile_schema(schema, raising_extended, casts=True)
    with pytest.raises(turngate.RuleKindError, match="TypeError: cannot cast while casting"):
        compiled.cast(sent)


@pytest.mark.parametrize("stage", ["fits", "from_node"])
def test_the_proxy_answers_a_call_its_rule_kind_cannot_judge_with_an_error(stage, raising_table, capsys):
    from turngate.mcp.proxy.call_gate import CallGate
    from turngate.mcp.proxy.core import Core
    from turngate.mcp.proxy.listing import Listing
    from turngate.mcp.proxy.session import Session

    class Upstream:  # the proxy's own requests are not asked for here: the list is given
        given_up, stream = False, None

    session = Session(Core(raising_table, casts=False), Upstream())
    listing = Listing(0, None)
    listing.add({"tools": [{"name": "t", "inputSchema": {"type": "object", "x-boom": stage}}]})
    session.tools.adopt(listing, None)
    ruling = CallGate(session).judge({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t"}})
    assert ruling.send is None and ruling.answer["id"] == 7 and "result" not in ruling.answer
    assert ruling.answer["error"]["code"] == -32603 and "test-raising" in ruling.answer["error"]["message"]
    assert capsys.readouterr().err.startswith('turngate proxy: the rule kind "test-raising" raised')


def test_the_command_line_gives_a_raising_plugin_one_sentence_and_exit_3(tmp_path):
    (tmp_path / "boom.py").write_text(
        "import turngate\nclass Boom:\n    codes = ('boom',)\n    facts = ()\n"
        "    @classmethod\n    def from_node(cls, node, context):\n        return cls() if 'x-boom' in node else None\n"
        "    def fits(self, value):\n        raise ValueError('bug')\n    def findings(self, value, walk):\n"
        "        return iter(())\nturngate.register_rule_kind('boom', Boom)\n")
    (tmp_path / "host.rules").write_text('table host extends adr246\nrule boom uses boom\nmessage boom "{argument} x."\n')
    (tmp_path / "s.json").write_text('{"x-boom": 1}')
    (tmp_path / "a.json").write_text("{}")
    done = run("check", "--plugin", str(tmp_path / "boom.py"), "--table", str(tmp_path / "host.rules"),
               str(tmp_path / "s.json"), str(tmp_path / "a.json"))
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr == 'turngate: the rule kind "boom" raised ValueError: bug while testing a value, so nothing was decided.\n'
    assert "3    a rule kind of a --plugin raised" in run("--help").stdout
