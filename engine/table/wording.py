"""What the model is told: a table's messages and answers, filled by plain functions.

For each code, `Wording` tries the code's messages most specific first: a message is used
when every text it names (its guards and its placeholders) is known for the finding. Each
text is made once per finding, by the function `text_makers` names for it, from the facts
the rule kind reported; a fact a host's rule kind declares is quoted like a sent value. The
sentence is cut to the table's length and begins with a capital.
"""

from __future__ import annotations

from operator import itemgetter
from string import Formatter
from typing import TYPE_CHECKING, Any, Callable

from ..kinds.registry import RULE_KINDS
from ..values.kinds import KIND_BY_TYPE, kind_of
from ..values.quoting import ELLIPSIS, join_phrases, name_path, quote_any, quote_list, quote_scalar, quote_text
from .entries import Table
from .vocabulary import HOST_FACT_WIDTH, MESSAGE_TEXTS, MODEL_TEXTS

if TYPE_CHECKING:
    from ..kinds.verdict import Verdict

#: `text(facts, path)`: one text of a message, or None when its facts were not reported.
TextMaker = Callable[[dict[str, Any], tuple[Any, ...]], "str | None"]

_ABSENT: object = object()
_UNMADE: object = object()
_UNQUOTED = (None, "list", "object")  # no scalar to quote: named by its kind instead
_DECIDED_KINDS = ("absent", "list", "object")
#: Where a decided sentence names the argument (no table text can hold a NUL).
_ARGUMENT = "\x00argument\x00"


def host_facts(code: str) -> set[str]:
    """The facts hosts' rule kinds declare for findings of `code`: texts the engine does not
    make (or makes otherwise) from them."""
    return {fact for kind in RULE_KINDS.values() if code in kind.codes for fact in kind.facts}


class TableWords:
    """A table's sentences: each code's `Wording`, the phrases of its types and kinds of
    value, and its answers. Made once per table; the phrases it has made are kept."""

    table: Table
    length: int
    answers: dict[str, str]

    def __init__(self, table: Table):
        self.table, self.length = table, table.limit["message-length"]
        self.answers = table.answer
        self._types = {entry.name: entry.phrase for entry in table.types}
        self._kinds = {entry.kind: entry.phrase for entry in table.values}
        self._expected: dict[tuple[Any, ...], str] = {}
        self._sent_kinds: dict[object, str] = {}
        self._wordings: dict[str, Wording] = {}

    def wording(self, code: str) -> Wording:
        """The sentence function of `code`, made when first asked for."""
        wording = self._wordings.get(code)
        if wording is None:
            wording = self._wordings[code] = Wording(self, code)
        return wording

    def expected(self, types: tuple[str, ...]) -> str:
        """How a message names what declared types expect: "text or a list"."""
        phrase = self._expected.get(types)
        if phrase is None:
            names = [self._types.get(name, name) for name in types]
            phrase = self._expected[types] = join_phrases(names, MESSAGE_TEXTS["expected"])
        return phrase

    def kind_of_value(self, kind: str | None, width: int = MESSAGE_TEXTS["sent_kind"]) -> str:
        """How a message names a kind of value ("a list"), at most `width` characters."""
        phrase = self._sent_kinds.get((kind, width))
        if phrase is None:
            text = self._kinds.get(kind or "", "a value")
            phrase = self._sent_kinds[(kind, width)] = text if len(text) <= width else text[: width - 1] + ELLIPSIS
        return phrase

    def answer(self, name: str, **facts: object) -> str:
        """One of the table's answers: the model's own texts (tool names, call ids) quoted and
        cut; the engine's (a message, a JSON error, a number) as they are."""
        texts = {key: _model_text(value, MODEL_TEXTS[key]) if key in MODEL_TEXTS else value
                 for key, value in facts.items()}
        return self.answers[name].format_map(texts)

    def refusal(self, tool: str, verdict: Verdict) -> str:
        """The answer to a refused call: the table's header, then one line per mismatch."""
        lines = [self.answer("refused", tool=tool)]
        lines += [self.answers["item"].format(message=m.message) for m in verdict.mismatches]
        if verdict.truncated:
            lines.append(self.answers["cut"].format(limit=len(verdict.mismatches)))
        return "\n".join(lines)


