"""Classifier: any classify function or a model, and on_result deciding per phase."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Agent, Classifier, ClassifierContext, ConfigurationError, ModelClassifier
from procession.testing import Reply, ScriptedModel


def keyword_classifier(text: str) -> dict[str, float]:
    lowered = text.lower()
    return {"refund": 1.0 if "refund" in lowered else 0.0, "spam": 1.0 if "$$$" in text else 0.0}


def agent(classifier: Classifier, model: ScriptedModel) -> Agent:
    return Agent(id="a", model=model, input_processors=[classifier], output_processors=[classifier])


@pytest.mark.asyncio
async def test_on_result_sees_answers_and_phase_and_can_abort() -> None:
    seen: list[tuple[str, dict[str, float]]] = []

    def decide(answers: dict[str, float], context: ClassifierContext) -> None:
        seen.append((context.phase, answers))
        if answers["refund"] > 0.5:
            context.abort("Refunds are handled by a person.")

    model = ScriptedModel([])
    result = await agent(Classifier(keyword_classifier, on_result=decide), model).generate(
        "I want a refund"
    )
    assert result.tripwire is not None
    assert result.tripwire["reason"] == "Refunds are handled by a person."
    assert result.tripwire["processorId"] == "classifier"
    assert seen == [("input", {"refund": 1.0, "spam": 0.0})]
    assert model.calls == []


@pytest.mark.asyncio
async def test_filter_drops_stream_chunks_and_sees_every_phase() -> None:
    phases: list[str] = []

    async def decide(answers: dict[str, float], context: ClassifierContext) -> None:
        phases.append(context.phase)
        if answers["spam"]:
            context.filter()

    model = ScriptedModel([Reply(text=["Hello ", "$$$ win $$$", " bye"])])
    result = await agent(Classifier(keyword_classifier, on_result=decide), model).generate("hi")
    assert result.text == "Hello  bye"
    assert phases == ["input", "output-stream", "output-stream", "output-stream", "output-result"]


@pytest.mark.asyncio
async def test_a_failing_classifier_fails_closed_or_is_skipped() -> None:
    def broken(text: str) -> dict[str, float]:
        raise RuntimeError("model file missing")

    strict = Classifier(broken, on_result=lambda answers, context: None)
    blocked = await agent(strict, ScriptedModel([])).generate("hi")
    assert blocked.tripwire is not None  # D10
    assert "the classifier failed: RuntimeError('model file missing')" in blocked.tripwire["reason"]
    lenient = Classifier(broken, on_result=lambda a, c: None, error_strategy="warn")
    assert (await agent(lenient, ScriptedModel(["ok"])).generate("hi")).text == "ok"


@pytest.mark.asyncio
async def test_a_model_classifier_through_the_judge() -> None:
    judge = ScriptedModel(
        [
            '{"labels": [{"label": "billing", "probability": 0.9},'
            ' {"label": "other", "probability": 2}]}'
        ],
        repeat_last=True,
    )
    answers: list[dict[str, float]] = []
    classifier = Classifier(
        model=judge,
        labels={"billing": "payments and invoices", "support": "technical help"},
        on_result=lambda a, c: answers.append(a),
        classify_stream=False,
        last_message_only=True,
    )
    await Agent(id="a", model=ScriptedModel(["ok"]), input_processors=[classifier]).generate(
        "Why was I charged twice?"
    )
    assert answers == [{"billing": 0.9}]  # unknown labels are dropped
    assert "billing: payments and invoices" in str(judge.calls[0].prompt)


@pytest.mark.asyncio
async def test_max_input_length_keeps_the_end() -> None:
    texts: list[str] = []

    def remember(text: str) -> dict[str, float]:
        texts.append(text)
        return {}

    classifier = Classifier(remember, on_result=lambda a, c: None, max_input_length=5)
    await Agent(id="a", model=ScriptedModel(["ok"]), input_processors=[classifier]).generate(
        "abcdefghij"
    )
    assert texts == ["fghij"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "classify must be a function, or None with model="),
        ({"classify": keyword_classifier, "model": "local/smollm2"}, "classify must be"),
        ({"model": "local/smollm2"}, "labels must be the labels when model= is given"),
        ({"classify": keyword_classifier, "chunk_window": -1}, "chunk_window must be"),
        ({"classify": keyword_classifier, "max_input_length": 0}, "max_input_length must be"),
    ],
)
def test_options_are_checked(options: dict[str, Any], message: str) -> None:  # D35
    with pytest.raises(ConfigurationError) as caught:
        Classifier(on_result=lambda a, c: None, **options)
    assert message in str(caught.value)


def test_model_classifier_needs_labels() -> None:  # D35
    with pytest.raises(ConfigurationError, match="labels must be a list of non-empty strings"):
        ModelClassifier("local/smollm2", [])
