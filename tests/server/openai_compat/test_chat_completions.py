"""``POST /v1/chat/completions`` driven by the real ``openai`` SDK (``AsyncOpenAI`` and
``OpenAI``) against uvicorn on 127.0.0.1 (issue 26)."""

from __future__ import annotations

import re
from typing import Any

import openai
import pytest
from openai import AsyncOpenAI
from pydantic import BaseModel

from procession import Processor, StreamRedactor, tool
from procession.chunks import Usage
from procession.server import Auth, create_app
from procession.testing import Reply, ScriptedModel, ToolCallScript
from tests.server.conftest import live_server, scripted_agent

pytestmark = pytest.mark.asyncio

KEY = "sk-alice-0123456789abcdef"
AUTH = Auth(api_keys={KEY: "alice"})


def client_for(url: str, key: str = KEY) -> AsyncOpenAI:
    """The SDK pointed at the served app's ``/v1``."""
    return AsyncOpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0)


class WantsLonger(Processor):
    id = "wants-longer"

    def process_output_step(
        self, *, tool_calls: Any, retry_count: int, abort: Any, **_: Any
    ) -> None:
        if not tool_calls and retry_count == 0:
            abort("Answer in a full sentence.", retry=True)


class NoSecrets(Processor):
    id = "no-secrets"

    def process_output_stream(self, *, part: Any, abort: Any, **_: Any) -> Any:
        if part.type == "text-delta" and "secret" in part.payload.get("text", ""):
            abort("The answer held a secret")
        return part


@tool
async def weather(city: str) -> dict[str, Any]:
    """The weather in a city."""
    return {"city": city, "celsius": 21}


async def test_a_completion_answers_with_the_agent_s_text_and_usage() -> None:
    usage = Usage(input_tokens=37, output_tokens=5, total_tokens=42)
    agent = scripted_agent("support", Reply(text=["Hello ", "there"], usage=usage))
    async with live_server(create_app(agent, auth=AUTH)) as live, client_for(live.url) as client:
        completion = await client.chat.completions.create(
            model="support", messages=[{"role": "user", "content": "hi"}]
        )
    assert completion.object == "chat.completion"
    assert completion.model == "support"
    choice = completion.choices[0]
    assert choice.message.role == "assistant"
    assert choice.message.content == "Hello there"
    assert choice.message.refusal is None
    assert choice.finish_reason == "stop"
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (37, 5)
    assert completion.usage.total_tokens == 42


