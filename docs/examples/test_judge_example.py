"""The judge example runs: a verdict blocks, a clean answer passes, a broken judge fails closed."""

from __future__ import annotations

import pytest
from docs.examples.judge_example import StayOnTopic

from procession import Agent
from procession.testing import ScriptedModel


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("judge_answer", "blocked", "reason"),
    [
        ('{"off_topic": true, "reason": "asks about taxes"}', True, "Off topic: asks about taxes"),
        ('{"off_topic": false}', False, None),
        ("I think it is fine", True, "stay-on-topic: the judge failed"),  # D10: fails closed
    ],
)
async def test_stay_on_topic(judge_answer: str, blocked: bool, reason: str | None) -> None:
    judge_model = ScriptedModel([judge_answer])
    agent_model = ScriptedModel(["Knead for ten minutes."])
    agent = Agent(id="chef", model=agent_model, input_processors=[StayOnTopic(judge_model)])
    result = await agent.generate("How long do I knead bread dough?")
    assert (result.tripwire is not None) is blocked
    if reason is not None:
        assert result.tripwire is not None
        assert result.tripwire["reason"].startswith(reason)
    else:
        assert result.text == "Knead for ten minutes."


@pytest.mark.asyncio
async def test_warn_fails_open() -> None:
    agent = Agent(
        id="chef",
        model=ScriptedModel(["Knead for ten minutes."]),
        input_processors=[StayOnTopic(ScriptedModel(["???"]), error_strategy="warn")],
    )
    result = await agent.generate("How long do I knead bread dough?")
    assert result.tripwire is None
    assert result.text == "Knead for ten minutes."
