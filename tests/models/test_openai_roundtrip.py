"""Multi-turn through a real agent: what one step streamed comes back in the next request.

The reasoning of a tool-calling step must reach the model again on the step after the tool
ran: the Responses API's reasoning item (with ``store: false`` only its encrypted content
carries it) and OpenRouter's ``reasoning_details``.
"""

from __future__ import annotations

import pytest
from openai import AsyncOpenAI

from procession import Agent, tool
from procession.models.base import ModelCallOptions
from procession.models.openai import OpenAIChatModel, OpenAIResponsesModel
from procession.models.openai.chat_request import chat_messages
from procession.models.openai.responses_request import responses_request_body
from tests.models.helpers import HELLO
from tests.models.openai_server import (
    OpenAIServer,
    chat_chunk,
    chat_stream,
    fixture_events,
    fixture_reply,
)


@tool
def weather(city: str) -> dict[str, str]:
    """The weather in a city."""
    return {"city": city, "sky": "clear"}


@pytest.mark.asyncio
async def test_responses_store_false_sends_the_encrypted_reasoning_back(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    name = "openai-responses-encrypted-reasoning.sse"
    server.reply(fixture_reply(name))  # step 1: reasoning + a weather call; step 2: default text
    agent = Agent(
        id="weather",
        model=OpenAIResponsesModel("gpt-5-mini", client=client),
        tools=[weather],
        provider_options={"openai": {"store": False}},
    )
    result = await agent.generate("Weather in Oslo?")
    assert result.text == "Hello there!"
    first, second = (request.body for request in server.requests)
    assert first["store"] is False
    assert first["include"] == ["reasoning.encrypted_content"]
    done = fixture_events(name)[10]["item"]
    items = second["input"]
    kinds = [item.get("type", item.get("role")) for item in items]
    assert kinds == ["user", "reasoning", "function_call", "function_call_output"]
    assert items[1] == {
        "type": "reasoning",
        "id": done["id"],
        "summary": done["summary"],
        "encrypted_content": done["encrypted_content"],
    }
    assert items[2]["call_id"] == items[3]["call_id"] == "call_AB6AaRZ1FYZB2RwS6A5vbdqn"


@pytest.mark.asyncio
async def test_responses_function_call_goes_back_with_its_item_id(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    # The tool-call chunk carries providerMetadata.openai.itemId ("fc_..."); for the next
    # request to name the output item, the loop must keep it on the ToolInvocationPart and
    # hand it to the prompt's tool-call part as providerOptions (as it does for reasoning).
    name = "openai-responses-encrypted-reasoning.sse"
    server.reply(fixture_reply(name))
    agent = Agent(
        id="weather",
        model=OpenAIResponsesModel("gpt-5-mini", client=client),
        tools=[weather],
        provider_options={"openai": {"store": False}},
    )
    await agent.generate("Weather in Oslo?")
    call = next(i for i in server.requests[1].body["input"] if i.get("type") == "function_call")
    assert call["id"] == fixture_events(name)[15]["item"]["id"]


@pytest.mark.asyncio
async def test_openrouter_reasoning_details_go_back_with_the_tool_call(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(fixture_reply("openrouter-reasoning.sse"))
    agent = Agent(
        id="weather",
        model=OpenAIChatModel("anthropic/claude-sonnet-4", client=client, provider="openrouter"),
        tools=[weather],
    )
    result = await agent.generate("Weather in Oslo?")
    assert result.text == "Hello there!"
    messages = server.requests[1].body["messages"]
    assistant = next(m for m in messages if m["role"] == "assistant")
    assert assistant["tool_calls"][0]["id"] == "toolu_01AbC"
    assert assistant["reasoning_details"] == [
        {
            "type": "reasoning.text",
            "text": "The user asks for the weather.",
            "format": "anthropic-claude-v1",
            "index": 0,
            "signature": "EqoBCkgIBxABGAIiQ",
        }
    ]


def test_reasoning_details_go_back_only_to_their_provider() -> None:
    details = [{"type": "reasoning.encrypted", "data": "opaque", "index": 0}]
    prompt = [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "reasoning",
                    "text": "",
                    "providerOptions": {"openrouter": {"reasoningDetails": details}},
                },
                {"type": "text", "text": "Hi"},
            ],
        }
    ]
    assert chat_messages(prompt, "openrouter") == [
        {"role": "assistant", "content": "Hi", "reasoning_details": details}
    ]
    assert chat_messages(prompt, "deepseek") == [{"role": "assistant", "content": "Hi"}]


@pytest.mark.parametrize(
    ("model_id", "options", "include"),
    [
        ("gpt-5-mini", {"store": False}, ["reasoning.encrypted_content"]),
        (
            "o4-mini",
            {"store": False, "include": ["file_search_call.results"]},
            ["file_search_call.results", "reasoning.encrypted_content"],
        ),
        (
            "gpt-5-mini",
            {"store": False, "include": ["reasoning.encrypted_content"]},
            ["reasoning.encrypted_content"],
        ),
        ("gpt-4.1", {"store": False}, None),  # not a reasoning model: the API would refuse
        ("gpt-5-chat-latest", {"store": False}, None),
        ("gpt-5-mini", {}, None),
    ],
)
def test_store_false_asks_reasoning_models_for_encrypted_reasoning(
    model_id: str, options: dict[str, object], include: list[str] | None
) -> None:
    call = ModelCallOptions(prompt=HELLO, provider_options={"openai": options})
    body = responses_request_body(model_id, call, warnings=[])
    assert body.get("include") == include


@pytest.mark.asyncio
@pytest.mark.parametrize("fmt", ["openai-responses-v1", "xai-responses-v1"])
async def test_openrouter_encrypted_reasoning_without_text_goes_back(
    server: OpenAIServer, client: AsyncOpenAI, fmt: str
) -> None:
    detail = {
        "type": "reasoning.encrypted",
        "data": "gAAAAABo-opaque",
        "id": "rs_1",
        "format": fmt,
        "index": 0,
    }
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
    }
    server.reply(
        chat_stream(
            chat_chunk({"role": "assistant", "content": "", "reasoning_details": [detail]}),
            chat_chunk({"tool_calls": [call]}),
            chat_chunk({}, "tool_calls"),
        )
    )
    agent = Agent(
        id="weather",
        model=OpenAIChatModel("openai/gpt-5-mini", client=client, provider="openrouter"),
        tools=[weather],
    )
    result = await agent.generate("Weather in Oslo?")
    assert result.text == "Hello there!"
    assistant = next(m for m in server.requests[1].body["messages"] if m["role"] == "assistant")
    assert assistant["reasoning_details"] == [detail]
