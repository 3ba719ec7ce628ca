"""StructuredOutputProcessor: a separate model structures the final answer; its value is
streamed as object chunks and set on result.object; failures follow error_strategy."""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import pytest
from pydantic import BaseModel

from procession import (
    Agent,
    Chunk,
    ConfigurationError,
    StructuredOutputProcessor,
    tool,
)
from procession.testing import Reply, ScriptedModel, ToolCallScript

ANSWER = "Paris is the capital of France; about 2.1 million people live there."


class City(BaseModel):
    name: str
    population: int


def _structurer(*replies: str) -> ScriptedModel:
    return ScriptedModel(list(replies), provider="structurer", model_id="json-model")


@pytest.mark.asyncio
async def test_the_answer_is_structured_by_the_second_model() -> None:
    paris = '{"name": "Paris", "population": 2100000}'
    structurer = _structurer(paris, paris)  # one call per run
    processor = StructuredOutputProcessor(City, structurer)
    agent = Agent(id="a", model=ScriptedModel([ANSWER]), output_processors=[processor])
    chunks = [c async for c in agent.stream("Tell me about Paris")]
    types = [c.type for c in chunks]
    assert types.index("object-result") < types.index("finish")
    result_chunk = chunks[types.index("object-result")]
    assert result_chunk.payload["object"] == {"name": "Paris", "population": 2100000}
    result = await agent.generate("Tell me about Paris", model=ScriptedModel([ANSWER]))
    assert result.object == City(name="Paris", population=2100000)
    assert result.text == ANSWER  # the agent's own text is unchanged
    prompt = str(structurer.calls[0].prompt)
    assert ANSWER in prompt
    assert "<answer>" in prompt
    assert structurer.calls[0].settings.get("temperature") == 0.0


@pytest.mark.asyncio
async def test_a_sloppy_json_answer_is_repaired() -> None:
    sloppy = "Sure! ```json\n{'name': 'Paris', 'population': 2100000,}\n```"
    processor = StructuredOutputProcessor(City, _structurer(sloppy))
    agent = Agent(id="a", model=ScriptedModel([ANSWER]), output_processors=[processor])
    assert (await agent.generate("Paris?")).object == City(name="Paris", population=2100000)


@pytest.mark.asyncio
async def test_strict_failure_retries_the_step_with_feedback() -> None:
    structurer = _structurer("no idea", '{"name": "Paris", "population": 2100000}')
    main = ScriptedModel(["Paris, big city.", ANSWER])
    agent = Agent(
        id="a",
        model=main,
        output_processors=[StructuredOutputProcessor(City, structurer)],
        max_processor_retries=1,
    )
    result = await agent.generate("Paris?")
    assert result.object == City(name="Paris", population=2100000)
    assert result.text == ANSWER
    assert "Structured output failed" in str(main.calls[1].prompt)
    assert "Paris, big city." not in str(structurer.calls[1].prompt)  # only the new attempt


@pytest.mark.asyncio
async def test_strict_failure_without_a_retry_budget_blocks_the_run() -> None:
    agent = Agent(
        id="a",
        model=ScriptedModel([ANSWER]),
        output_processors=[StructuredOutputProcessor(City, _structurer("[]"))],
    )
    result = await agent.generate("Paris?")
    assert result.tripwire is not None
    assert result.tripwire["processorId"] == "structured-output"
    assert result.object is None


@pytest.mark.asyncio
async def test_warn_and_fallback() -> None:
    warn = StructuredOutputProcessor(City, _structurer("nothing useful"), error_strategy="warn")
    agent = Agent(id="a", model=ScriptedModel([ANSWER]), output_processors=[warn])
    result = await agent.generate("Paris?")
    assert result.text == ANSWER
    assert result.object is None
    fallback = StructuredOutputProcessor(
        City,
        _structurer("nothing useful"),
        error_strategy="fallback",
        fallback_value={"name": "unknown", "population": 0},
    )
    agent = Agent(id="a", model=ScriptedModel([ANSWER]), output_processors=[fallback])
    chunks: list[Chunk] = [c async for c in agent.stream("Paris?")]
    marked = [c for c in chunks if c.type == "object-result"]
    assert len(marked) == 1
    assert marked[0].metadata is not None
    assert marked[0].metadata["fallback"] is True


@pytest.mark.asyncio
async def test_only_the_final_step_is_structured_and_a_json_schema_works() -> None:
    @tool
    def population(city: str) -> int:
        """The population of a city."""
        return 2_100_000

    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "people": {"type": "integer"}},
        "required": ["city", "people"],
    }
    structurer = _structurer('{"city": "Paris", "people": 2100000}')
    main = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("population", {"city": "Paris"})]), ANSWER]
    )
    agent = Agent(
        id="a",
        model=main,
        tools=[population],
        output_processors=[StructuredOutputProcessor(schema, structurer)],
    )
    result = await agent.generate("How many people live in Paris?")
    assert result.object == {"city": "Paris", "people": 2100000}
    assert len(structurer.calls) == 1


def test_options_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="structured_output"):
        StructuredOutputProcessor("City", "openai/gpt-5-mini")
    with pytest.raises(ConfigurationError, match="schema"):
        StructuredOutputProcessor(None, "openai/gpt-5-mini")
    with pytest.raises(ConfigurationError, match="model"):
        StructuredOutputProcessor(City, "gpt-5-mini")
    with pytest.raises(ConfigurationError, match="error_strategy"):
        StructuredOutputProcessor(City, "openai/gpt-5-mini", error_strategy="ignore")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="fallback_value"):
        StructuredOutputProcessor(City, "openai/gpt-5-mini", error_strategy="fallback")


@pytest.mark.local_model
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None and not os.environ.get("CI"),
    reason="llama-cpp-python is not installed (CI always runs this)",
)
@pytest.mark.asyncio
async def test_the_embedded_model_structures_an_answer() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    }
    processor = StructuredOutputProcessor(schema, "local/smollm2", error_strategy="warn")
    agent = Agent(id="a", model=ScriptedModel([ANSWER]), output_processors=[processor])
    result = await agent.generate("Which city?")
    assert isinstance(result.object, dict)  # the grammar makes the answer parse
    assert isinstance(result.object["city"], str)
