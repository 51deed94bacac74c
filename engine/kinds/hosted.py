"""A host's rule kind, used through a wrapper that turns whatever it raises into one error.

The engine's own kinds run as they are; a kind a host registers (`register_rule_kind`) runs
its code inside every compile, check and cast of a table that names it. Whatever that code
raises surfaces as a `RuleKindError` naming the rule kind and what it raised: never as a
refusal, never as a silent pass. The shipped kinds are not wrapped, so their path costs
nothing more.
"""

from __future__ import annotations

from typing import Any, Callable

from ..values.quoting import escaped
from .finding import EngineSignal, collector


class RuleKindError(Exception):
    """A host's rule kind raised while the engine used it (reading a schema, testing a value,
    reporting, casting). Its text is one sentence naming the rule kind, what it raised and
    where; `kind` is the kind's name in the table, `stage` what it was doing, and
    `__cause__` the exception it raised."""

    kind: str
    stage: str

    def __init__(self, kind: str, stage: str, error: BaseException):
        try:
            text = str(error).strip().split("\n")[0]
        except Exception:  # noqa: BLE001  (the host's exception may not even say what it is)
            text = ""
        text = escaped(text if len(text) <= 160 else text[:159] + "…").rstrip(".")
        said = f"{error.__class__.__name__}: {text}" if text else error.__class__.__name__
        super().__init__(f'the rule kind "{escaped(kind)}" raised {said} while {stage}.')
        self.kind, self.stage = kind, stage


def _guarded(kind: str, stage: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(*arguments: Any) -> Any:
        try:
            return function(*arguments)
        except (EngineSignal, RuleKindError, RecursionError):
            raise  # the engine's own (a cap reached, a stack too deep), or a kind below's
        except Exception as error:  # noqa: BLE001  (the host's code: anything may go wrong)
            raise RuleKindError(kind, stage, error) from error
    return guarded


class HostedKind:
    """A host's rule kind as a table's rule names it: `from_node` guarded, and each rule it
    makes wrapped in a `HostedRule`."""

    name: str
    kind: Any
    codes: Any
    facts: Any
    from_node: Callable[..., Any]

    def __init__(self, name: str, kind: Any):
        self.name, self.kind = name, kind
        self.codes, self.facts = kind.codes, kind.facts
        # The rule's methods are read in the guard too: a host may make one when first asked
        # for (a `collect` property), as the engine's own kinds do.
        self.from_node = _guarded(name, "reading a schema", self._read)

    def _read(self, node: dict[str, Any], context: Any) -> HostedRule | None:
        rule = self.kind.from_node(node, context)
        return None if rule is None else HostedRule(self.name, rule)


class HostedRule:
    """A rule of a host's kind, as the engine uses a rule: each method guarded. A method the
    rule lacks does what its absence would (casts nothing, reports as it walks)."""

    __slots__ = ("rule", "fits", "collect", "tests_as_it_walks", "_cast_value", "_cast", "_root_collect", "name")
    rule: Any
    fits: Callable[..., Any]
    collect: Callable[..., Any]
    tests_as_it_walks: Any | bool
    name: str

    def __init__(self, name: str, rule: Any):
        self.rule, self.name = rule, name
        self.fits = _guarded(name, "testing a value", rule.fits)
        self.collect = _guarded(name, "reporting", collector(rule))
        self.tests_as_it_walks = getattr(rule, "tests_as_it_walks", False)
        self._cast_value = getattr(rule, "cast_value", None)
        self._cast = getattr(rule, "cast", None)
        self._root_collect = getattr(rule, "root_collect", None)

    def cast_value(self, value: object) -> object:
        return value if self._cast_value is None else _guarded(self.name, "casting", self._cast_value)(value)

    def cast(self, value: object, caster: Any) -> object:
        return value if self._cast is None else _guarded(self.name, "casting", self._cast)(value, caster)

    def root_collect(self, word: Any) -> Any:
        if self._root_collect is None:
            return self.collect
        return _guarded(self.name, "reporting", _guarded(self.name, "reporting", self._root_collect)(word))


def hosted(name: str, kind: Any, shipped: frozenset[Any]) -> Any:
    """The kind a table's rule uses: the engine's own as it is, a host's wrapped."""
    return kind if kind in shipped else HostedKind(name, kind)
