"""Phone numbers with an extension glued after them (``801-554-6898x6631``, as Faker's en_US
and es_MX locales write them) are phone numbers (decision 0327); a letter glued otherwise
still makes the run part of a word."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from procession.guardrails._redaction.detectors import detectors_for
from procession.guardrails._redaction.redaction import RedactionEngine
from tests.guardrails.streaming import streamed

PHONES = RedactionEngine(detectors_for(("phone",)))

CLASSES = [
    ("dashed with an extension", "Call 801-554-6898x6631 today.", "801-554-6898"),
    ("dotted with an extension", "use 286.756.7422x79457 11/27", "286.756.7422"),
    ("parentheses with an extension", "tel (632)122-3307x92440, ok", "(632)122-3307"),
    ("country code with an extension", "+90(051)898-9526x308(으)로", "+90(051)898-9526"),
]
ORDINARY = [
    ("screen size", "a 1920x1080 screen"),
    ("a longer glued word", "id 7127684268x465abc ok"),
    ("six digits after x", "ref 7127684268x465123 ok"),
]


@pytest.mark.parametrize(("name", "text", "number"), CLASSES, ids=[c[0] for c in CLASSES])
def test_a_number_with_an_extension_is_found(name: str, text: str, number: str) -> None:
    at = text.index(number)
    assert any(d.start <= at and at + len(number) <= d.end for d in PHONES.scan(text)), name


@settings(max_examples=200, deadline=None)
@given(case=st.sampled_from(CLASSES), cuts=st.lists(st.integers(1, 40), max_size=10))
def test_it_never_streams_through(case: tuple[str, str, str], cuts: list[int]) -> None:
    _, text, number = case
    digits = "".join(c for c in number if c.isdigit())
    out = streamed(PHONES, text, cuts)
    assert digits not in "".join(c for c in out if c.isdigit() or c == "#")


@pytest.mark.parametrize(("name", "text"), ORDINARY, ids=[c[0] for c in ORDINARY])
def test_other_glued_letters_stay(name: str, text: str) -> None:
    assert PHONES.scan(text) == [], name
