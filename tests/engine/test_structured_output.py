"""Structured output: pydantic models and JSON schemas, partial objects, validation, retries."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from procession import StructuredOutputError
from procession.structured import parse_partial_json, structured_output_spec
from procession.testing import Reply, ScriptedModel

from .helpers import agent, collect


class City(BaseModel):
    name: str
    population: int


@pytest.mark.asyncio
async def test_pydantic_model_gives_a_validated_object() -> None:
    model = ScriptedModel([Reply(text=['{"name": "Paris", ', '"population": 2100000}'])])
    result = await agent(model).generate("Biggest city?", structured_output=City)
    assert result.object == City(name="Paris", population=2100000)
    instruction = model.calls[0].prompt[1]
    assert instruction["role"] == "system"
    assert '"population"' in instruction["content"]
    assert model.calls[0].response_format is not None
    assert model.calls[0].response_format["schema"]["required"] == ["name", "population"]


@pytest.mark.asyncio
async def test_native_models_get_the_schema_without_an_instruction() -> None:
    model = ScriptedModel([Reply(text=['{"name": "Oslo", "population": 700000}'])])
    model.supports_structured_output = True
    result = await agent(model).generate("x", structured_output=City)
    assert result.object == City(name="Oslo", population=700000)
    assert [m["role"] for m in model.calls[0].prompt] == ["system", "user"]


@pytest.mark.asyncio
async def test_object_chunks_stream_partial_objects() -> None:
    model = ScriptedModel([Reply(text=['{"name": "Ro', 'me", "popul', 'ation": 28', "00000}"])])
    chunks = await collect(agent(model).stream("x", structured_output=City))
    objects = [c.payload["object"] for c in chunks if c.type == "object"]
    assert objects[0] == {"name": "Ro"}
    assert objects[-1] == {"name": "Rome", "population": 2800000}
    assert chunks[-1].type == "finish"
    assert len(objects) == len(set(map(repr, objects)))  # each partial object once


@pytest.mark.asyncio
async def test_json_schema_dict_is_validated() -> None:
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "integer"}},
        "required": ["answer"],
    }
    model = ScriptedModel([Reply(text=['{"answer": 42}'])])
    result = await agent(model).generate("x", structured_output=schema)
    assert result.object == {"answer": 42}


@pytest.mark.asyncio
async def test_invalid_output_without_budget_is_a_clear_error() -> None:
    model = ScriptedModel([Reply(text=['{"name": "Paris"}'])])
    with pytest.raises(StructuredOutputError, match="population"):
        await agent(model).generate("x", structured_output=City)


@pytest.mark.asyncio
async def test_invalid_output_is_retried_with_feedback_when_the_budget_allows() -> None:
    model = ScriptedModel(
        [Reply(text=["Sure! Paris."]), Reply(text=['{"name": "Paris", "population": 1}'])]
    )
    result = await agent(model, max_processor_retries=1).generate("x", structured_output=City)
    assert result.object == City(name="Paris", population=1)
    feedback = [m["content"] for m in model.calls[1].prompt if m["role"] == "system"]
    assert any("not valid JSON" in text for text in feedback)


@pytest.mark.asyncio
async def test_input_step_can_set_structured_output_for_a_step() -> None:
    from procession.testing import RecordingProcessor

    setter = RecordingProcessor("so", process_input_step=lambda **kw: {"structured_output": City})
    model = ScriptedModel([Reply(text=['{"name": "Lima", "population": 9}'])])
    result = await agent(model, input_processors=[setter]).generate("x")
    assert result.object == City(name="Lima", population=9)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1', {"a": 1}),
        ('{"a": "hel', {"a": "hel"}),
        ('{"a": [1, 2', {"a": [1, 2]}),
        ('{"a": 1, "b', {"a": 1}),
        ('```json\n{"a": true}\n```', {"a": True}),
    ],
)
def test_partial_json(text: str, expected: Any) -> None:
    assert parse_partial_json(text) == expected


def test_bad_structured_output_option_is_a_configuration_error() -> None:
    from procession import ConfigurationError

    with pytest.raises(ConfigurationError, match="pydantic model class or a JSON schema"):
        structured_output_spec(42)
