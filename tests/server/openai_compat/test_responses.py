"""``POST /v1/responses`` driven by the real ``openai`` SDK against uvicorn on 127.0.0.1
(issue 26)."""

from __future__ import annotations

from typing import Any

import openai
import pytest
from openai import AsyncOpenAI

from procession import Agent, Processor
from procession.chunks import Usage
from procession.server import create_app
from procession.testing import Reply, ScriptedModel
from tests.server.conftest import live_server, scripted_agent

pytestmark = pytest.mark.asyncio


def client_for(url: str) -> AsyncOpenAI:
    """The SDK pointed at the served app's ``/v1``."""
    return AsyncOpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)


class Block(Processor):
    id = "block"

    def process_input(self, *, abort: Any, **_: Any) -> None:
        abort("Blocked content detected in input")


class WantsLonger(Processor):
    id = "wants-longer"

    def process_output_step(
        self, *, tool_calls: Any, retry_count: int, abort: Any, **_: Any
    ) -> None:
        if not tool_calls and retry_count == 0:
            abort("Answer in a full sentence.", retry=True)


async def test_a_response_has_the_output_text_and_usage() -> None:
    usage = Usage(input_tokens=30, output_tokens=2, total_tokens=32)
    agent = scripted_agent("support", Reply(text=["Hello ", "there"], usage=usage))
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        response = await client.responses.create(
            model="support", input="hi", instructions="Answer in English."
        )
    assert response.object == "response"
    assert response.status == "completed"
    assert response.output_text == "Hello there"
    assert response.output[0].type == "message"
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (30, 2)
    prompt = agent.model.calls[-1].prompt  # type: ignore[union-attr]
    system = [str(m["content"]) for m in prompt if m["role"] == "system"]
    assert any("Answer in English." in s for s in system)


async def test_a_stream_is_the_responses_event_sequence() -> None:
    usage = Usage(input_tokens=8, output_tokens=3, total_tokens=11)
    agent = scripted_agent("support", Reply(text=["It ", "is ", "sunny."], usage=usage))
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        stream = await client.responses.create(model="support", input="weather?", stream=True)
        events = [event async for event in stream]
    kinds = [e.type for e in events]
    assert kinds == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert deltas == ["It ", "is ", "sunny."]
    done: Any = events[-1]
    assert done.response.output_text == "It is sunny."
    assert done.response.usage.total_tokens == 11


async def test_the_sdk_s_stream_helper_reads_the_final_response() -> None:
    agent = scripted_agent("support", Reply(text=["A ", "b."]))
    async with (
        live_server(create_app(agent)) as live,
        client_for(live.url) as client,
        client.responses.stream(model="support", input="x") as stream,
    ):
        texts = [e.delta async for e in stream if e.type == "response.output_text.delta"]
        final = await stream.get_final_response()
    assert texts == ["A ", "b."]
    assert final.output_text == "A b."


async def test_a_tripwire_is_a_refusal_part_and_an_incomplete_response() -> None:  # D12
    agent = scripted_agent("support", input_processors=[Block()])
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        whole = await client.responses.create(model="support", input="x")
        stream = await client.responses.create(model="support", input="x", stream=True)
        events = [event async for event in stream]
    assert whole.status == "incomplete"
    assert whole.incomplete_details is not None
    assert whole.incomplete_details.reason == "content_filter"
    part: Any = whole.output[0].content[0]  # type: ignore[union-attr,index]
    assert (part.type, part.refusal) == ("refusal", "Blocked content detected in input")
    kinds = [e.type for e in events]
    assert kinds == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.refusal.delta",
        "response.refusal.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.incomplete",
    ]
    refusal: Any = next(e for e in events if e.type == "response.refusal.done")
    assert refusal.refusal == "Blocked content detected in input"
    assert agent.model.calls == []  # type: ignore[union-attr]


async def test_a_retry_is_never_visible() -> None:  # D31
    model = ScriptedModel([Reply(text=["Short."]), Reply(text=["A full sentence."])])
    agent = Agent(
        id="support", model=model, output_processors=[WantsLonger()], max_processor_retries=1
    )
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        stream = await client.responses.create(model="support", input="x", stream=True)
        events = [event async for event in stream]
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert deltas == ["A full sentence."]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("previous_response_id", "resp_123"),
        ("tools", [{"type": "function", "name": "f", "parameters": {}}]),
        ("tool_choice", "required"),
        ("conversation", "conv_1"),
        ("background", True),
    ],
)
async def test_unsupported_fields_are_400_naming_them(field: str, value: Any) -> None:
    agent = scripted_agent("support", "Hi")
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await client.responses.create(model="support", input="x", extra_body={field: value})
    body: Any = caught.value.body
    assert body["param"] == field
    assert body["code"] == "unsupported_parameter"
    assert agent.model.calls == []  # type: ignore[union-attr]


async def test_input_items_map_to_messages() -> None:
    agent = scripted_agent("support", "Sure.")
    items: Any = [
        {"role": "developer", "content": "Be brief."},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "One"}]},
        {"role": "assistant", "content": [{"type": "output_text", "text": "Two"}]},
        {"role": "user", "content": "Three"},
    ]
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        await client.responses.create(model="support", input=items)
        bad: Any = [{"type": "function_call_output", "call_id": "c", "output": "x"}]
        with pytest.raises(openai.BadRequestError) as caught:
            await client.responses.create(model="support", input=bad)
    prompt = agent.model.calls[-1].prompt  # type: ignore[union-attr]
    talk = [(m["role"], str(m["content"])) for m in prompt if m["role"] != "system"]
    assert [r for r, _ in talk] == ["user", "assistant", "user"]
    assert ["One" in talk[0][1], "Two" in talk[1][1], "Three" in talk[2][1]] == [True] * 3
    assert caught.value.body["param"] == "input[0].type"  # type: ignore[index]


async def test_a_json_schema_text_format_is_the_run_s_structured_output() -> None:
    agent = scripted_agent("support", Reply(text=['{"city": "Paris"}']))
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    text: Any = {"format": {"type": "json_schema", "name": "city", "schema": schema}}
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        response = await client.responses.create(model="support", input="Paris?", text=text)
    assert response.output_text == '{"city": "Paris"}'
    sent = agent.model.calls[0].response_format  # type: ignore[union-attr]
    assert sent is not None
    assert sent["schema"] == schema
