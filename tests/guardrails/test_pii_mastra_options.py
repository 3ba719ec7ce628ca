"""PIIDetector's Mastra options (issue 23): placeholders, include_detections, on_detection,
structured_output_options and provider_options."""

from __future__ import annotations

import json
from typing import Any

import pytest

from procession import Agent, PIIDetector
from procession.errors import ConfigurationError
from procession.testing import FunctionModel, Reply, ScriptedModel


@pytest.mark.parametrize(
    ("style", "text", "expected"),
    [
        ("mastra", "card 4111 1111 1111 1111 ok", "card [CREDIT-CARD] ok"),
        ("mastra", "from 10.1.2.3 ok", "from [IP-ADDRESS] ok"),
        ("mastra", "key AKIAIOSFODNN7EXAMPLE ok", "key [API-KEY] ok"),
        ("underscore", "card 4111 1111 1111 1111 ok", "card [CREDIT_CARD] ok"),
        ("underscore", "from 10.1.2.3 ok", "from [IP_ADDRESS] ok"),
    ],
)
@pytest.mark.asyncio
async def test_placeholders_are_mastras_unless_the_old_style_is_asked(
    style: str, text: str, expected: str
) -> None:
    model = ScriptedModel([Reply(text=[text])])
    pii = PIIDetector(redaction_method="placeholder", placeholder_style=style)
    result = await Agent(id="a", model=model, output_processors=[pii]).generate("x")
    assert result.text == expected


@pytest.mark.asyncio
async def test_include_detections_counts_them_in_the_block_reason_as_mastra() -> None:
    text = "mail ada@example.com or bob@example.org"
    for include, tail in ((True, ". Detections: 2 items"), (False, "email")):
        model = ScriptedModel(["ok"])
        pii = PIIDetector(strategy="block", include_detections=include)
        result = await Agent(id="a", model=model, input_processors=[pii]).generate(text)
        assert result.tripwire is not None
        assert result.tripwire["reason"].endswith(tail)
        assert result.tripwire["reason"].startswith("PII detected. Types: email")


@pytest.mark.asyncio
async def test_on_detection_sees_every_checked_input_message_flagged_or_not() -> None:
    seen: list[dict[str, Any]] = []

    async def on_detection(report: dict[str, Any]) -> None:
        seen.append(report)

    model = ScriptedModel([Reply(text=["reach me at eve@example.net"])])
    pii = PIIDetector(on_detection=on_detection)
    agent = Agent(id="a", model=model, input_processors=[pii], output_processors=[pii])
    await agent.generate([
        {"role": "user", "content": "hello there"},
        {"role": "user", "content": "I am ada@example.com"},
    ])  # fmt: skip
    assert seen[0] == {
        "detectionResult": {"categories": None, "detections": None},
        "input": "hello there",
        "flagged": False,
        "strategyApplied": "none",
    }
    assert seen[1]["flagged"] is True
    assert seen[1]["strategyApplied"] == "redact"
    assert seen[1]["detectionResult"]["categories"] == [{"type": "email", "score": 1.0}]
    assert seen[1]["detectionResult"]["detections"][0]["start"] == 5
    assert "value" not in seen[1]["detectionResult"]["detections"][0]  # values stay private
    assert seen[2]["flagged"] is True  # the answer's e-mail, on the stream
    assert seen[2]["input"] is None


@pytest.mark.asyncio
async def test_a_failing_on_detection_does_not_fail_the_run() -> None:
    def broken(report: dict[str, Any]) -> None:
        raise RuntimeError("listener down")

    model = ScriptedModel(["ok"])
    pii = PIIDetector(on_detection=broken)
    result = await Agent(id="a", model=model, input_processors=[pii]).generate("a@example.com")
    assert result.text == "ok"
    assert "a@example.com" not in str(model.calls[0].prompt)


@pytest.mark.asyncio
async def test_provider_and_structured_output_options_reach_the_judge() -> None:
    seen: list[Any] = []

    def judge(options: Any) -> Reply:
        seen.append(options)
        found = [{"type": "name", "value": "Ada Lovelace", "confidence": 0.9}]
        return Reply(text=[json.dumps({"detections": found})])

    pii = PIIDetector(
        model=FunctionModel(judge),
        detection_types=["name"],
        provider_options={"openai": {"reasoningEffort": "low"}},
        structured_output_options={"instructions": "Names of pets count too.",
                                   "jsonPromptInjection": True},
    )  # fmt: skip
    model = ScriptedModel(["ok"])
    await Agent(id="a", model=model, input_processors=[pii]).generate("I am Ada Lovelace")
    assert seen[0].provider_options["openai"] == {"reasoningEffort": "low"}
    system = str(seen[0].prompt[0])
    assert "Names of pets count too." in system
    assert "Ada Lovelace" not in str(model.calls[0].prompt[-1])


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"placeholder_style": "dashes"}, "placeholder_style"),
        ({"include_detections": 1}, "include_detections"),
        ({"on_detection": "print"}, "on_detection"),
        ({"provider_options": {"openai": {}}}, "provider_options need a model"),
        ({"structured_output_options": {"schema": {}}}, "structured_output_options\\['schema'\\]"),
        ({"structured_output_options": {"errorStrategy": "fallback"}}, "errorStrategy"),
    ],
)
def test_bad_mastra_options_are_clear_errors(kwargs: dict[str, Any], needle: str) -> None:  # D35
    with pytest.raises(ConfigurationError, match=needle):
        PIIDetector(**kwargs)