class Wording:
    """The sentence for findings of one code: `wording(facts, path)`. The messages are tried
    most specific first; each text a message names is made once per finding, when first
    needed, and the first message whose texts are all known is filled."""

    __slots__ = ("makers", "messages", "length", "_argument", "_decided")
    makers: tuple[Callable[[dict[str, Any], tuple[Any, ...]], str | None], ...]
    length: int

    def __init__(self, words: TableWords, code: str):
        self.length = words.length
        hosted = host_facts(code)
        names: dict[str, int] = {}  # each text's place in the list a finding's texts are made into
        # Each message: its template, the texts it needs (guards and placeholders), and how
        # its placeholders' texts are picked from them.
        self.messages: list[tuple[str, tuple[int, ...], Callable[[list[Any]], tuple[Any, ...]], tuple[int, ...]]] = []
        for entry in words.table.messages_for(code):
            parsed = list(Formatter().parse(entry.template))
            template = "".join(literal.replace("%", "%%") + ("%s" if name is not None else "")
                               for literal, name, _, _ in parsed)
            fields = [name for _, name, _, _ in parsed if name is not None]
            for name in (*entry.guards, *fields):
                names.setdefault(name, len(names))
            needed = tuple(dict.fromkeys(names[name] for name in (*entry.guards, *fields)))
            places = tuple(names[name] for name in fields)
            self.messages.append((template, needed, _picker(places), places))
        self.makers = tuple(text_maker(name, words, hosted) for name in names)
        # The argument's text, where the engine makes it from the path alone; and what
        # `decided` made, by types and kind of value.
        self._argument = names.get("argument") if "argument" not in hosted else None
        self._decided: dict[tuple[Any, ...], tuple[str, str] | None] = {}

    def __call__(self, facts: dict[str, Any], path: tuple[Any, ...]) -> str:
        texts: list[Any] = [_UNMADE] * len(self.makers)
        chosen = self._chosen(texts, facts, path)
        if chosen is None:
            # Every text a host's fact should give was not reported: the plainest message,
            # with what is unknown marked rather than guessed.
            template, _, _, places = self.messages[-1]
            made = [self.makers[i](facts, path) if texts[i] is _UNMADE else texts[i] for i in places]
            return self._finished(template % tuple([ELLIPSIS if text is None else text for text in made]))
        sentence = chosen[0] % chosen[2](texts)
        return self._finished(sentence) if len(sentence) > self.length or sentence[:1].islower() else sentence

    def _chosen(self, texts: list[Any], facts: dict[str, Any], path: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """The first message whose texts are all known, each text made into `texts` when
        first needed; None when none is."""
        makers = self.makers
        for message in self.messages:
            for index in message[1]:
                text = texts[index]
                if text is _UNMADE:
                    text = texts[index] = makers[index](facts, path)
                if text is None:
                    break
            else:
                return message
        return None

    def decided(self, facts: dict[str, Any], path: tuple[Any, ...]) -> str:
        """The sentence of a finding the schema alone decides (its facts: the declared types,
        and a list or an object sent, if any), as `wording(facts, path)` makes it. All but
        the argument's name is the same for each such finding of the same types and kind of
        value, so the rest is made once per table."""
        value = facts.get("value", _ABSENT)
        kind = "absent" if value is _ABSENT else _kind(value)
        if self._argument is None or kind not in _DECIDED_KINDS or len(facts) != 1 + (value is not _ABSENT):
            return self(facts, path)
        key = (facts.get("types"), kind)
        made = self._decided.get(key)
        if made is None:
            made = self._decided[key] = self._around_argument(facts, path)
        if made is None:
            return self(facts, path)
        before, after = made
        sentence = before + self.makers[self._argument](facts, path) + after  # type: ignore[operator]
        return self._finished(sentence) if len(sentence) > self.length or sentence[:1].islower() else sentence

    def _around_argument(self, facts: dict[str, Any], path: tuple[Any, ...]) -> tuple[str, str] | None:
        """The sentence of a decided finding but for the argument's name, as the text before
        it and the text after it; None where the argument is not named exactly once."""
        texts: list[Any] = [_UNMADE] * len(self.makers)
        texts[self._argument] = _ARGUMENT  # type: ignore[index]
        chosen = self._chosen(texts, facts, path)
        if chosen is None:
            return None
        parts = (chosen[0] % chosen[2](texts)).split(_ARGUMENT)
        return (parts[0], parts[1]) if len(parts) == 2 else None

    def _finished(self, sentence: str) -> str:
        if len(sentence) > self.length:
            sentence = sentence[: self.length - 2] + ELLIPSIS + "."
        return sentence[0].upper() + sentence[1:] if sentence[:1].islower() else sentence


def _picker(fields: tuple[int, ...]) -> Callable[[list[Any]], tuple[Any, ...]]:
    """The texts a template's placeholders take, in order, from a finding's list of texts."""
    if len(fields) == 1:
        (field,) = fields
        return lambda texts: (texts[field],)
    return itemgetter(*fields) if fields else lambda texts: ()


def text_maker(name: str, words: TableWords, hosted: set[str]) -> TextMaker:
    """The function that makes one text of a message. A host's fact of an engine text's
    name is its own text, the engine's where the host did not report it."""
    engine = _engine_text(name, words)
    if name not in hosted and engine is not None:
        return engine
    host = _host_text(name)
    if engine is None:
        return host
    def host_else_engine(facts: dict[str, Any], path: tuple[Any, ...]) -> str | None:
        text = host(facts, path)
        return engine(facts, path) if text is None else text
    return host_else_engine


def _engine_text(name: str, words: TableWords) -> TextMaker | None:
    if name == "argument":
        width = MESSAGE_TEXTS["argument"]
        return lambda facts, path: name_path(path, width)
    if name == "sent_kind":
        return lambda facts, path: (None if (value := facts.get("value", _ABSENT)) is _ABSENT
                                    else words.kind_of_value(_kind(value)))
    if name == "sent":
        width = MESSAGE_TEXTS["sent"]
        return lambda facts, path: (None if (value := facts.get("value", _ABSENT)) is _ABSENT
                                    or _kind(value) in _UNQUOTED else quote_scalar(value, width))
    if name == "expected":
        return lambda facts, path: words.expected(types) if (types := facts.get("types")) else None
    if name == "sent_json":
        width = MESSAGE_TEXTS["sent_json"]
        return lambda facts, path: None if (held := facts.get("json")) is None else words.kind_of_value(held, width)
    if name == "allowed":
        width = MESSAGE_TEXTS["allowed"]
        return lambda facts, path: quote_list(allowed, width) if (allowed := facts.get("allowed")) else None
    if name == "closest":
        width = MESSAGE_TEXTS["closest"]
        return lambda facts, path: quote_text(closest, width) if (closest := facts.get("closest")) else None
    return None


def _host_text(name: str) -> TextMaker:
    """A fact a host's rule kind declares, quoted like a sent value."""
    def text(facts: dict[str, Any], path: tuple[Any, ...]) -> str | None:
        other = facts.get(name)
        if other is None:
            return None
        return quote_list(other, HOST_FACT_WIDTH) if kind_of(other) == "list" else quote_any(other, HOST_FACT_WIDTH)
    return text


def _model_text(value: object, width: int) -> str:
    """A text of the model's own (a tool's name, a call id) quoted as JSON: a call id of
    another kind as the JSON value it is (`null`, `true`, `5`), never as Python writes it."""
    return quote_text(value, width) if type(value) is str else quote_any(value, width)


def _kind(value: object) -> str | None:
    return KIND_BY_TYPE.get(type(value)) or kind_of(value)
