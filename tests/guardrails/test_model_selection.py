"""ModelSelection: route the run to a model chosen by a judge or a classifier."""

from __future__ import annotations

from typing import Any

import pytest

from procession import (
    Agent,
    ConfigurationError,
    ModelChoice,
    ModelDecision,
    ModelSelection,
    register_model,
    tool,
)
from procession.testing import Reply, ScriptedModel, ToolCallScript


@tool
def lookup(order_id: str) -> str:
    """Look an order up."""
    return "shipped"


def models() -> tuple[ScriptedModel, ScriptedModel, ScriptedModel]:
    return (
        ScriptedModel(["default answer"], model_id="default"),
        ScriptedModel(["small answer"], model_id="small"),
        ScriptedModel(
            [Reply(tool_calls=[ToolCallScript("lookup", {"order_id": "A-1"})]), "big answer"],
            model_id="big",
        ),
    )


@pytest.mark.asyncio
async def test_the_judge_routes_every_step_of_the_run() -> None:
    default, small, big = models()
    judge = ScriptedModel(['{"choice": "big", "probability": 0.9, "reason": "needs tools"}'])
    decisions: list[ModelDecision] = []
    selection = ModelSelection(
        [ModelChoice(small, "small talk", "small"), ModelChoice(big, "orders and tools", "big")],
        model=judge,
        on_decision=decisions.append,
    )
    agent = Agent(id="a", model=default, tools=[lookup], input_processors=[selection])
    result = await agent.generate("Where is order A-1?")
    assert result.text == "big answer"
    assert len(big.calls) == 2  # both steps
    assert default.calls == []
    assert small.calls == []
    assert decisions == [ModelDecision(big, "big", 0.9, None, "needs tools")]
    assert "orders and tools" in str(judge.calls[0].prompt)


@pytest.mark.asyncio
async def test_first_step_scope() -> None:
    default, _, big = models()
    selection = ModelSelection(
        classify=lambda text: {"orders": 1.0}, select=lambda answers: big, scope="first-step"
    )
    agent = Agent(id="a", model=default, tools=[lookup], input_processors=[selection])
    result = await agent.generate("Where is order A-1?")
    assert len(big.calls) == 1
    assert len(default.calls) == 1
    assert result.text == "default answer"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "answer",
    [
        '{"choice": "small", "probability": 0.2}',  # below min_probability
        '{"choice": "huge", "probability": 0.9}',  # no such choice
        "no json",  # a failed judge: routing fails open by default
    ],
)
async def test_no_confident_choice_keeps_the_agents_model(answer: str) -> None:
    default, small, _ = models()
    selection = ModelSelection(
        [ModelChoice(small, "small talk", "small")], model=ScriptedModel([answer])
    )
    result = await Agent(id="a", model=default, input_processors=[selection]).generate("hi")
    assert result.text == "default answer"
    assert small.calls == []


@pytest.mark.asyncio
async def test_strict_routing_blocks_when_the_judge_fails() -> None:
    default, small, _ = models()
    selection = ModelSelection(
        [ModelChoice(small, "small talk", "small")],
        model=ScriptedModel(["no json"]),
        error_strategy="strict",
    )
    result = await Agent(id="a", model=default, input_processors=[selection]).generate("hi")
    assert result.tripwire is not None
    assert default.calls == []


@pytest.mark.asyncio
async def test_a_model_id_choice_resolves_through_the_router() -> None:
    default, small, _ = models()
    register_model("route-test/small", small)
    try:
        selection = ModelSelection(
            classify=lambda text: {"chat": 0.8}, select=lambda answers: "route-test/small"
        )
        result = await Agent(id="a", model=default, input_processors=[selection]).generate("hi")
    finally:
        register_model("route-test/small", None)
    assert result.text == "small answer"


@pytest.mark.parametrize(
    ("args", "options", "message"),
    [
        ((), {}, "choices must be choices, or classify= and select="),
        (([],), {"model": "local/smollm2"}, "choices must be a non-empty list of ModelChoice"),
        (([ModelChoice("gpt", "x")],), {"model": "local/smollm2"}, "model must be a model object"),
        (([ModelChoice("a/b", "x")],), {}, "model must be the judge's model with choices="),
        (([ModelChoice("a/b", "x"), ModelChoice("a/b", "y")],), {"model": "a/j"}, "distinct names"),
        ((), {"classify": len, "select": len, "scope": "step"}, "scope must be one of"),
    ],
)
def test_options_are_checked(args: tuple[Any, ...], options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:  # D35
        ModelSelection(*args, **options)
    assert message in str(caught.value)
