"""The shortcuts of issue 21's speed work find what the slow paths found (no timed asserts)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from procession import PIIDetector, StreamRedactor
from procession.guardrails._redaction.held_groups import GROUPED, skip_groups
from procession.guardrails._redaction.open_reach import leftmost, reach_parts

_BLANKS = " \t\n"
_PIECES = ["4111", "56", "AB", "-", "(", ")", " ", "  ", "\t", "\n", " " * 9, "x", "key", "é", "\r"]


def _walk(norm: str, start: int, offset: int) -> int:
    """The step-by-step walk `skip_groups` stands for: a gap of one to eight blanks, then the
    whole printable run before it, taken only when every character of it is grouped."""
    while start > offset:
        gap = start
        while gap > offset and norm[gap - 1] in _BLANKS:
            gap -= 1
        if gap in (start, offset) or start - gap > 8:
            return start
        token = gap
        while token > offset and "!" <= norm[token - 1] <= "~":
            token -= 1
        if token == gap or any(c not in GROUPED for c in norm[token:gap]):
            return start
        start = token
    return start


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=60), st.integers(0, 12))
def test_the_one_pass_over_groups_stops_where_the_walk_stops(pieces: list[str], cut: int) -> None:
    norm = "".join(pieces)
    offset = min(cut, len(norm))
    for start in range(offset, len(norm) + 1):
        assert skip_groups(norm, start, offset) == _walk(norm, start, offset)


def test_a_long_list_of_spaced_groups_is_held_and_its_card_redacted() -> None:
    # the list is walked back in one pass; the card split over deltas is still found
    redactor = StreamRedactor()
    text = "ids: " + "1234 5678 " * 4 + "card 4111 1111 1111 1111 end"
    scanner = redactor.engine.scanner()
    released = []
    for i in range(0, len(text), 3):
        out, found = scanner.feed(text[i : i + 3])
        released.append((out, found))
    out, found = scanner.flush()
    released.append((out, found))
    shown = "".join(part for part, _ in released)
    assert shown == text
    assert [d.type for _, hits in released for d in hits] == ["credit-card"]


def test_a_credential_url_split_after_its_scheme_is_still_held() -> None:
    # the scheme prefix no longer starts inside a word, and still holds a real scheme
    redactor = StreamRedactor()
    scanner = redactor.engine.scanner()
    out, _ = scanner.feed("x" * 70 + " postgres:/")
    assert not out.endswith("postgres:/")
    rest, found = scanner.feed("/admin:hunter2secret@db.example.com/app " + " " * 70)
    more, found_end = scanner.flush()
    assert "hunter2secret" in out + rest + more  # released as received; the hit names it
    assert any("hunter2secret" in d.value for d in found + found_end)


_NEAR_MATCHES = ["1234", "56", " ", "\n", "-", "AB", "key=", "api_key", "a@b.", "sk-", "eyJ"]
_NEAR_MATCHES += ["Bearer ", "://", "postgres", "DE89", "+33", "(", "ghp_", "AKIA", "bc1q", "é"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_NEAR_MATCHES), max_size=120), st.integers(0, 400))
def test_searching_each_prefix_where_it_can_start_finds_the_one_search_answer(
    pieces: list[str], start: int
) -> None:
    norm = "".join(pieces)
    start = min(start, len(norm))
    for processor in (StreamRedactor(), PIIDetector()):
        groups: dict[str, str] = {}
        for detector in processor.engine.detectors:
            if detector.prefix not in groups.values():
                groups[f"g{len(groups)}"] = detector.prefix
        combined = re.compile("|".join(f"(?P<{g}>{p})" for g, p in groups.items()))
        match = combined.search(norm, start)
        expected = (match.start(), match.lastgroup or "") if match else (len(norm), "")
        order = {g: i for i, g in enumerate(groups)}
        assert leftmost(reach_parts(groups), order, norm, start) == expected
