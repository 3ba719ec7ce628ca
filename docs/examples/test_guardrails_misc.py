"""The examples of the budget, cache, tool, output and provider-error pages, run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from docs.examples.guardrails_misc import (
    Forecast,
    budgeted_agent,
    cached_agent,
    resilient_agent,
    structured_agent,
    tool_agent,
)

from procession import APICallError, Usage
from procession.memory.ledger import UsageRecord
from procession.testing import Reply, ScriptedModel, ToolCallScript


@pytest.mark.asyncio
async def test_budgets(tmp_path: Path) -> None:
    agent, memory = budgeted_agent(ScriptedModel(["Hello!"]), tmp_path / "m.db")
    assert (await agent.generate("hi", resource_id="ada", thread_id="t")).text == "Hello!"
    await memory.storage.record_usage(
        UsageRecord(run_id="earlier", agent_id="support", model="openai/gpt-5", cost=5.2,
                    resource_id="ada")
    )  # fmt: skip
    blocked = await agent.generate("hi", resource_id="ada", thread_id="t")
    assert blocked.tripwire is not None
    assert blocked.tripwire["processorId"] == "token-cost-control"
    await memory.storage.close()


@pytest.mark.asyncio
async def test_caching(tmp_path: Path) -> None:
    model = ScriptedModel(["Opening hours are 9 to 5."])  # one call: the second is replayed
    agent, cache = cached_agent(model, tmp_path / "cache.db")
    first = await agent.generate("When are you open?")
    second = await agent.generate("When are you open?")
    assert first.text == second.text
    assert len(model.calls) == 1
    await cache.close()


@pytest.mark.asyncio
async def test_tools() -> None:
    model = ScriptedModel(
        [
            Reply(tool_calls=[ToolCallScript("search_tools", {"query": "weather"})]),
            Reply(tool_calls=[ToolCallScript("load_tool", {"toolName": "get_weather"})]),
            Reply(tool_calls=[ToolCallScript("get_weather", {"city": "Lima"})]),
            "It is sunny in Lima.",
        ]
    )
    result = await tool_agent(model).generate("Weather in Lima?")
    assert result.text == "It is sunny in Lima."
    assert result.tool_results[-1].result == "sunny in Lima"


@pytest.mark.asyncio
async def test_structured_output() -> None:
    structurer = ScriptedModel([json.dumps({"city": "Lima", "temperature_c": 19})])
    agent = structured_agent(ScriptedModel(["Lima will be 19 degrees and cloudy."]), structurer)
    result = await agent.generate("Forecast for Lima?")
    assert result.object == Forecast(city="Lima", temperature_c=19)
    assert result.text == "Lima will be 19 degrees and cloudy."


@pytest.mark.asyncio
async def test_provider_errors() -> None:
    broken = Reply(
        text=["Hel"],
        stream_error=APICallError(
            "The server had an error", response_body='{"code": "server_error"}'
        ),
    )
    model = ScriptedModel([broken, Reply(text=["Hello"], usage=Usage(5, 1))])
    assert (await resilient_agent(model).generate("hi")).text == "Hello"
