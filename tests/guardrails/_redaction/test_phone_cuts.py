"""The one-pass cut points of a run of digit groups equal the per-group rule (issue 21 speed,
decision 0292; no timed asserts)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from procession.guardrails._redaction.phone_cuts import cut_points, separator_kind

_STRONG = re.compile(r" {2,}|/ | /|\s\(|\+")
_GROUPS = re.compile(r"[0-9]+")
_SEPS = [" ", "  ", "-", ".", " - ", "/", "/ ", " (", "+", "\t", ") "]


def _per_group(run: str, groups: list[tuple[int, int]], j: int) -> bool:
    """The rule as it was asked once per group: the earlier separators rebuilt every time."""
    sep = run[groups[j - 1][1] : groups[j][0]]
    if " " in sep and sum(e - s for s, e in groups[j:]) <= 4:
        return True
    if _STRONG.fullmatch(sep) or "+" in sep:
        return True
    inner = {separator_kind(run[groups[i][1] : groups[i + 1][0]]) for i in range(j - 1)}
    return separator_kind(sep) not in inner


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.tuples(st.text("0123456789", min_size=1, max_size=5), st.sampled_from(_SEPS)),
        min_size=1,
        max_size=30,
    )
)
def test_cut_points_equal_the_rule_asked_per_group(pieces: list[tuple[str, str]]) -> None:
    run = "".join(digits + sep for digits, sep in pieces)
    groups = [m.span() for m in _GROUPS.finditer(run)]
    cuts = cut_points(run, groups, _STRONG)
    assert cuts[1:] == [_per_group(run, groups, j) for j in range(1, len(groups))]
