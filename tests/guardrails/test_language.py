"""LanguageDetector: offline identification (py3langid), scripts, strategies, translation."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Agent, ConfigurationError, LanguageDetector, Message, ProcessorViolation
from procession.guardrails._text.languages import chinese_script, language_code
from procession.guardrails.language import identify_language
from procession.testing import ScriptedModel

FRENCH = "Bonjour, où est ma commande ? Je l'attends depuis lundi."


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Where is my order? It has been a week.", "en"),
        (FRENCH, "fr"),
        ("Wo ist meine Bestellung? Ich warte seit Montag.", "de"),
        ("¿Dónde está mi pedido? Lo espero desde el lunes.", "es"),
        ("我的訂單在哪裡？我從星期一就在等了。", "zh-Hant"),
        ("我的订单在哪里？我从星期一就在等了。", "zh-Hans"),
        ("注文はどこですか？月曜日から待っています。", "ja"),
        ("제 주문은 어디에 있나요? 월요일부터 기다렸어요.", "ko"),
        ("Где мой заказ? Я жду с понедельника.", "ru"),
    ],
)
def test_offline_identification(text: str, code: str) -> None:
    found, confidence = identify_language(text)
    assert found == code
    assert 0.5 < confidence <= 1.0


def test_scripts_and_names() -> None:
    assert chinese_script("這個問題") == "zh-Hant"
    assert chinese_script("这个问题") == "zh-Hans"
    assert chinese_script("hello") is None
    assert language_code("French") == language_code("FR") == "fr"
    assert language_code("traditional chinese") == language_code("zh_TW") == "zh-Hant"


def test_targets_cover_scripts() -> None:
    chinese = LanguageDetector(["zh"])
    assert chinese.is_target("zh-Hant")
    assert chinese.is_target("zh-Hans")
    traditional = LanguageDetector(["Traditional Chinese"])
    assert traditional.is_target("zh-Hant")
    assert not traditional.is_target("zh-Hans")


async def run(detector: LanguageDetector, text: str, reply: str = "ok") -> tuple[Any, Any]:
    model = ScriptedModel([reply])
    message = Message.user(text)
    result = await Agent(id="a", model=model, input_processors=[detector]).generate([message])
    return result, model


@pytest.mark.asyncio
async def test_detect_annotates_and_reports() -> None:
    seen: list[ProcessorViolation[Any]] = []
    detector = LanguageDetector(on_violation=seen.append)
    message = Message.user(FRENCH)
    model = ScriptedModel(["ok"])
    await Agent(id="a", model=model, input_processors=[detector]).generate([message])
    annotation = message.content.metadata["language_detection"]  # type: ignore[index]
    assert annotation["iso_code"] == "fr"
    assert annotation["detected_language"] == "French"
    assert annotation["is_target_language"] is False
    assert annotation["target_languages"] == ["en"]
    assert len(seen) == 1  # D8
    assert FRENCH in str(model.calls[0].prompt)


@pytest.mark.asyncio
async def test_block_names_the_language() -> None:
    result, model = await run(LanguageDetector(["en"], strategy="block"), FRENCH)
    assert result.tripwire is not None
    assert result.tripwire["reason"] == "Non-target language detected: French (fr)"
    assert model.calls == []


@pytest.mark.asyncio
async def test_target_language_and_short_texts_pass() -> None:
    detector = LanguageDetector(["en", "fr"], strategy="block")
    assert (await run(detector, FRENCH))[0].text == "ok"
    assert (await run(LanguageDetector(strategy="block"), "Merci !"))[0].text == "ok"


@pytest.mark.asyncio
async def test_low_confidence_leaves_the_message_alone() -> None:
    detector = LanguageDetector(strategy="block", identifier=lambda text: ("fr", 0.4))
    assert (await run(detector, "some ambiguous text here"))[0].text == "ok"


@pytest.mark.asyncio
async def test_translate_through_the_judge() -> None:
    judge = ScriptedModel(['{"translation": "Hello, where is my order?"}'])
    detector = LanguageDetector(["English"], model=judge, strategy="translate")
    message = Message.user(FRENCH)
    model = ScriptedModel(["It ships today."])
    await Agent(id="a", model=model, input_processors=[detector]).generate([message])
    assert message.text == "Hello, where is my order?"
    assert "Hello, where is my order?" in str(model.calls[0].prompt)
    assert FRENCH not in str(model.calls[0].prompt)
    annotation = message.content.metadata["language_detection"]  # type: ignore[index]
    assert annotation["original_content"] == FRENCH
    assert annotation["translation"] == "Hello, where is my order?"
    assert "into English" in str(judge.calls[0].prompt)


@pytest.mark.asyncio
async def test_a_failed_translation_fails_closed() -> None:
    detector = LanguageDetector(model=ScriptedModel(["?"]), strategy="translate")
    result, model = await run(detector, FRENCH)
    assert result.tripwire is not None  # D10
    assert "language-detector: the judge failed" in result.tripwire["reason"]
    assert model.calls == []


@pytest.mark.asyncio
async def test_model_mode_asks_the_judge() -> None:
    judge = ScriptedModel(['{"iso_code": "zh", "confidence": 0.95}'])
    detector = LanguageDetector(["zh-Hans"], model=judge, mode="model", strategy="block")
    result, _ = await run(detector, "請問營業時間是幾點到幾點")
    assert result.tripwire is not None
    assert "Traditional Chinese (zh-Hant)" in result.tripwire["reason"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"target_languages": ["Klingon"]}, "target_languages must be language names or ISO"),
        ({"target_languages": "en"}, "target_languages must be a list of non-empty strings"),
        ({"strategy": "translate"}, "model must be a model with strategy='translate'"),
        ({"mode": "model"}, "model must be a model with mode='model'"),
        ({"min_text_length": -1}, "min_text_length must be an integer >= 0"),
        ({"identifier": "langid"}, "identifier must be a callable or None"),
    ],
)
def test_options_are_checked(options: dict[str, Any], message: str) -> None:  # D35
    with pytest.raises(ConfigurationError) as caught:
        LanguageDetector(**options)
    assert str(caught.value).startswith("LanguageDetector: ")
    assert message in str(caught.value)
