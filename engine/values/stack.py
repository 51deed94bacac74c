"""The engine's verdicts never depend on how deep in its own stack a host calls it.

Compiling, checking and casting recurse once per level of a schema (at most the table's
`limit depth`, 64), and decoding JSON text once per level of its nesting: under the shipped
tables, a little over half of Python's default 1,000 frames at the most. A host that calls
from deeper in its own stack than that leaves room for meets a `RecursionError`, which the
engine does not turn into an answer where the host is called from (a text "nested too
deeply", a judge that "cannot tell"): it lets it rise to the call the host made, and that
call is made again in a thread of its own, whose stack starts empty. There, and only there,
a `RecursionError` is the input's own depth, and is answered as such.
"""

from __future__ import annotations

import threading
from typing import Callable, TypeVar

T = TypeVar("T")

_state = threading.local()


def on_a_fresh_stack() -> bool:
    """Whether this thread is one the engine started to do a host's call again."""
    return getattr(_state, "fresh", False)


def again_on_a_fresh_stack(error: RecursionError, function: Callable[..., T], *arguments: object) -> T:
    """`function(*arguments)` done again in a thread of its own (its result, or what it
    raised); `error` itself where this already is such a thread."""
    if on_a_fresh_stack():
        raise error
    outcome: list[tuple[bool, object]] = []

    def run() -> None:
        _state.fresh = True
        try:
            outcome.append((True, function(*arguments)))
        except BaseException as raised:  # noqa: BLE001  (handed to the caller's thread as it is)
            outcome.append((False, raised))

    thread = threading.Thread(target=run, name="turngate-fresh-stack", daemon=True)
    thread.start()
    thread.join()
    done, result = outcome[0]
    if not done:
        raise result  # type: ignore[misc]
    return result  # type: ignore[return-value]
