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
    return separator_kind(sep) not in inner or (" " in sep and _two_alike(run, groups, j))


def _two_alike(run: str, groups: list[tuple[int, int]], j: int) -> bool:
    """Decision 0391: the run is two numbers of 2-6 groups written alike, cut after the
    first (its groups not all of one size)."""
    if not 2 <= j <= 6 or len(groups) != 2 * j:
        return False
    first, second = run[groups[0][0] : groups[j - 1][1]], run[groups[j][0] : groups[-1][1]]
    kinds = [[separator_kind(s) for s in re.findall(r"[^0-9]+", part)] for part in (first, second)]
    sizes = [[len(g) for g in re.findall(r"[0-9]+", part)] for part in (first, second)]
    return sizes[0] == sizes[1] and kinds[0] == kinds[1] and len(set(sizes[0])) > 1


def test_two_numbers_alike_may_be_cut_between_them() -> None:
    run = "070-123 04 86 070-987 65 43"
    groups = [m.span() for m in _GROUPS.finditer(run)]
    assert cut_points(run, groups, _STRONG)[4]  # between the two numbers (decision 0391)
    run = "9400 2953 7744 0640"  # one size only: a tracking number, not two phones
    groups = [m.span() for m in _GROUPS.finditer(run)]
    assert not cut_points(run, groups, _STRONG)[2]


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
