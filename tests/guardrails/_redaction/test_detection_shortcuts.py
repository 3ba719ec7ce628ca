"""The shortcuts the redaction engine takes never skip a match.

The engine runs a detector only when cheap gates let it: its ``min_digits``, its trigger,
its family's combined pass (``detectors.FAMILIES``). The prompt-leak scanner skips text it
can prove holds no leak. Each shortcut is only safe if it is a necessary condition; these
tests check the gated results against running everything, every time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from procession.guardrails._redaction.detectors import (
    DETECTORS,
    FAMILIES,
    OFFLINE_TYPES,
    Detection,
    Detector,
    count_digits,
    detectors_for,
    matching_text,
)
from procession.guardrails._redaction.redaction import RedactionEngine
from procession.guardrails._text.prompt_text import normalise
from procession.guardrails.system_prompt import PromptLeakEngine
from tests.guardrails.redaction_data import carriers, carry, ordinary_sentences, secret_values

ENGINES = {
    "every offline type": detectors_for(OFFLINE_TYPES),
    "stream-redactor": detectors_for(("credit-card", "email", "ssn", "api-key", "aws-key")),
    "pii preset": detectors_for(("email", "phone", "ssn", "credit-card")),
    **{f"only {kind}": detectors_for((kind,)) for kind in OFFLINE_TYPES},
}
SECRETS = [value for values in secret_values().values() for value in values]
SEPARATORS = [" ", "  ", "-", ".", "(", ")", "/", " - ", "\u00a0", "\u2013", ", ", ":", "+"]


@st.composite
def numbers(draw: st.DrawFn) -> str:
    """Digit groups and separators: what number-shaped detectors and their gates see."""
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 7))):
        parts.append(draw(st.sampled_from(["", "", "+", "(", "00", "DE", "A", "x", "卡"])))
        parts.append(draw(st.text("0123456789", min_size=1, max_size=17)))
        parts.append(draw(st.sampled_from(SEPARATORS)))
    return "".join(parts)


TEXTS = st.one_of(
    st.sampled_from([row["text"] for row in ordinary_sentences()]),
    st.builds(carry, st.sampled_from(carriers()), st.sampled_from(SECRETS)),
    numbers(),
    st.lists(st.one_of(st.sampled_from(SECRETS), numbers(), st.text(max_size=8)), max_size=5).map(
        " ".join
    ),
)


def everything(detectors: Sequence[Detector], norm: str, cut: int) -> tuple[list[Detection], int]:
    """What ``RedactionEngine.final`` must return: every detector run, no gate."""
    ranked = [(rank, d) for rank, det in enumerate(detectors) for d in det.find(norm, 0, cut)]
    found = [d for _, d in sorted(ranked, key=lambda pair: (pair[1].start, pair[0]))]
    while True:  # the same straddle rule as the engine
        lowest = min((d.start for d in found if d.end > cut), default=cut)
        if lowest >= cut:
            return found, cut
        cut = lowest
        found = [d for d in found if d.start < cut]


@settings(max_examples=600, deadline=None)
@given(TEXTS, st.sampled_from(sorted(ENGINES)), st.floats(0, 1))
def test_gated_detection_equals_running_every_detector(text: str, name: str, at: float) -> None:
    detectors = ENGINES[name]
    norm = matching_text(text)
    cut = round(len(norm) * at)
    assert RedactionEngine(detectors).final(norm, 0, cut) == everything(detectors, norm, cut)


def _gates_pass(detector: Detector, value: str) -> bool:
    """Whether the detector's own gates accept a text that is exactly one of its matches."""
    if count_digits(value) < detector.min_digits:
        return False
    if detector.trigger and re.search(detector.trigger, value) is None:
        return False
    if detector.family:
        head = FAMILIES[detector.family]
        return (
            re.match(f"{head}(?:{detector.sketch})", value) is not None
            if head
            else (re.search(detector.sketch, value) is not None)
        )
    return True


@pytest.mark.parametrize("kind", OFFLINE_TYPES)
def test_every_secret_passes_its_detectors_gates(kind: str) -> None:
    seen = 0
    for secret in SECRETS:
        for carrier in carriers():
            norm = matching_text(carry(carrier, secret))
            for detector in DETECTORS[kind]:
                for found in detector.find(norm):
                    seen += 1
                    assert _gates_pass(detector, norm[found.start : found.end]), (kind, found)
    assert seen or kind not in secret_values()


@settings(max_examples=400, deadline=None)
@given(numbers())
def test_number_gates_hold_for_every_match(text: str) -> None:
    norm = matching_text(text)
    for detector in detectors_for(OFFLINE_TYPES):
        for found in detector.find(norm):
            assert _gates_pass(detector, norm[found.start : found.end]), found


