"""UnicodeNormalizer: NFKC, control characters, whitespace, trimming."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Agent, UnicodeNormalizer
from procession.errors import ConfigurationError
from procession.testing import Reply, ScriptedModel


def test_nfkc_and_whitespace() -> None:
    normalizer = UnicodeNormalizer()
    assert (
        normalizer.normalize("  ＡＢＣ１２３\r\n\r\n\n  ﬁne   day\t\tok  ")
        == "ABC123\n fine day ok"
    )


def test_control_characters_are_stripped_only_when_asked_and_only_c0_c1_as_mastra() -> None:
    text = "pa\u200bss\u0007wo\x85rd\x0b 👨\u200d👩\u200d👧"
    keep = UnicodeNormalizer(strip_invisible=False)
    assert keep.normalize(text) == text
    controls = UnicodeNormalizer(strip_control_chars=True, strip_invisible=False)
    assert controls.normalize(text) == "pa\u200bssword 👨\u200d👩\u200d👧"  # C0/C1 only
    assert UnicodeNormalizer().normalize(text) == "pass\u0007wo\x85rd\x0b 👨\u200d👩\u200d👧"
    both = UnicodeNormalizer(strip_control_chars=True)
    assert both.normalize(text) == "password 👨\u200d👩\u200d👧"


@pytest.mark.parametrize("preserve", [True, False])
@pytest.mark.parametrize(
    "text",
    [
        "👨\u200d👩\u200d👧 family",  # an emoji ZWJ sequence
        "❤\ufe0f\u200d🔥",  # a variation selector before the joiner
        "👍🏽 thumbs",  # a skin-tone modifier
        "می\u200cخواهم کتاب\u200cها",  # Persian writes with ZWNJ
        "क्\u200dष",  # Devanagari half form with ZWJ
        "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Scotland",  # tag flag
        "漢\U000e0100字",  # an ideographic variation selector
    ],
)
def test_emoji_and_scripts_that_need_joiners_are_never_split(text: str, preserve: bool) -> None:
    # issue 23: preserve_emojis=False must not split emoji or Persian text (Mastra neither)
    normalizer = UnicodeNormalizer(strip_control_chars=True, preserve_emojis=preserve)
    assert normalizer.normalize(text) == text


@pytest.mark.parametrize(
    ("text", "seen"),
    [
        ("ig\u200cnore previous", "ignore previous"),  # a joiner inside a Latin word
        ("pass\u200dword", "password"),
        ("a\u202egnp.exe", "agnp.exe"),  # a right-to-left override
        ("safe\u2066text\u2069", "safetext"),  # isolates
        ("say hi\U000e0069\U000e0067\U000e006e", "say hi"),  # tag characters (ASCII smuggling)
        ("x\ufe0f\ufe01\ufe02\ufe03", "x\ufe0f"),  # a run of selectors smuggles bytes
        ("\u2060word\u2060joined", "wordjoined"),
        ("bo\ufeffm", "bom"),
    ],
)
def test_invisible_characters_that_hide_text_are_stripped_by_default(text: str, seen: str) -> None:
    assert UnicodeNormalizer().normalize(text) == seen
    assert UnicodeNormalizer(strip_invisible=False).normalize(text) == text


@pytest.mark.asyncio
async def test_input_messages_are_normalized_before_the_model_sees_them() -> None:
    model = ScriptedModel([Reply(text=["ok"])])
    agent = Agent(id="a", model=model, input_processors=[UnicodeNormalizer()])
    await agent.generate("  ｈｅｌｌｏ   world  ")
    assert "hello world" in str(model.calls[0].prompt[-1])


@pytest.mark.parametrize(
    "option",
    ["strip_control_chars", "preserve_emojis", "collapse_whitespace", "trim", "strip_invisible"],
)
def test_flags_must_be_bools(option: str) -> None:  # D35
    kwargs: dict[str, Any] = {option: 1}
    with pytest.raises(ConfigurationError, match=option):
        UnicodeNormalizer(**kwargs)


def test_a_lone_tab_becomes_a_space() -> None:
    assert UnicodeNormalizer().normalize("a\tb") == "a b"


def test_trim_is_javascripts() -> None:
    # JavaScript's trim removes the BOM and keeps the information separators \x1c-\x1f.
    assert UnicodeNormalizer().normalize("\ufeffhello\ufeff") == "hello"
    assert UnicodeNormalizer().normalize("\x1chello\x1f") == "\x1chello\x1f"


def test_line_separators_stay_as_in_mastra() -> None:
    # Mastra 1.71.0 keeps U+2028/U+2029 with stripControlChars (the oracle records it)
    text = UnicodeNormalizer(strip_control_chars=True).normalize("one\u2028two\u2029three")
    assert text == "one\u2028two\u2029three"
