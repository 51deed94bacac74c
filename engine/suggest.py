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
    """`closest_name` for one tuple of allowed names, with their folded forms computed once
    (the same names are offered call after call), and the lengths no close name can have."""
    folded_names = tuple((name, folded, len(folded)) for name in allowed
                         if len(name) <= LONGEST_COMPARED for folded in (_folded(name),))
    if not folded_names:
        return lambda sent: None
    # A sent name longer than `longest` or shorter than `shortest` (folded) differs in
    # length from every allowed name by more than the edits allowed.
    longest = max(length + max(1, length // 3) for _, _, length in folded_names)
    shortest = min(length for _, _, length in folded_names)

    def closest(sent: object) -> str | None:
        if type(sent) is not str or len(sent) > LONGEST_COMPARED:
            return None
        wanted = _folded(sent)
        size = len(wanted)
        if size > longest or size + max(1, size // 3) < shortest:
            return None
        best, best_distance = None, None
        for name, folded, length in folded_names:
            bound = max(1, min(size, length) // 3)
            if best_distance is not None:
                bound = min(bound, best_distance - 1)
            if abs(size - length) > bound:
                continue
            distance = _edits(wanted, folded, bound)
            if distance <= bound and distance < max(min(size, length), 1):
                best, best_distance = name, distance
                if distance == 0:
                    break
        return best
    return closest


def _folded(name: str) -> str:
    return name.casefold().replace("_", "").replace("-", "").replace(" ", "")


def _edits(a: str, b: str, bound: int) -> int:
    """Edit distance (insert, delete, replace, swap neighbours), or bound + 1 past bound.

    Only the band of cells within `bound` of the diagonal can hold a distance within bound,
    so only those are computed: the cost is the name's length times the bound.
    """
    far = bound + 1
    width = len(b)
    previous2: list[int] = []
    previous = [j if j <= bound else far for j in range(width + 1)]
    for i in range(1, len(a) + 1):
        current = [far] * (width + 1)
        current[0] = i if i <= bound else far
        char_a = a[i - 1]
        for j in range(max(1, i - bound), min(width, i + bound) + 1):
            char_b = b[j - 1]
            best = previous[j - 1] + (char_a != char_b)
            if previous[j] + 1 < best:
                best = previous[j] + 1
            if current[j - 1] + 1 < best:
                best = current[j - 1] + 1
            if previous2 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b and previous2[j - 2] + 1 < best:
                best = previous2[j - 2] + 1
            current[j] = best if best <= bound else far
        if min(current) > bound:
            return far
        previous2, previous = previous, current
    return previous[width]
