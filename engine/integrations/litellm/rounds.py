"""Corrective rounds: a refused turn is answered to the model (its turn, then a `tool`
message per call id with turngate's text) and the model is asked again, each round adding
to the conversation, until a turn fits or the rounds are spent. A request that fails ends
the rounds: the gateway fails closed rather than return a turn nobody checked."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from attrs import frozen

from turngate import CallAnswer, refused_steps
from turngate.formats import openai_chat

from .options import GateOptions, keep_steps
from .turns import Round, Tokens, turn_number

#: Asks the model again with the conversation so far, the round's number (1, 2...).
Ask = Callable[[list[dict[str, Any]], int], Awaitable[Round]]


@frozen
class Outcome:
    """`fitting`: the round whose turn the app gets, or None when none fits (`why` and the
    last turn's `answers` then say so). `tokens`: of every round, the first one included."""

    fitting: Round | None
    tokens: Tokens
    rounds: int
    why: str = ""
    answers: tuple[CallAnswer, ...] = ()

    @property
    def text(self) -> str:
        """What the app reads instead of the calls when no turn fits."""
        lines = [f"turngate: the model's tool calls did not fit the tools' schemas, so none was returned: {self.why.rstrip('.')}."]
        if self.answers:
            lines.append("The answers to its last turn:")
            lines += [f"[{answer.call_id}] {answer.text}" for answer in self.answers]
        return "\n".join(lines)


async def corrected(first: Round, messages: tuple[dict[str, Any], ...], ask: Ask, options: GateOptions) -> Outcome:
    """The outcome of a refused first round after at most `options.rounds` corrections."""
    conversation: list[Any] = list(messages)
    turn = turn_number(messages)
    last, tokens = first, first.tokens
    _record(last, turn, options)
    for number in range(1, options.rounds + 1):
        if last.verdict is None:  # a turn that could not be read has no answers to send back
            return Outcome(None, tokens, number - 1, str(last.unreadable))
        conversation += [last.message, *openai_chat.reply(last.verdict)]
        try:
            last = await ask(conversation, number)
        except Exception as error:  # noqa: BLE001  (any failure of the upstream fails closed)
            return Outcome(None, tokens, number, f"the corrective request failed ({type(error).__name__})",
                           _answers(last))
        tokens += last.tokens
        if last.fits:
            return Outcome(last, tokens, number)
        _record(last, turn + number, options)
    if last.unreadable is not None:
        return Outcome(None, tokens, options.rounds, last.unreadable)
    spent = {0: "no corrective round is allowed", 1: "the one corrective round was spent"}.get(
        options.rounds, f"all {options.rounds} corrective rounds were spent")
    return Outcome(None, tokens, options.rounds, spent, _answers(last))


def _answers(last: Round) -> tuple[CallAnswer, ...]:
    return last.verdict.answers if last.verdict is not None else ()


def _record(refused: Round, turn: int, options: GateOptions) -> None:
    if refused.verdict is not None and (options.record is not None or options.steps is not None):
        keep_steps(options, refused_steps(refused.verdict, turn, options.privacy))