async def test_a_stream_is_chat_completion_chunks_with_the_usage_last() -> None:
    usage = Usage(input_tokens=12, output_tokens=3, total_tokens=15)
    agent = scripted_agent("support", Reply(text=["It ", "is ", "sunny."], usage=usage))
    async with live_server(create_app(agent, auth=AUTH)) as live, client_for(live.url) as client:
        stream = await client.chat.completions.create(
            model="support",
            messages=[{"role": "user", "content": "weather?"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = [chunk async for chunk in stream]
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert len({c.id for c in chunks}) == 1
    assert chunks[0].choices[0].delta.role == "assistant"
    deltas = [c.choices[0].delta.content for c in chunks if c.choices]
    assert [d for d in deltas if d] == ["It ", "is ", "sunny."]
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert [f for f in finishes if f] == ["stop"]
    last = chunks[-1]
    assert last.choices == []
    assert last.usage is not None
    assert (last.usage.prompt_tokens, last.usage.completion_tokens) == (12, 3)


async def test_without_include_usage_no_usage_chunk_is_sent() -> None:
    async with (
        live_server(create_app(scripted_agent("support", "Hi"))) as live,
        client_for(live.url) as client,
    ):
        stream = await client.chat.completions.create(
            model="support", messages=[{"role": "user", "content": "x"}], stream=True
        )
        chunks = [chunk async for chunk in stream]
    assert all(c.choices for c in chunks)
    assert all(c.usage is None for c in chunks)


async def test_the_agent_runs_its_own_tools_and_only_its_answer_streams() -> None:
    agent = scripted_agent(
        "support",
        Reply(tool_calls=[ToolCallScript("weather", {"city": "Paris"}, id="w1")]),
        Reply(text=["It is 21°C."]),
        tools=[weather],
    )
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        stream = await client.chat.completions.create(
            model="support", messages=[{"role": "user", "content": "Paris?"}], stream=True
        )
        chunks = [chunk async for chunk in stream]
    assert all(c.choices[0].delta.tool_calls is None for c in chunks)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text == "It is 21°C."
    assert chunks[-1].choices[0].finish_reason == "stop"


async def test_a_tripwire_is_a_refusal_with_content_filter() -> None:  # D12
    def make() -> Any:
        model = ScriptedModel([Reply(text=["The code is ", "secret 1234"])], repeat_last=True)
        from procession import Agent

        return Agent(id="support", model=model, output_processors=[NoSecrets()])

    async with live_server(create_app(make())) as live, client_for(live.url) as client:
        completion = await client.chat.completions.create(
            model="support", messages=[{"role": "user", "content": "code?"}]
        )
        stream = await client.chat.completions.create(
            model="support", messages=[{"role": "user", "content": "code?"}], stream=True
        )
        chunks = [chunk async for chunk in stream]
    choice = completion.choices[0]
    assert choice.finish_reason == "content_filter"
    assert choice.message.refusal == "The answer held a secret"
    assert "secret" not in (choice.message.content or "")
    refusals = [c.choices[0].delta.refusal for c in chunks if c.choices[0].delta.refusal]
    assert refusals == ["The answer held a secret"]
    assert all("secret" not in (c.choices[0].delta.content or "") for c in chunks)  # D31
    assert chunks[-1].choices[0].finish_reason == "content_filter"


async def test_redaction_applies_to_what_streams_back() -> None:
    reply = Reply(text=["Write to ada.lov", "elace@example.com", " today."])
    agent = scripted_agent("support", reply, output_processors=[StreamRedactor()])
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        stream = await client.chat.completions.create(
            model="support", messages=[{"role": "user", "content": "mail?"}], stream=True
        )
        streamed = "".join([c.choices[0].delta.content or "" async for c in stream])
        whole = await client.chat.completions.create(
            model="support", messages=[{"role": "user", "content": "mail?"}]
        )
    assert "example.com" not in streamed
    assert "lovelace" not in streamed
    assert streamed.startswith("Write to ")
    assert streamed.endswith(" today.")
    assert whole.choices[0].message.content == streamed


async def test_a_retry_is_never_visible() -> None:  # D31
    agent = scripted_agent(
        "support",
        Reply(text=["Short."]),
        Reply(text=["A full sentence."]),
        output_processors=[WantsLonger()],
        max_processor_retries=1,
    )
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        stream = await client.chat.completions.create(
            model="support", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        deltas = [c.choices[0].delta.content async for c in stream]
    assert [d for d in deltas if d] == ["A full sentence."]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("tools", [{"type": "function", "function": {"name": "f", "parameters": {}}}]),
        ("tool_choice", "required"),
        ("functions", [{"name": "f", "parameters": {}}]),
        ("function_call", "auto"),
    ],
)
async def test_client_tools_are_refused_with_400_naming_the_field(field: str, value: Any) -> None:
    agent = scripted_agent("support", "Hi")
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await client.chat.completions.create(
                model="support",
                messages=[{"role": "user", "content": "x"}],
                extra_body={field: value},
            )
    body: Any = caught.value.body
    assert body["param"] == field
    assert body["type"] == "invalid_request_error"
    assert body["code"] == "unsupported_parameter"
    assert "own tools" in body["message"]
    assert agent.model.calls == []  # type: ignore[union-attr]


async def test_history_roles_reach_the_model_as_procession_messages() -> None:
    agent = scripted_agent("support", "Done.", instructions="You are the support agent.")
    messages: Any = [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "21 degrees"},
        {"role": "assistant", "content": "It is 21 degrees."},
        {"role": "user", "content": "Thanks"},
    ]
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        await client.chat.completions.create(model="support", messages=messages)
    prompt = agent.model.calls[-1].prompt  # type: ignore[union-attr]
    roles = [m["role"] for m in prompt]
    assert roles[:2] == ["system", "system"]
    assert "You are the support agent." in str(prompt[0]["content"])
    assert "Be brief." in str(prompt[1]["content"])
    assert roles[2:] == ["user", "assistant", "tool", "assistant", "user"]
    assert "21 degrees" in str(prompt[4]["content"])
    assert "c1" in str(prompt[3]["content"])


async def test_malformed_messages_are_400_naming_the_field() -> None:
    agent = scripted_agent("support", "Hi")
    cases: list[tuple[Any, str]] = [
        ([{"role": "wizard", "content": "x"}], "messages[0].role"),
        ([{"role": "user", "content": [{"type": "input_audio"}]}], "messages[0].content[0].type"),
        ([{"role": "tool", "tool_call_id": "nope", "content": "x"}], "messages[0].tool_call_id"),
        ([], "messages"),
    ]
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        for messages, param in cases:
            with pytest.raises(openai.BadRequestError) as caught:
                await client.chat.completions.create(model="support", messages=messages)
            assert caught.value.body["param"] == param, messages  # type: ignore[index]
        with pytest.raises(openai.BadRequestError) as caught:
            await client.chat.completions.create(
                model="support", messages=[{"role": "user", "content": "x"}], n=2
            )
        assert caught.value.body["param"] == "n"  # type: ignore[index]
    assert agent.model.calls == []  # type: ignore[union-attr]


async def test_an_unknown_model_is_404_model_not_found() -> None:
    async with (
        live_server(create_app(scripted_agent("support"))) as live,
        client_for(live.url) as client,
    ):
        with pytest.raises(openai.NotFoundError) as caught:
            await client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": "x"}]
            )
    assert caught.value.code == "model_not_found"
    assert "gpt-4o" in caught.value.message


async def test_call_settings_reach_the_model() -> None:
    agent = scripted_agent("support", "Hi")
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        await client.chat.completions.create(
            model="support",
            messages=[{"role": "user", "content": "x"}],
            temperature=0.2,
            top_p=0.5,
            max_completion_tokens=64,
            stop=["END"],
            seed=7,
        )
    settings = agent.model.calls[-1].settings  # type: ignore[union-attr]
    assert re.search(r"temperature.*0\.2", str(settings))
    assert "64" in str(settings)
    assert "END" in str(settings)


class City(BaseModel):
    city: str
    celsius: int


async def test_a_json_schema_response_format_is_the_run_s_structured_output() -> None:
    agent = scripted_agent("support", Reply(text=['{"city": "Paris", ', '"celsius": 21}']))
    async with live_server(create_app(agent)) as live, client_for(live.url) as client:
        parsed = await client.chat.completions.parse(
            model="support",
            messages=[{"role": "user", "content": "Paris?"}],
            response_format=City,
        )
        with pytest.raises(openai.BadRequestError) as caught:
            await client.chat.completions.create(
                model="support",
                messages=[{"role": "user", "content": "x"}],
                response_format={"type": "json_object"},
            )
    assert parsed.choices[0].message.parsed == City(city="Paris", celsius=21)
    sent = agent.model.calls[0].response_format  # type: ignore[union-attr]
    assert sent is not None
    assert sent["schema"]["properties"]["celsius"]["type"] == "integer"
    assert caught.value.body["param"] == "response_format.type"  # type: ignore[index]
