"""The closest allowed name to one the model sent ("did you mean ...")."""

from __future__ import annotations

from functools import lru_cache

#: Names longer than this are not compared: the model did not mistype them.
LONGEST_COMPARED = 64


def closest_name(sent: object, allowed: tuple[str, ...]) -> str | None:
    """The allowed name closest to `sent` by edits, if it is close; the first of equals.

    Case and the separators `_`, `-` and space are ignored, so "pageUid" finds "page_uid".
    Close means at most a third of the shorter name is edited, and never all of it.
    """
    if type(sent) is not str or len(sent) > LONGEST_COMPARED:
        return None
    wanted = _folded(sent)
    best, best_distance = None, None
    for name, folded in _folded_names(allowed):
        if folded is None:
            continue
        shorter = min(len(wanted), len(folded))
        bound = max(1, shorter // 3)
        if best_distance is not None:
            bound = min(bound, best_distance - 1)
        if abs(len(wanted) - len(folded)) > bound:
            continue
        distance = _edits(wanted, folded, bound)
        if distance <= bound and distance < max(shorter, 1):
            best, best_distance = name, distance
            if distance == 0:
                break
    return best


@lru_cache(maxsize=1024)
def _folded_names(allowed: tuple[str, ...]) -> tuple[tuple[str, str | None], ...]:
    """Each allowed name with its folded form (None for names too long to compare): the
    same names are offered call after call."""
    return tuple((name, _folded(name) if len(name) <= LONGEST_COMPARED else None) for name in allowed)


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
