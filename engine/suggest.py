"""The closest allowed name to one the model sent ("did you mean ...")."""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

#: Names longer than this are not compared: the model did not mistype them.
LONGEST_COMPARED = 64


def closest_name(sent: object, allowed: tuple[str, ...]) -> str | None:
    """The allowed name closest to `sent` by edits, if it is close; the first of equals.

    Case and the separators `_`, `-` and space are ignored, so "pageUid" finds "page_uid".
    Close means at most a third of the shorter name is edited, and never all of it.
    """
    return suggester(allowed)(sent)


@lru_cache(maxsize=1024)
def suggester(allowed: tuple[str, ...]) -> Callable[[object], str | None]:
    """`closest_name` for one tuple of allowed names, each folded and read into its
    pattern once (the same names are offered call after call), and the lengths no close
    name can have."""
    patterns = tuple((name, length, _Pattern(folded)) for name in allowed if len(name) <= LONGEST_COMPARED
                     for folded in (_folded(name),) for length in (len(folded),))
    if not patterns:
        return lambda sent: None
    # A sent name longer than `longest` or shorter than `shortest` (folded) differs in
    # length from every allowed name by more than the edits allowed.
    longest = max(length + max(1, length // 3) for _, length, _ in patterns)
    shortest = min(length for _, length, _ in patterns)

    def closest(sent: object) -> str | None:
        if type(sent) is not str or len(sent) > LONGEST_COMPARED:
            return None
        wanted = _folded(sent)
        size = len(wanted)
        if size > longest or size + max(1, size // 3) < shortest:
            return None
        best, best_distance = None, None
        for name, length, pattern in patterns:
            bound = max(1, min(size, length) // 3)
            if best_distance is not None:
                bound = min(bound, best_distance - 1)
            if abs(size - length) > bound:
                continue
            distance = pattern.edits(wanted)
            if distance <= bound and distance < max(min(size, length), 1):
                best, best_distance = name, distance
                if distance == 0:
                    break
        return best
    return closest


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
