"""Where a phone number may end inside a run of digit groups, for every group in one pass.

``phones._judge`` tries the run's numbers from the longest down, cutting after group ``j - 1``
where that is allowed (decision 0292). Asking, for each ``j``, whether the separator before
group ``j`` was already used inside the number rebuilt the set of earlier separators every
time: quadratic in the groups of a spaced-digit list (a 256-character hold of ``1234 5678 ...``
judged every batch). :func:`cut_points` answers for every ``j`` at once: a separator kind is new
at ``j`` exactly when its first occurrence is the separator before group ``j``.
"""

from __future__ import annotations

import re

__all__ = ["cut_points", "separator_kind"]


def separator_kind(sep: str) -> str:
    """The kind of a separator between digit groups: its non-space core, else one space or
    more than one."""
    core = sep.strip(" ")
    if not core:
        return " " if len(sep) == 1 else "  "
    return core


def cut_points(run: str, groups: list[tuple[int, int]], strong: re.Pattern[str]) -> list[bool]:
    """For each group index ``j`` (0 unused), whether a national number may end after group
    ``j - 1`` with more digits after it.

    Allowed when the separator before group ``j`` holds a space and at most four digits follow
    (a digit, a date or a count after it: ``2 times``, ``11/27``), when it is a strong break
    (``strong``, or holds ``+``), when its kind did not occur between earlier groups, or when
    the groups after it, to the run's end, repeat the sizes and separators of the groups
    before it (two numbers written alike in a row: ``070-123 04 86 070-987 65 43``; 0391).
    """
    count = len(groups)
    out = [False] * count
    after = 0  # digits in groups j.. (the groups are runs of digits)
    first: dict[str, int] = {}
    seps = [run[groups[i][1] : groups[i + 1][0]] for i in range(count - 1)]
    kinds = [separator_kind(sep) for sep in seps]  # each kind once, not once per question
    for i, kind in enumerate(kinds):
        first.setdefault(kind, i)
    sizes = [end - start for start, end in groups]
    for j in range(count - 1, 0, -1):
        start, end = groups[j]
        after += end - start
        sep = seps[j - 1]
        out[j] = (
            (" " in sep and after <= 4)
            or "+" in sep
            or strong.fullmatch(sep) is not None
            or first[kinds[j - 1]] == j - 1
            or (" " in sep and _repeats(sizes, kinds, j))
        )
    return out


_MOST_GROUPS = 6
"""The most groups a phone number is written in: longer repeats are not looked for (the
check stays linear in the groups of a long digit list)."""


def _repeats(sizes: list[int], kinds: list[str], j: int) -> bool:
    """Whether the run is two numbers written alike: groups ``j..2j-1`` are the last ones,
    have the sizes of groups ``0..j-1`` (not all of one size: ``9400 2953 7744 0640`` is one
    tracking number) and the separators between them are of the same kinds."""
    if not 2 <= j <= _MOST_GROUPS or 2 * j != len(sizes) or len(set(sizes[:j])) < 2:
        return False
    return sizes[j:] == sizes[:j] and kinds[j:] == kinds[: j - 1]
