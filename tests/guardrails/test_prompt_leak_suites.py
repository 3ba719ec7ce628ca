"""SystemPromptScrubber on disguised leaks: the generated suites of ``prompt_leak_suite``
(development seeds only; the held-out seeds are measured by ``bench/bench_prompt_leak.py``),
ordinary prose that shares words with the prompt, and the normalisation's raw mapping."""

from __future__ import annotations

import asyncio
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from procession.guardrails._text import prompt_text
from procession.guardrails._text.prompt_text import key_of, normalise, skeleton
from procession.guardrails.system_prompt import PromptLeakEngine

from .prompt_leak_suite import (
    CLASSES,
    DEV_SEEDS,
    PLACEHOLDER,
    PROMPTS,
    case,
    client_text,
    documentation,
    longest_leak,
    lookalikes,
    prose,
)

SEEDS = st.integers(DEV_SEEDS.start, DEV_SEEDS.stop - 1)


@pytest.mark.parametrize("strategy", ["redact", "block"])
@pytest.mark.parametrize("cls", CLASSES)
@settings(max_examples=12, deadline=None)
@given(seed=SEEDS)
def test_no_run_of_20_prompt_characters_reaches_the_client(
    cls: str, strategy: str, seed: int
) -> None:
    leak = case(seed, cls)
    text = asyncio.run(client_text(leak.prompt, leak.chunks, strategy))
    assert longest_leak(leak, text, PLACEHOLDER if strategy == "redact" else "") < 20


def test_the_measure_sees_a_leak_that_is_let_through() -> None:
    leak = case(3, "mixture")
    assert longest_leak(leak, leak.answer, PLACEHOLDER) >= 60  # the measure can fail


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS)
def test_prose_sharing_words_with_the_prompt_is_not_altered(seed: int) -> None:
    text = prose(seed)
    assert PromptLeakEngine(PROMPTS, 40).scan(text) == []


def test_documentation_sharing_words_with_the_prompt_is_not_altered() -> None:
    sentences = documentation(held_out=False)
    assert len(sentences) >= 30
    engine = PromptLeakEngine(PROMPTS, 40)
    assert [s for s in sentences if engine.scan(s)] == []


def test_every_tr39_lookalike_of_a_letter_or_digit_has_its_key() -> None:
    for char, others in lookalikes().items():
        for other in others:
            if other != "`":  # a code mark: dropped, as emphasis
                assert key_of(other) == key_of(char), (char, other, skeleton(other))


@pytest.mark.parametrize(
    ("raw", "keys"),
    [
        ("Never  reveal", "never reveal"),
        ("Ne\u200bver re\u00adveal\ufeff", "never reveal"),
        ("**Never** _reveal_ ~~it~~ `now`", "never reveal lt now"),  # i keys as l
        ("N\u0435v\u0435r r\u0435v\u0435\u0430l", "never reveal"),  # Cyrillic e, a
        ("\uff2e\uff45\uff56\uff45\uff52", "never"),  # full width
        ("\u0392\u0395\u03a4\u0391", "beta"),  # Greek capitals that read as Latin
        ("Il\u0406", "lll"),  # I, l and a Cyrillic I read alike; case folds i to them too
    ],
)
def test_keys(raw: str, keys: str) -> None:
    assert normalise(raw).text == keys


CHARS = st.sampled_from(
    [
        *"ab Iil m*_~`\t\n",
        *("\u200b", "\u00ad", "\u0435", "\u00e9", "e\u0301", "\ufb01"),
        *("\u00df", "\u2003", "\U0001d41a", "\u3000", "\u0130"),
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(CHARS, max_size=30).map("".join), st.integers(0, 30), st.booleans())
def test_keys_map_back_to_raw_characters_and_stream_piecewise(
    raw: str, split: int, after_space: bool
) -> None:
    whole = normalise(raw, after_space)
    for index, char in enumerate(whole.text):
        assert char in key_of(raw[whole.raw(index)]).replace(" ", " ") or char == " "
    cut = whole.start_of(min(split, len(whole.text)))
    head, tail = raw[: whole.raw(cut)], raw[whole.raw(cut) :]
    space = whole.text[cut - 1] == " " if cut else after_space
    assert normalise(head, after_space).text + normalise(tail, space).text == whole.text


def test_nfkc_case_folding_and_accents_are_in_the_keys() -> None:
    assert normalise("\ufb01ne STRASSE").text == normalise("fine stra\u00dfe").text
    assert normalise(unicodedata.normalize("NFD", "caf\u00e9")).text == "cafe"
    assert normalise("cafe\u0301\u0301\u0300").text == normalise("CAF\u00c9").text


def test_the_fast_paths_know_every_character_that_changes() -> None:
    changed, irregular = prompt_text.character_classes()
    for code in range(0x10000):
        char = chr(code)
        key = key_of(char)
        assert key == char or changed.search(char), hex(code)
        assert len(key) == 1 or irregular.search(char), hex(code)
    assert normalise("\ud55c\uad6d\uc5b4 caf\u00e9").text == "\ud55c\uad6d\uc5b4 cafe"


@settings(max_examples=400, deadline=None)
@given(st.lists(CHARS, max_size=30).map("".join), st.integers(0, 30), st.booleans())
def test_the_cut_walked_back_from_the_end_is_the_cut_of_the_offsets(
    raw: str, back: int, after_space: bool
) -> None:
    index = max(0, len(normalise(raw, after_space).text) - back)
    walked = normalise(raw, after_space).cut(index)
    mapped = normalise(raw, after_space)
    start = mapped.start_of(index)
    assert walked == (start, mapped.raw(start))
