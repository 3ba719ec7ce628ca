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


def test_control_characters_are_stripped_only_when_asked() -> None:
    text = "pa\u200bss\u0007word 👨\u200d👩\u200d👧"
    assert UnicodeNormalizer().normalize(text) == text
    stripped = UnicodeNormalizer(strip_control_chars=True).normalize(text)
    assert stripped == "password 👨\u200d👩\u200d👧"  # the emoji's joiners stay
    bare = UnicodeNormalizer(strip_control_chars=True, preserve_emojis=False).normalize(text)
    assert "\u200d" not in bare


@pytest.mark.asyncio
async def test_input_messages_are_normalized_before_the_model_sees_them() -> None:
    model = ScriptedModel([Reply(text=["ok"])])
    agent = Agent(id="a", model=model, input_processors=[UnicodeNormalizer()])
    await agent.generate("  ｈｅｌｌｏ   world  ")
    assert "hello world" in str(model.calls[0].prompt[-1])


@pytest.mark.parametrize(
    "option", ["strip_control_chars", "preserve_emojis", "collapse_whitespace", "trim"]
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


def test_line_separators_end_a_line_instead_of_gluing_words() -> None:
    text = UnicodeNormalizer(strip_control_chars=True).normalize("one\u2028two\u2029three")
    assert text == "one\ntwo\nthree"
