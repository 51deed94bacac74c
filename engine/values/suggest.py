"""The closest allowed name to one the model sent ("did you mean ...").

The search has a fixed budget per name sent, whatever the schema: the allowed names of the
lengths nearest the sent one are compared first, and once the budget of characters compared
is spent, the closest name found so far is the answer. A check words at most the table's cap
of findings, so a check's search is bounded too.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

#: Names longer than this are not compared: the model did not mistype them.
LONGEST_COMPARED = 64
#: Per name sent: the allowed names looked at (by the characters they hold, a cheap lower
#: bound of the edits), and the characters of a sent name compared edit by edit.
MOST_LOOKED_AT = 128
BUDGET = 512


def closest_name(sent: object, allowed: tuple[str, ...]) -> str | None:
    """The allowed name closest to `sent` by edits, if it is close; the first of equals.

    Case and the separators `_`, `-` and space are ignored, so "pageUid" finds "page_uid".
    Close means at most a third of the shorter name is edited, and never all of it.
    """
    return suggester(allowed)(sent)


@lru_cache(maxsize=1024)
def suggester(allowed: tuple[str, ...]) -> Callable[[object], str | None]:
    """`closest_name` for one tuple of allowed names, each folded and read into its pattern
    once (the same names are offered call after call)."""
    return Suggester(allowed).closest


class Suggester:
    """The allowed names by folded length, each read into its pattern when first compared."""

    __slots__ = ("_by_length", "_by_folded", "_patterns", "_lengths_for", "compared")
    compared: int

    def __init__(self, allowed: tuple[str, ...]):
        self._by_length: dict[int, list[tuple[int, str, str, frozenset[str]]]] = {}
        self._by_folded: dict[str, str] = {}  # the first name of each folded spelling: no edit at all
        for index, name in enumerate(allowed):
            if len(name) <= LONGEST_COMPARED:
                folded = _folded(name)
                self._by_length.setdefault(len(folded), []).append((index, name, folded, frozenset(folded)))
                self._by_folded.setdefault(folded, name)
        self._patterns: dict[str, _Pattern] = {}
        self._lengths_for: dict[int, tuple[int, ...]] = {}  # per size sent: the lengths worth trying, nearest first
        self.compared = 0  # characters compared, in all: what the budget bounds

    def closest(self, sent: object) -> str | None:
        if type(sent) is not str or len(sent) > LONGEST_COMPARED or not self._by_length:
            return None
        wanted = _folded(sent)
        exact = self._by_folded.get(wanted)
        if exact is not None:
            return exact
        size = len(wanted)
        lengths = self._lengths_for.get(size)
        if lengths is None:
            lengths = self._lengths_for[size] = _nearest_lengths(size, self._by_length)
        if not lengths:
            return None  # no allowed name is near it in length
        budget, cost, looks, held = BUDGET, max(size, 1), MOST_LOOKED_AT, frozenset(wanted)
        best: tuple[int, int, str] | None = None  # (distance, index in `allowed`, name)
        for length in lengths:
            bound = max(1, min(size, length) // 3)
            bound = bound if best is None else min(bound, best[0])
            if abs(size - length) > bound:
                continue
            for index, name, folded, chars in self._by_length[length]:
                if budget < cost or not looks:
                    return None if best is None else best[2]
                looks -= 1
                if len(held - chars) > bound or len(chars - held) > bound:
                    continue  # each character one name holds and the other not costs an edit
                budget -= cost
                self.compared += cost
                distance = self._pattern(folded).edits(wanted)
                if distance <= bound and distance < max(min(size, length), 1) and (
                        best is None or (distance, index) < best[:2]):
                    best = (distance, index, name)
                    if distance == 0:
                        return name  # names of one folded length are kept in their order
        return None if best is None else best[2]

    def _pattern(self, folded: str) -> _Pattern:
        pattern = self._patterns.get(folded)
        if pattern is None:
            pattern = self._patterns[folded] = _Pattern(folded)
        return pattern


def _nearest_lengths(size: int, by_length: dict[int, Any]) -> tuple[int, ...]:
    """The lengths of allowed names within the edits a name of `size` may differ by, nearest
    to `size` first (shorter first among equals)."""
    near = [length for length in by_length if abs(size - length) <= max(1, size // 3)]
    return tuple(sorted(near, key=lambda length: (abs(length - size), length)))


def _folded(name: str) -> str:
    return name.casefold().replace("_", "").replace("-", "").replace(" ", "")


class _Pattern:
    """An allowed name read for the bit-parallel edit distance (Hyyrö, 2003): per character,
    the bits of the positions it holds, so each character of a sent name costs a few
    integer operations instead of a row of cells."""

    __slots__ = ("positions", "mask", "top", "length")

    def __init__(self, name: str):
        self.positions: dict[str, int] = {}
        for index, char in enumerate(name):
            self.positions[char] = self.positions.get(char, 0) | (1 << index)
        self.length, self.mask, self.top = len(name), (1 << len(name)) - 1, 1 << max(len(name) - 1, 0)

    def edits(self, text: str) -> int:
        """The optimal string alignment distance to `text`: inserts, deletes, replaces and
        swaps of neighbours, no substring edited twice."""
        if not self.length:
            return len(text)
        positions, mask, top = self.positions, self.mask, self.top
        plus, minus, matched, previous = mask, 0, 0, 0
        score = self.length
        for char in text:
            here = positions.get(char, 0)
            swapped = (((~matched) & here) << 1) & previous
            matched = ((((here & plus) + plus) ^ plus) | here | minus | swapped) & mask
            up = minus | (~(matched | plus) & mask)
            down = matched & plus
            if up & top:
                score += 1
            elif down & top:
                score -= 1
            up = ((up << 1) | 1) & mask
            down = (down << 1) & mask
            plus = down | (~(matched | up) & mask)
            minus = matched & up
            previous = here
        return score
