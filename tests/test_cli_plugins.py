"""`--plugin MODULE` and `--table` on every command that checks: a host's rule kinds
(registered with `turngate.register_rule_kind`) used from the command line, with the
example of `examples/writing_a_rule/`; a plugin that cannot be imported is one sentence."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import turngate
from conftest import EXAMPLES, ROOT
from turngate.cli import main
from turngate.kinds.registry import RULE_KINDS

PLUGIN = str(EXAMPLES / "writing_a_rule" / "max_length.py")
HOST_TABLE = str(EXAMPLES / "writing_a_rule" / "host.rules")
SCHEMA = {"type": "object", "properties": {"title": {"type": "string", "maxLength": 20}}}
LONG = {"title": "Opening hours and holiday closures"}
TOO_LONG = '- "title" is 34 characters long; at most 20 are allowed.'


@pytest.fixture(autouse=True)
def shipped_kinds_only():
    """Other tests see only the shipped rule kinds and no plugin module."""
    kinds, modules = dict(RULE_KINDS), set(sys.modules)
    yield
    RULE_KINDS.clear()
    RULE_KINDS.update(kinds)
    for name in set(sys.modules) - modules:
        del sys.modules[name]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "a.json").write_text(json.dumps(LONG))
    return str(tmp_path / "s.json"), str(tmp_path / "a.json")


def run(capfd, *argv):
    status = main(list(argv))
    out, err = capfd.readouterr()
    return status, out, err


def test_check_uses_a_host_rule_kind_from_a_plugin_file(capfd, files):
    status, out, err = run(capfd, "check", "--plugin", PLUGIN, "--table", HOST_TABLE, *files)
    assert (status, err) == (1, "") and out.endswith(TOO_LONG + "\n")
    assert run(capfd, "check", *files)[0] == 0  # the default table has no such rule


def test_the_example_runs_as_an_installed_command_would():
    schema, arguments = (str(EXAMPLES / f"update_page_metadata.{n}.json") for n in ("schema", "ok"))
    argv = ["check", "--plugin", "examples/writing_a_rule/max_length.py", "--table",
            "examples/writing_a_rule/host.rules", schema, arguments]
    done = subprocess.run([sys.executable, "-m", "turngate.cli", *argv], capture_output=True, text=True, cwd=ROOT)
    assert (done.returncode, done.stdout, done.stderr) == (0, "OK\n", "")


def test_without_the_plugin_the_host_table_is_one_sentence_that_names_the_option(files):
    done = subprocess.run([sys.executable, "-m", "turngate.cli", "check", "--table", HOST_TABLE, *files],
                          capture_output=True, text=True, cwd=ROOT)
    assert (done.returncode, done.stdout) == (2, "") and done.stderr.count("\n") == 1
    assert 'host.rules:3:1: there is no rule kind "max-length"' in done.stderr
    assert done.stderr.endswith(" (give the module that registers it with --plugin MODULE).\n")


def test_a_plugin_is_also_a_module_name_importable_from_the_current_folder(capfd, files, tmp_path, monkeypatch):
    plugin = tmp_path / "plugin_folder"
    plugin.mkdir()
    (plugin / "host_kinds_for_a_test.py").write_text((EXAMPLES / "writing_a_rule" / "max_length.py").read_text())
    monkeypatch.chdir(plugin)
    status, out, _ = run(capfd, "check", "--plugin", "host_kinds_for_a_test", "--table", HOST_TABLE, *files)
    assert status == 1 and out.endswith(TOO_LONG + "\n")
    assert str(plugin) not in sys.path  # the current folder was searched for the plugin only


def test_batch_and_check_turn_take_plugins_too(capfd, tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": 1, "schema": SCHEMA, "arguments": LONG}) + "\n")
    status, out, _ = run(capfd, "batch", str(corpus), "--plugin", PLUGIN, "--table", HOST_TABLE)
    assert status == 1 and json.loads(out)["mismatches"][0]["code"] == "too-long"
    turn = tmp_path / "turn.json"
    turn.write_text(json.dumps({"tools": {"tools": [{"name": "t", "inputSchema": SCHEMA}]},
                                "calls": [{"name": "t", "arguments": LONG}]}))
    status, out, _ = run(capfd, "check-turn", str(turn), "--plugin", PLUGIN, "--table", HOST_TABLE)
    assert status == 1 and out.rstrip("\n").endswith(TOO_LONG)
    assert run(capfd, "coverage", str(turn), "--plugin", PLUGIN, "--table", HOST_TABLE)[0] == 0


@pytest.mark.parametrize("content, sentence", [
    (None, 'the plugin file "{path}" does not exist.'),
    ("1 / 0\n", 'the plugin "{path}" could not be imported (ZeroDivisionError: division by zero).'),
    ("x = )\n", 'the plugin "{path}" could not be imported (SyntaxError: unmatched \')\' (broken_plugin.py, line 1)).'),
    ("import sys\nsys.exit(3)\n", 'the plugin "{path}" could not be imported (SystemExit: 3).'),
    ("import turngate\nturngate.register_rule_kind('x', object)\n",
     "the plugin \"{path}\" could not be imported (TypeError: a rule kind needs 'codes'; object has none)."),
])
def test_a_plugin_file_that_cannot_be_imported_is_one_sentence_and_exit_2(capfd, files, tmp_path, content, sentence):
    path = tmp_path / "broken_plugin.py"
    if content is not None:
        path.write_text(content)
    assert run(capfd, "check", "--plugin", str(path), *files) == (
        2, "", f"turngate: {sentence.format(path=path)}\n")
    assert "broken_plugin" not in sys.modules


def test_a_module_that_cannot_be_found_is_one_sentence_and_exit_2(capfd, files, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run(capfd, "check", "--plugin", "no_such_plugin_module", *files) == (
        2, "", 'turngate: the plugin "no_such_plugin_module" is neither a module importable from the current '
               "folder nor a .py file.\n")
    (tmp_path / "needs_more.py").write_text("import no_such_dependency\n")
    assert run(capfd, "check", "--plugin", "needs_more", *files)[2] == (
        "turngate: the plugin \"needs_more\" could not be imported (ModuleNotFoundError: No module named "
        "'no_such_dependency').\n")


def test_a_folder_given_as_a_plugin_is_one_sentence(capfd, files, tmp_path):
    assert run(capfd, "check", "--plugin", str(tmp_path) + "/", *files) == (
        2, "", f'turngate: the plugin file "{tmp_path}/" is a folder, not a file.\n')


def test_the_fixture_leaves_only_the_shipped_kinds():
    assert "max-length" not in turngate.kinds.registry.RULE_KINDS


def test_a_plugin_file_is_read_as_python_whatever_its_name_ends_with(capfd, files, tmp_path):
    """A path without ".py" is still a file of Python source, not a traceback."""
    plugin = tmp_path / "max_length.plugin"
    plugin.write_text(open(PLUGIN).read())
    status, out, err = run(capfd, "check", "--plugin", str(plugin), "--table", HOST_TABLE, *files)
    assert (status, err) == (1, "") and out.endswith(TOO_LONG + "\n")
    broken = tmp_path / "broken"
    broken.write_text("this is not python\n")
    status, out, err = run(capfd, "check", "--plugin", str(broken), *files)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err
