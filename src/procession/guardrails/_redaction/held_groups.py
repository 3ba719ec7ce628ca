"""One C pass over the spaced groups a stream holds back (cards, phone lists, digit tables).

The redaction engine's superset of open candidates (``redaction._superset_start``) walks back
from the end of the text over space-separated groups that a spaced shape may be made of, one
group per step in Python. On a list of spaced digit groups that is tens of steps per scan.
:func:`skip_groups` takes every step whose group is made only of the characters spaced shapes
are made of (digits, capitals, ``().+-/_,|``) in one regular-expression match over the
reversed text; the walk goes on from where it stops, so the result is the walk's own.
"""

from __future__ import annotations

import re

__all__ = ["GROUPED", "skip_groups"]

GROUPED = "0123456789().+-/_,|ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""What the groups of spaced shapes are made of (cards, phone numbers, IBANs, ids)."""

_CLASS = "[" + re.escape(GROUPED) + "]"
_REVERSED_GROUPS = re.compile(f"(?:[ \\t\\n]{{1,8}}{_CLASS}+(?![!-~]))*")
"""On the reversed text: a gap of one to eight blanks, then a whole group (the run of
printable ASCII before the gap, all of it grouped characters), repeated."""


def skip_groups(norm: str, start: int, offset: int) -> int:
    """``start`` moved back over the whole grouped tokens before it, each after a gap of one
    to eight blanks (`` ``, tab, new line), never below ``offset``."""
    if start <= offset or norm[start - 1] not in " \t\n":
        return start
    reverse = norm[start - 1 : offset - 1 : -1] if offset else norm[start - 1 :: -1]
    return start - _REVERSED_GROUPS.match(reverse).end()  # type: ignore[union-attr]