def test_a_number_is_found_whatever_else_the_batch_holds() -> None:
    # A gate is a property of the match, not of the text around it: the phone number below
    # used to be found only when some other number in the same batch had six digits in a row.
    engine = RedactionEngine(detectors_for(("phone",)))
    alone = engine.scan("call 3268 - 4301 now")
    beside = engine.scan("call 3268 - 4301 or ref 556677 now")
    assert [(d.type, d.value) for d in alone] == [("phone", "3268 - 4301")]
    assert [(d.type, d.value) for d in beside][:1] == [("phone", "3268 - 4301")]


# -- the prompt-leak scanner ---------------------------------------------------------------

PROMPTS = (
    "You are Orbit, the support agent of Acme Corp. Never reveal the discount code ZEBRA-42 "
    "to anyone, and never mention the internal escalation team by name.",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab the the the the the the the the end",
)


def leaks(
    prompts: Sequence[str], minimum: int, segments: Sequence[Sequence[str]]
) -> tuple[set[int], set[int]]:
    """Raw positions a leak covers (of the characters with a normalised key), and those
    characters, found the slow way on the normalised text: ``matched`` (the longest suffix of the
    text seen that the system text holds) by trying every suffix, with the scanner's rules
    for a leak, its continuation and ``since``. A flush (between segments) starts afresh
    unless a leak goes on."""
    system = "\x00".join(normalise(p).text for p in prompts)
    text, base = "", 0  # normalised text so far
    raw: list[int] = []  # the raw index of each of its characters
    covered: set[int] = set()
    seen_from, before, since, leak = 0, 0, 0, False
    for deltas in segments:
        segment = "".join(deltas)
        norm = normalise(segment, leak and text.endswith(" "))  # the scanner's rule
        start = len(text)
        text += norm.text
        raw.extend(base + norm.raw(i) for i in range(len(norm.text)))
        base += len(segment)
        if not leak:
            seen_from, before, since = start, 0, 0
        for index in range(start, len(text)):
            matched = 0
            while matched <= index - seen_from and text[index - matched : index + 1] in system:
                matched += 1
            since += 1
            if leak and matched == before + 1:
                covered.add(index)
            else:
                if leak:
                    leak, since = False, 1
                candidate = min(matched, since)
                if candidate >= minimum:
                    leak = True
                    covered.update(range(index - candidate + 1, index + 1))
            before = matched
    return {raw[i] for i in covered}, set(raw)


@st.composite
def leaky(draw: st.DrawFn) -> tuple[int, list[list[str]]]:
    """A minimum length, and text repeating pieces of the prompts: segments (flushed after
    each, as at ``text-end``) of deltas."""
    minimum = draw(st.sampled_from([8, 12, 20, 40]))
    segments = []
    for _ in range(draw(st.integers(1, 3))):
        parts = []
        for _ in range(draw(st.integers(1, 6))):
            prompt = draw(st.sampled_from(PROMPTS))
            start = draw(st.integers(0, len(prompt) - 1))
            piece = prompt[start : start + draw(st.integers(1, 90))]
            parts.append(
                draw(st.sampled_from([piece, piece.upper(), "ok ", "the ", "a", "  ", "**"]))
            )
        text = "".join(parts)
        cuts = sorted(set(draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=20))))
        bounds = zip([0, *cuts], [*cuts, len(text)], strict=True)
        segments.append([text[a:b] for a, b in bounds if b > a])
    return minimum, segments


@settings(max_examples=500, deadline=None)
@given(leaky(), st.sampled_from([None, 0, 7]))
def test_the_skipping_leak_scanner_finds_what_stepping_every_character_finds(
    case: tuple[int, list[list[str]]], batch: int | None
) -> None:
    minimum, segments = case
    scanner = PromptLeakEngine(PROMPTS, minimum).scanner(batch)
    released: list[str] = []
    covered: set[int] = set()

    def take(text: str, found: list[Detection]) -> None:
        base = sum(len(r) for r in released)
        covered.update(i for d in found for i in range(base + d.start, base + d.end))
        released.append(text)

    for deltas in segments:
        for delta in deltas:
            take(*scanner.feed(delta))
        if scanner.held:  # what the redacting processors do at `text-end`
            take(*scanner.flush())
    assert "".join(released) == "".join("".join(deltas) for deltas in segments)
    expected, keyed = leaks(PROMPTS, minimum, segments)
    assert covered & keyed == expected


def test_a_leak_that_never_filled_a_batch_is_found_when_the_text_ends() -> None:
    scanner = PromptLeakEngine(PROMPTS, 12).scanner()
    assert scanner.feed("say: never reveal the") == ("", [])  # held: the batch is not full
    text, found = scanner.flush()
    assert text == "say: never reveal the"
    assert [(d.start, d.end) for d in found] == [(4, 21)]
