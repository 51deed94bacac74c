"""One source for each vocabulary of the table language, and every entry a table may declare
does what it says: each skip trigger skips with it and judges without it, each text a
message may use is made by the engine, each answer is worded by the default table."""

from __future__ import annotations

import pytest

import turngate
from turngate.compile.reading import TRIGGERS
from turngate.table.vocabulary import ANSWERS, MESSAGE_TEXTS, SKIP_TRIGGERS
from turngate.table.wording import TableWords, text_maker

#: Per trigger, a table's skip entry, and a value and schema it decides: refused where the
#: node is judged, passed where the trigger skips it.
SKIPPED_BY = {
    "keyword": ('skip keyword "x-opaque"', {"type": "object", "x-opaque": 1, "required": ["a"]}, {}),
    "malformed-type": ("skip malformed-type", {"type": [], "required": ["a"]}, {}),
    "unknown-type": ("skip unknown-type", {"type": ["object", "dict"], "required": ["a"]}, {}),
    "unresolved-ref": ("skip unresolved-ref", {"$ref": "#/nowhere", "required": ["a"]}, {}),
    "mixed-union": ("skip mixed-union", {"anyOf": [{"type": "object"}, {}], "required": ["a"]}, {}),
}


def test_the_triggers_the_language_names_are_the_ones_the_compiler_implements():
    assert set(SKIP_TRIGGERS) == {"keyword", *TRIGGERS}
    assert set(SKIPPED_BY) == set(SKIP_TRIGGERS)


@pytest.mark.parametrize("trigger", sorted(SKIPPED_BY))
def test_each_skip_trigger_skips_with_it_and_judges_without_it(trigger, tmp_path):
    entry, schema, sent = SKIPPED_BY[trigger]
    # A table of its own (extending nothing), so no other trigger of adr246 is in play.
    base = (turngate.shipped_tables()["adr246"].read_text()
            .replace('skip keyword "$ref" "oneOf" "anyOf" "allOf" "not" "if"\n', "")
            .replace("skip malformed-type\n", "").replace("skip unknown-type\n", "")
            .replace("table adr246", "table bare"))
    without = tmp_path / "without.rules"
    without.write_text(base)
    with_it = tmp_path / "with.rules"
    with_it.write_text(base + "\n" + entry + "\n")
    assert not turngate.compile_schema(schema, turngate.load_table(without)).check(sent).ok
    assert turngate.compile_schema(schema, turngate.load_table(with_it)).check(sent).ok


def test_a_table_may_not_name_what_is_always_skipped(tmp_path):
    (tmp_path / "t.rules").write_text("table t extends adr246\nskip not-object\n")
    with pytest.raises(turngate.TableError, match='"not-object" is not a skip trigger: a schema that is not an '
                                                  "object is always skipped, so drop this line"):
        turngate.load_table(tmp_path / "t.rules")


def test_every_text_a_message_may_use_is_made_by_the_engine():
    words = TableWords(turngate.load_table())
    for name in MESSAGE_TEXTS:
        made = text_maker(name, words, hosted=set())
        assert made({"value": 5, "types": ("string",), "allowed": ("a",), "closest": "a", "json": "object"},
                    ("x",)) is not None, name


def test_the_default_table_words_every_answer_the_language_names():
    assert set(turngate.load_table().answer) == set(ANSWERS)
