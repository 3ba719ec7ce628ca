"""The refinement of a held superset, searched only where an open candidate can start.

A detector's ``prefix`` matches an open candidate up to the end of the text (``\\Z``). When a
prefix can match at most ``n`` characters, its candidate starts in the last ``n`` characters,
so searching it from further back only tries positions that cannot match: on a held list of
spaced digit groups that was most of the work, every position tried against a pattern of up to
160 characters. :func:`reach_parts` splits the prefixes into a few combined searches by that
reach (an unbounded one searches from the superset's start, as before); :func:`leftmost` runs
them and picks what one combined search would have picked: the leftmost start, and on a tie
the first detector.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ReachPart", "leftmost", "prefix_reach", "reach_parts"]

# The regex parser (``re._parser``, Python 3.11+) gives a pattern's width bounds; typeshed
# does not describe it, so it is loaded by name and used untyped.
sre_parse: Any = importlib.import_module("re._parser")

ReachPart = tuple[int | None, re.Pattern[str]]
"""The most characters any prefix of the part matches (``None``: no bound) and its search."""

_BUCKETS = (64, 176, 336)
"""Reach buckets: a prefix goes to the smallest one at least its reach (more would be more
searches per refinement)."""
_AT_END = (sre_parse.AT, sre_parse.AT_END_STRING)


def prefix_reach(prefix: str) -> int | None:
    """The most characters ``prefix`` can match when the whole of it ends at ``\\Z`` (so a
    match runs to the end of the text); ``None`` when unbounded or not anchored so."""
    try:
        parsed: Any = sre_parse.parse(prefix)
    except re.error:
        return None
    if not _ends_at_end(parsed):
        return None
    width: int = parsed.getwidth()[1]
    return width if width < _BUCKETS[-1] else None


def _ends_at_end(parsed: Any) -> bool:
    """Whether every match of the parsed pattern ends at ``\\Z``: its last item is ``\\Z``,
    or it is one alternation each of whose branches ends so (``label...\\Z|digits...\\Z``,
    how detectors join a label's hold to their own prefix)."""
    items = list(parsed)
    if not items:
        return False
    if items[-1] == _AT_END:
        return True
    if len(items) != 1 or items[0][0] is not sre_parse.BRANCH:
        return False
    return all(_ends_at_end(branch) for branch in items[0][1][1])


def reach_parts(groups: Mapping[str, str]) -> tuple[ReachPart, ...]:
    """``{group name: prefix}`` (in detector order) as combined searches by reach bucket;
    every group keeps its name."""
    buckets: dict[int | None, list[str]] = {}
    for name, prefix in groups.items():
        reach = prefix_reach(prefix)
        bucket = next((b for b in _BUCKETS if reach is not None and reach <= b), None)
        buckets.setdefault(bucket, []).append(f"(?P<{name}>{prefix})")
    return tuple((reach, re.compile("|".join(parts))) for reach, parts in buckets.items())


def leftmost(
    parts: Sequence[ReachPart], order: Mapping[str, int], norm: str, start: int
) -> tuple[int, str]:
    """The leftmost open candidate at or after ``start`` and its group (``len(norm)`` and
    ``""`` if none); on equal starts the group first in ``order``."""
    size = len(norm)
    best, kind = size, ""
    for reach, pattern in parts:
        low = start if reach is None else max(start, size - reach)
        if low > best:
            continue
        match = pattern.search(norm, low)  # no endpos: `\\Z` is the end of the text
        if match is None:
            continue
        at, name = match.start(), match.lastgroup or ""
        if at < best or (at == best and order.get(name, 0) < order.get(kind, len(order))):
            best, kind = at, name
    return best, kind
