"""The closest allowed name to one the model sent ("did you mean ...")."""

from __future__ import annotations

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
    for name in allowed:
        if len(name) > LONGEST_COMPARED:
            continue
        folded = _folded(name)
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


def _folded(name: str) -> str:
    return name.casefold().replace("_", "").replace("-", "").replace(" ", "")


def _edits(a: str, b: str, bound: int) -> int:
    """Edit distance (insert, delete, replace, swap neighbours), or bound + 1 past bound."""
    previous2: list[int] | None = None
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, char_b in enumerate(b, 1):
            cost = char_a != char_b
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if previous2 is not None and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > bound:
            return bound + 1
        previous2, previous = previous, current
    return previous[-1]
