"""Recorded wire shapes (``fixtures/*.sse``) through the real ``openai`` SDK on loopback.

Each test serves one fixture from the loopback server to a real SDK client and checks what the
adapter makes of it: the text, reasoning, tool calls, usage, finish reason, provider metadata
and, for error streams, the :class:`APICallError` (its status and whether it is retryable).
"""

from __future__ import annotations

from typing import Any

import pytest
from openai import AsyncOpenAI

from procession.chunks import Chunk
from procession.errors import APICallError
from procession.models.base import ModelCallOptions, ToolDefinition
from procession.models.openai import (
    MISTRAL,
    ChatDialect,
    OpenAIChatModel,
    OpenAIResponsesModel,
)
from procession.models.openai.responses_request import responses_input
from procession.models.openai.responses_stream import ResponsesStreamMapper
from tests.models.helpers import HELLO, of_type, types
from tests.models.openai_server import (
    OpenAIServer,
    chat_chunk,
    chat_stream,
    fixture_events,
    fixture_reply,
)

WEATHER: ToolDefinition = {
    "type": "function",
    "name": "weather",
    "description": "The weather in a city.",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
OPTIONS = ModelCallOptions(prompt=HELLO, tools=[WEATHER])


async def _serve(
    server: OpenAIServer, model: OpenAIChatModel | OpenAIResponsesModel, name: str
) -> list[Chunk]:
    server.reply(fixture_reply(name))
    result = await model.do_stream(OPTIONS)
    return [chunk async for chunk in result.stream]


async def _serve_until_error(
    server: OpenAIServer, model: OpenAIChatModel | OpenAIResponsesModel, name: str
) -> tuple[list[Chunk], APICallError]:
    server.reply(fixture_reply(name))
    result = await model.do_stream(OPTIONS)
    seen: list[Chunk] = []

    async def consume() -> None:
        async for chunk in result.stream:
            seen.append(chunk)

    with pytest.raises(APICallError) as caught:
        await consume()
    return seen, caught.value


def _chat(client: AsyncOpenAI, provider: str, dialect: ChatDialect | None = None) -> Any:
    return OpenAIChatModel("m", client=client, provider=provider, dialect=dialect)


def _text(chunks: list[Chunk]) -> str:
    return "".join(c.payload["text"] for c in of_type(chunks, "text-delta"))


def _reasoning(chunks: list[Chunk]) -> str:
    return "".join(c.payload["text"] for c in of_type(chunks, "reasoning-delta"))


def _finish(chunks: list[Chunk]) -> dict[str, Any]:
    assert chunks[-1].type == "finish"
    return chunks[-1].payload


def _calls(chunks: list[Chunk]) -> list[dict[str, Any]]:
    return [c.payload for c in of_type(chunks, "tool-call")]


@pytest.mark.asyncio
async def test_azure_filter_chunk_makes_no_empty_metadata(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    chunks = await _serve(server, _chat(client, "azure"), "azure-chat-filters.sse")
    metadata = of_type(chunks, "response-metadata")
    assert [c.payload for c in metadata] == [
        {
            "id": "chatcmpl-Az1filters",
            "modelId": "gpt-5-nano-2025-08-07",
            "timestamp": "2025-11-05T04:30:21Z",
        }
    ]
    assert _text(chunks) == "Oslo is the capital."
    finish = _finish(chunks)
    assert finish["stepResult"] == {"reason": "stop", "rawReason": "stop"}
    assert finish["output"]["usage"] == {
        "inputTokens": 15,
        "outputTokens": 70,
        "totalTokens": 85,
        "reasoningTokens": 64,
        "cachedInputTokens": 0,
    }
    azure = finish["providerMetadata"]["azure"]
    assert azure["responseId"] == "chatcmpl-Az1filters"
    assert azure["promptFilterResults"][0]["content_filter_results"]["jailbreak"] == {
        "filtered": False,
        "detected": False,
    }
    assert azure["contentFilterResults"]["violence"] == {"filtered": False, "severity": "safe"}


@pytest.mark.asyncio
async def test_chat_refusal_streams_as_text_and_is_reported(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    chunks = await _serve(server, _chat(client, "openai"), "openai-chat-refusal.sse")
    refusal = "I'm sorry, I can't help with that."
    assert _text(chunks) == refusal
    assert types(chunks)[:2] == ["response-metadata", "text-start"]
    finish = _finish(chunks)
    assert finish["stepResult"]["reason"] == "stop"
    assert finish["providerMetadata"]["openai"]["refusal"] == refusal


@pytest.mark.asyncio
async def test_chat_error_event_mid_stream(server: OpenAIServer, client: AsyncOpenAI) -> None:
    seen, error = await _serve_until_error(
        server, _chat(client, "openai"), "openai-chat-error-midstream.sse"
    )
    assert _text(seen) == "Par"
    assert error.message.startswith("The server had an error")
    assert (error.status_code, error.is_retryable) == (500, True)  # "server_error"
    assert isinstance(error.data, dict)
    assert error.data["type"] == "server_error"


@pytest.mark.asyncio
async def test_openrouter_numeric_502_mid_stream_is_a_retryable_502(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    seen, error = await _serve_until_error(
        server, _chat(client, "openrouter"), "openrouter-error-502.sse"
    )
    assert _text(seen) == "The answer"
    assert error.message == "Provider returned error"
    assert (error.status_code, error.is_retryable) == (502, True)
    assert isinstance(error.data, dict)
    assert error.data["metadata"]["provider_name"] == "Anthropic"


@pytest.mark.asyncio
async def test_openrouter_reasoning_details_are_kept(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    chunks = await _serve(server, _chat(client, "openrouter"), "openrouter-reasoning.sse")
    assert _reasoning(chunks) == "The user asks for the weather."
    (end,) = of_type(chunks, "reasoning-end")
    assert end.payload["providerMetadata"]["openrouter"]["reasoningDetails"] == [
        {
            "type": "reasoning.text",
            "text": "The user asks for the weather.",
            "format": "anthropic-claude-v1",
            "index": 0,
            "signature": "EqoBCkgIBxABGAIiQ",
        }
    ]
    assert _calls(chunks) == [
        {"toolCallId": "toolu_01AbC", "toolName": "weather", "args": {"city": "Oslo"}}
    ]
    finish = _finish(chunks)
    assert finish["stepResult"]["reason"] == "tool-calls"
    assert finish["output"]["usage"]["reasoningTokens"] == 21
    assert finish["providerMetadata"]["openrouter"]["cost"] == 0.00216


@pytest.mark.asyncio
async def test_groq_usage_comes_from_x_groq(server: OpenAIServer, client: AsyncOpenAI) -> None:
    chunks = await _serve(server, _chat(client, "groq"), "groq-tool-call.sse")
    assert _calls(chunks) == [
        {"toolCallId": "tk85n1k4m", "toolName": "weather", "args": {"city": "Oslo"}}
    ]
    finish = _finish(chunks)
    assert finish["stepResult"]["reason"] == "tool-calls"
    assert finish["output"]["usage"] == {"inputTokens": 210, "outputTokens": 15, "totalTokens": 225}


@pytest.mark.asyncio
async def test_groq_x_groq_error_ends_the_stream(server: OpenAIServer, client: AsyncOpenAI) -> None:
    seen, error = await _serve_until_error(
        server, _chat(client, "groq"), "groq-reasoning-error.sse"
    )
    assert _reasoning(seen) == "Okay, let me count the letters."
    assert "service time limit" in error.message
    assert (error.status_code, error.is_retryable) == (200, False)


@pytest.mark.asyncio
async def test_mistral_tool_calls_without_index(server: OpenAIServer, client: AsyncOpenAI) -> None:
    chunks = await _serve(server, _chat(client, "mistral", MISTRAL), "mistral-tool-call.sse")
    assert _calls(chunks) == [
        {"toolCallId": "gSIMJiOkT", "toolName": "weather", "args": {"city": "Oslo"}},
        {"toolCallId": "Xw2rTq9Lm", "toolName": "weather", "args": {"city": "Bergen"}},
    ]
    finish = _finish(chunks)
    assert finish["stepResult"]["reason"] == "tool-calls"
    assert finish["output"]["usage"] == {
        "inputTokens": 124,
        "outputTokens": 36,
        "totalTokens": 160,
        "cachedInputTokens": 64,
    }


@pytest.mark.asyncio
async def test_mistral_thinking_parts(server: OpenAIServer, client: AsyncOpenAI) -> None:
    chunks = await _serve(server, _chat(client, "mistral", MISTRAL), "mistral-reasoning.sse")
    assert _reasoning(chunks) == "The user is asking for 2+2. 2+2=4."
    assert _text(chunks) == "2 + 2 = 4"
    order = [t for t in types(chunks) if t.endswith(("-start", "-end"))]
    assert order == ["reasoning-start", "reasoning-end", "text-start", "text-end"]


@pytest.mark.asyncio
async def test_deepseek_reasoning_and_cache_hits(server: OpenAIServer, client: AsyncOpenAI) -> None:
    chunks = await _serve(server, _chat(client, "deepseek"), "deepseek-reasoning.sse")
    assert _reasoning(chunks) == "Count the r's in strawberry: three."
    assert _text(chunks) == "There are 3 r's."
    assert _finish(chunks)["output"]["usage"] == {
        "inputTokens": 97,
        "outputTokens": 106,
        "totalTokens": 203,
        "reasoningTokens": 88,
        "cachedInputTokens": 64,
    }


@pytest.mark.asyncio
async def test_xai_reasoning_tokens_are_output_tokens(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    chunks = await _serve(server, _chat(client, "xai"), "xai-reasoning.sse")
    assert _reasoning(chunks) == "First, the user said hello."
    assert _text(chunks) == "Hello"
    assert _finish(chunks)["output"]["usage"] == {
        "inputTokens": 12,
        "outputTokens": 291,  # 1 completion + 290 reasoning, counted apart by xAI
        "totalTokens": 303,
        "reasoningTokens": 290,
        "cachedInputTokens": 11,
    }


@pytest.mark.asyncio
async def test_together_eos_and_last_chunk_usage(server: OpenAIServer, client: AsyncOpenAI) -> None:
    chunks = await _serve(server, _chat(client, "together"), "together-text.sse")
    assert _text(chunks) == "Oslo is cold."
    finish = _finish(chunks)
    assert finish["stepResult"] == {"reason": "stop", "rawReason": "eos"}
    assert finish["output"]["usage"] == {"inputTokens": 42, "outputTokens": 4, "totalTokens": 46}


@pytest.mark.asyncio
async def test_fireworks_incremental_tool_call(server: OpenAIServer, client: AsyncOpenAI) -> None:
    chunks = await _serve(server, _chat(client, "fireworks"), "fireworks-tool-call.sse")
    assert _calls(chunks) == [
        {"toolCallId": "call_Fw0a1b2c3d4e5f", "toolName": "weather", "args": {"city": "Oslo"}}
    ]
    assert _finish(chunks)["output"]["usage"]["inputTokens"] == 250


@pytest.mark.asyncio
async def test_ollama_reasoning_and_whole_tool_call(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    chunks = await _serve(server, _chat(client, "ollama"), "ollama-tool-call.sse")
    assert _reasoning(chunks) == "The user wants the weather."
    assert _calls(chunks) == [
        {"toolCallId": "call_v8k2m1xq", "toolName": "weather", "args": {"city": "Oslo"}}
    ]
    finish = _finish(chunks)
    assert finish["stepResult"]["reason"] == "tool-calls"
    assert finish["output"]["usage"]["totalTokens"] == 179


@pytest.mark.asyncio
async def test_responses_refusal(server: OpenAIServer, client: AsyncOpenAI) -> None:
    model = OpenAIResponsesModel("gpt-5-mini", client=client)
    chunks = await _serve(server, model, "openai-responses-refusal.sse")
    refusal = "I'm sorry, I can't help with that."
    assert _text(chunks) == refusal
    assert [c.payload["id"] for c in of_type(chunks, "text-start")] == ["msg_refusal01"]
    finish = _finish(chunks)
    assert finish["stepResult"]["reason"] == "stop"
    assert finish["providerMetadata"]["openai"] == {
        "responseId": "resp_refusal01",
        "refusal": refusal,
    }


@pytest.mark.asyncio
async def test_responses_encrypted_reasoning_rides_on_the_parts(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    model = OpenAIResponsesModel("gpt-5-mini", client=client)
    chunks = await _serve(server, model, "openai-responses-encrypted-reasoning.sse")
    item_id = "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9"
    done = fixture_events("openai-responses-encrypted-reasoning.sse")[10]["item"]
    ends = of_type(chunks, "reasoning-end")
    assert [c.payload["id"] for c in ends] == [f"{item_id}:0", f"{item_id}:1"]
    assert ends[0].payload["providerMetadata"] == {"openai": {"itemId": item_id}}
    assert ends[1].payload["providerMetadata"] == {
        "openai": {"itemId": item_id, "reasoningEncryptedContent": done["encrypted_content"]}
    }
    assert _reasoning(chunks) == "**Checking the weather**I'll call the weather tool for Oslo."
    assert _calls(chunks) == [
        {
            "toolCallId": "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
            "toolName": "weather",
            "args": {"city": "Oslo"},
            "providerMetadata": {
                "openai": {"itemId": "fc_01830d662ab3856501693c32151234819091cfca267e98cc5f"}
            },
        }
    ]
    assert _finish(chunks)["stepResult"]["reason"] == "tool-calls"


def test_responses_input_sends_the_reasoning_back() -> None:
    item_id = "rs_1"
    prompt = [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Oslo?"}]},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "reasoning",
                    "text": "A",
                    "providerOptions": {"openai": {"itemId": item_id}},
                },
                {
                    "type": "reasoning",
                    "text": "B",
                    "providerOptions": {
                        "openai": {"itemId": item_id, "reasoningEncryptedContent": "enc"}
                    },
                },
                {"type": "tool-call", "toolCallId": "c1", "toolName": "weather", "input": {}},
            ],
        },
    ]
    for store in (False, True):
        items = responses_input(prompt, store=store)
        assert items[1] == {
            "type": "reasoning",
            "id": item_id,
            "summary": [
                {"type": "summary_text", "text": "A"},
                {"type": "summary_text", "text": "B"},
            ],
            "encrypted_content": "enc",
        }
        assert items[2]["type"] == "function_call"
        assert "id" not in items[2]  # the part had no item id


def test_responses_input_without_encrypted_content_and_store_false() -> None:
    meta = {"openai": {"itemId": "rs_2"}}
    prompt = [
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "A", "providerOptions": meta},
                {"type": "reasoning", "text": "foreign", "providerOptions": {"other": {}}},
                {"type": "text", "text": "Hi"},
            ],
        }
    ]
    warnings: list[dict[str, Any]] = []
    items = responses_input(prompt, store=False, warnings=warnings)
    assert [item.get("type", item.get("role")) for item in items] == ["assistant"]
    assert len(warnings) == 1
    assert "rs_2" in warnings[0]["message"]
    stored = responses_input(prompt, store=True)
    assert stored[0] == {
        "type": "reasoning",
        "id": "rs_2",
        "summary": [{"type": "summary_text", "text": "A"}],
    }


@pytest.mark.parametrize(
    ("name", "status", "retryable", "message"),
    [
        ("openai-responses-error-quota.sse", 429, False, "You exceeded your current quota"),
        ("openai-responses-error-null-code.sse", 500, True, "Sorry, something went wrong."),
        ("openai-responses-failed-rate-limit.sse", 429, True, "Rate limit reached"),
    ],
)
@pytest.mark.asyncio
async def test_responses_nested_errors(
    server: OpenAIServer,
    client: AsyncOpenAI,
    name: str,
    status: int,
    retryable: bool,
    message: str,
) -> None:
    model = OpenAIResponsesModel("gpt-5-mini", client=client)
    seen, error = await _serve_until_error(server, model, name)
    assert types(seen) == ["response-metadata"]
    assert error.message.startswith(message)
    assert (error.status_code, error.is_retryable) == (status, retryable)


@pytest.mark.asyncio
async def test_a_bare_error_object_in_a_chat_stream(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    error = {
        "object": "error",
        "message": "Service tier capacity exceeded",
        "type": "service_unavailable",
        "param": None,
        "code": None,
    }
    server.reply(chat_stream(chat_chunk({"content": "Hi"}), error))
    result = await _chat(client, "mistral", MISTRAL).do_stream(OPTIONS)
    seen: list[Chunk] = []

    async def consume() -> None:
        async for chunk in result.stream:
            seen.append(chunk)

    with pytest.raises(APICallError) as caught:
        await consume()
    assert _text(seen) == "Hi"
    assert caught.value.message == "Service tier capacity exceeded"
    assert (caught.value.status_code, caught.value.is_retryable) == (503, True)


def test_responses_events_wrapped_by_older_sdks_are_unwrapped() -> None:
    mapper = ResponsesStreamMapper("openai")
    event = {"type": "response.output_text.delta", "item_id": "msg_1", "delta": "Hi"}
    (chunk,) = mapper.feed({"event": "response.output_text.delta", "data": event})
    assert (chunk.type, chunk.payload) == ("text-delta", {"id": "msg_1", "text": "Hi"})
    with pytest.raises(APICallError) as caught:
        mapper.feed(
            {"event": "error", "data": {"type": "error", "code": "server_error", "message": "boom"}}
        )
    assert (caught.value.message, caught.value.status_code) == ("boom", 500)


def test_responses_input_gives_function_calls_their_item_id() -> None:
    call = {
        "type": "tool-call",
        "toolCallId": "c1",
        "toolName": "weather",
        "input": {"city": "Oslo"},
        "providerOptions": {"openai": {"itemId": "fc_1"}},
    }
    (item,) = responses_input([{"role": "assistant", "content": [call]}])
    assert item == {
        "type": "function_call",
        "call_id": "c1",
        "name": "weather",
        "arguments": '{"city": "Oslo"}',
        "id": "fc_1",
    }


@pytest.mark.asyncio
async def test_copilot_rotating_item_ids_make_one_reasoning_part(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    # GitHub Copilot sends a new item_id on each reasoning event of one item; the item is the
    # one added at the event's output_index, so it streams as one part, not one per event.
    model = OpenAIResponsesModel("gpt-5-mini", client=client, provider="github-copilot")
    chunks = await _serve(server, model, "openai-responses-copilot-rotating-ids.sse")
    added = fixture_events("openai-responses-copilot-rotating-ids.sse")[1]["item"]
    starts = of_type(chunks, "reasoning-start")
    ends = of_type(chunks, "reasoning-end")
    assert [c.payload["id"] for c in starts] == [f"{added['id']}:0"]
    assert [c.payload["id"] for c in ends] == [f"{added['id']}:0"]
    assert {c.payload["id"] for c in of_type(chunks, "reasoning-delta")} == {f"{added['id']}:0"}
    assert _reasoning(chunks) == "**Checking the capital**"
    assert ends[0].payload["providerMetadata"]["github-copilot"] == {
        "itemId": added["id"],
        "reasoningEncryptedContent": added["encrypted_content"],
    }
    assert _text(chunks) == "Oslo."
