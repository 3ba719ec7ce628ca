"""OpenAIChatModel against the scripted server, through the real ``openai`` SDK."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai import AsyncOpenAI

from procession.errors import APICallError
from procession.models.base import ModelCallOptions, ToolDefinition
from procession.models.openai import OpenAIChatModel
from procession.testing import check_model
from tests.models.helpers import HELLO, collect, of_type, types
from tests.models.openai_server import OpenAIServer, Reply, chat_chunk, chat_stream, usage_chunk

WEATHER: ToolDefinition = {
    "type": "function",
    "name": "weather",
    "description": "The weather in a city.",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def _call(index: int, call_id: str | None = None, name: str | None = None, args: str = "") -> Any:
    function: dict[str, str] = {"arguments": args}
    if name is not None:
        function["name"] = name
    call: dict[str, Any] = {"index": index, "function": function}
    if call_id is not None:
        call.update(id=call_id, type="function")
    return call


@pytest.mark.asyncio
async def test_passes_the_model_contract(client: AsyncOpenAI) -> None:
    report = await check_model(OpenAIChatModel("gpt-test", client=client))
    assert report.text("text") == "Hello there!"


@pytest.mark.asyncio
async def test_streams_text_with_metadata_and_usage(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(
        chat_stream(
            chat_chunk({"role": "assistant", "content": "Hi"}),
            chat_chunk({"content": ", you"}),
            chat_chunk({}, "stop"),
            usage_chunk(
                12,
                4,
                completion_tokens_details={"reasoning_tokens": 1},
                prompt_tokens_details={"cached_tokens": 8},
            ),
            headers={"x-request-id": "req_42"},
        )
    )
    result = await OpenAIChatModel("gpt-test", client=client).do_stream(
        ModelCallOptions(prompt=HELLO)
    )
    assert result.response["headers"]["x-request-id"] == "req_42"
    assert result.request["body"]["messages"] == [{"role": "user", "content": "Hello?"}]
    chunks = [chunk async for chunk in result.stream]
    assert types(chunks) == [
        "response-metadata",
        "text-start",
        "text-delta",
        "text-delta",
        "text-end",
        "finish",
    ]
    assert chunks[0].payload == {
        "id": "chatcmpl-test",
        "modelId": "gpt-test",
        "timestamp": "2023-11-14T22:13:20Z",
    }
    assert "".join(c.payload["text"] for c in of_type(chunks, "text-delta")) == "Hi, you"
    finish = chunks[-1].payload
    assert finish["stepResult"]["reason"] == "stop"
    assert finish["output"]["usage"] == {
        "inputTokens": 12,
        "outputTokens": 4,
        "totalTokens": 16,
        "reasoningTokens": 1,
        "cachedInputTokens": 8,
    }


@pytest.mark.asyncio
async def test_top_level_reasoning_tokens_are_counted(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    # Azure AI's DeepSeek deployments report reasoning_tokens beside the other counts.
    server.reply(
        chat_stream(
            chat_chunk({"role": "assistant", "content": "42"}),
            chat_chunk({}, "stop"),
            usage_chunk(9, 30, reasoning_tokens=27),
        )
    )
    chunks = await collect(OpenAIChatModel("DeepSeek-R1", client=client))
    usage = chunks[-1].payload["output"]["usage"]
    assert usage["reasoningTokens"] == 27
    assert usage["outputTokens"] == 30


@pytest.mark.asyncio
async def test_tool_call_arguments_split_across_deltas_two_parallel_calls(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(
        chat_stream(
            chat_chunk({"role": "assistant", "tool_calls": [_call(0, "call_a", "weather")]}),
            chat_chunk({"tool_calls": [_call(0, args='{"ci')]}),
            chat_chunk({"tool_calls": [_call(0, args='ty": "Paris"}')]}),
            chat_chunk({"tool_calls": [_call(1, "call_b", "weather", '{"city"')]}),
            chat_chunk({"tool_calls": [_call(1, args=': "Oslo"}')]}),
            chat_chunk({}, "tool_calls"),
            usage_chunk(20, 9),
        )
    )
    options = ModelCallOptions(prompt=HELLO, tools=[WEATHER])
    chunks = await collect(OpenAIChatModel("gpt-test", client=client), options)
    starts = of_type(chunks, "tool-call-input-streaming-start")
    assert [c.payload for c in starts] == [
        {"toolCallId": "call_a", "toolName": "weather"},
        {"toolCallId": "call_b", "toolName": "weather"},
    ]
    deltas = [c.payload["argsTextDelta"] for c in of_type(chunks, "tool-call-delta")]
    assert deltas == ['{"ci', 'ty": "Paris"}', '{"city"', ': "Oslo"}']
    calls = of_type(chunks, "tool-call")
    assert [c.payload for c in calls] == [
        {"toolCallId": "call_a", "toolName": "weather", "args": {"city": "Paris"}},
        {"toolCallId": "call_b", "toolName": "weather", "args": {"city": "Oslo"}},
    ]
    ends = [c.payload["toolCallId"] for c in of_type(chunks, "tool-call-input-streaming-end")]
    assert ends == ["call_a", "call_b"]
    assert chunks[-1].payload["stepResult"]["reason"] == "tool-calls"


@pytest.mark.asyncio
async def test_reasoning_content_of_compatible_servers(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(
        chat_stream(
            chat_chunk({"role": "assistant", "reasoning_content": "Think"}),
            chat_chunk({"reasoning": "ing..."}),
            chat_chunk({"content": "42"}),
            chat_chunk({}, "length"),
        )
    )
    chunks = await collect(OpenAIChatModel("qwen", client=client, provider="vllm"))
    assert types(chunks) == [
        "response-metadata",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-delta",
        "reasoning-end",
        "text-start",
        "text-delta",
        "text-end",
        "finish",
    ]
    reasoning = "".join(c.payload["text"] for c in of_type(chunks, "reasoning-delta"))
    assert reasoning == "Thinking..."
    assert chunks[-1].payload["stepResult"]["reason"] == "length"
    assert chunks[-1].payload["output"]["usage"]["inputTokens"] is None


@pytest.mark.parametrize(
    ("raw", "reason"),
    [("content_filter", "content-filter"), ("weird", "other"), (None, "unknown")],
)
@pytest.mark.asyncio
async def test_finish_reasons(
    server: OpenAIServer, client: AsyncOpenAI, raw: str | None, reason: str
) -> None:
    server.reply(chat_stream(chat_chunk({"content": "x"}), chat_chunk({}, raw)))
    chunks = await collect(OpenAIChatModel("gpt-test", client=client))
    assert chunks[-1].payload["stepResult"]["reason"] == reason


@pytest.mark.asyncio
async def test_request_body_maps_prompt_tools_settings_and_options(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    prompt: list[dict[str, Any]] = [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "file", "data": "aGVsbG8=", "mediaType": "image/png"},
                {"type": "file", "data": "JVBERi0=", "mediaType": "application/pdf"},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "hidden"},
                {"type": "text", "text": "Let me look."},
                {"type": "tool-call", "toolCallId": "c1", "toolName": "weather", "input": {}},
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "toolName": "weather",
                    "output": {"type": "json", "value": {"temp": 21}},
                }
            ],
        },
    ]
    options = ModelCallOptions(
        prompt=prompt,
        tools=[WEATHER],
        tool_choice={"type": "tool", "toolName": "weather"},
        settings={
            "temperature": 0.2,
            "max_output_tokens": 64,
            "top_p": 0.9,
            "presence_penalty": 0.1,
            "frequency_penalty": 0.3,
            "stop_sequences": ["END"],
            "seed": 7,
            "top_k": 5,
            "headers": {"x-trace": "abc"},
        },
        provider_options={"openai": {"reasoningEffort": "low", "user": "u1"}},
        response_format={"type": "json", "schema": {"type": "object"}, "name": "answer"},
    )
    model = OpenAIChatModel("gpt-test", client=client)
    result = await model.do_stream(options)
    _ = [chunk async for chunk in result.stream]
    sent = server.requests[-1]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer test-key"
    assert sent.headers["x-trace"] == "abc"
    assert sent.body == result.request["body"]
    body = sent.body
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}},
                {
                    "type": "file",
                    "file": {
                        "filename": "file",
                        "file_data": "data:application/pdf;base64,JVBERi0=",
                    },
                },
            ],
        },
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"temp": 21})},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "weather",
                "description": "The weather in a city.",
                "parameters": WEATHER["inputSchema"],
            },
        }
    ]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "weather"}}
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    expected = {
        "temperature": 0.2,
        "max_completion_tokens": 64,
        "top_p": 0.9,
        "presence_penalty": 0.1,
        "frequency_penalty": 0.3,
        "stop": ["END"],
        "seed": 7,
        "reasoning_effort": "low",
        "user": "u1",
    }
    assert {key: body[key] for key in expected} == expected
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": {"type": "object"}, "strict": False},
    }
    assert result.warnings == [{"type": "unsupported-setting", "setting": "top_k"}]


@pytest.mark.asyncio
async def test_compatible_server_gets_max_tokens_and_its_own_options(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    options = ModelCallOptions(
        prompt=HELLO,
        settings={"max_output_tokens": 10},
        provider_options={"ollama": {"keep_alive": "5m"}, "anthropic": {"x": 1}},
        tool_choice={"type": "none"},
        response_format={"type": "json"},
    )
    await collect(OpenAIChatModel("llama3", client=client, provider="ollama"), options)
    body = server.requests[-1].body
    assert body["max_tokens"] == 10
    assert "max_completion_tokens" not in body
    assert body["keep_alive"] == "5m"
    assert "x" not in body
    assert "tool_choice" not in body  # no tools offered
    assert body["response_format"] == {"type": "json_object"}


@pytest.mark.asyncio
async def test_400_with_json_body_is_a_non_retryable_api_call_error(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    error = {"error": {"message": "Bad temperature", "type": "invalid_request_error"}}
    server.reply(Reply(status=400, json=error, headers={"x-request-id": "req_1"}))
    with pytest.raises(APICallError) as caught:
        await OpenAIChatModel("gpt-test", client=client).do_stream(ModelCallOptions(prompt=HELLO))
    exc = caught.value
    assert exc.status_code == 400
    assert exc.is_retryable is False
    assert exc.response_body is not None
    assert json.loads(exc.response_body) == error
    assert exc.response_headers["x-request-id"] == "req_1"
    assert "Bad temperature" in exc.message
    assert exc.url is not None
    assert exc.url.endswith("/v1/chat/completions")
    assert isinstance(exc.request_body, dict)
    assert len(server.requests) == 1  # the SDK itself did not retry


@pytest.mark.asyncio
async def test_429_is_retryable_with_retry_after(server: OpenAIServer, client: AsyncOpenAI) -> None:
    server.reply(
        Reply(status=429, json={"error": {"message": "slow down"}}, headers={"retry-after": "3"})
    )
    with pytest.raises(APICallError) as caught:
        await OpenAIChatModel("gpt-test", client=client).do_stream(ModelCallOptions(prompt=HELLO))
    assert caught.value.status_code == 429
    assert caught.value.is_retryable is True
    assert caught.value.retry_after == 3.0


@pytest.mark.asyncio
async def test_error_event_mid_stream_raises_from_the_iterator(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(
        chat_stream(
            chat_chunk({"content": "Par"}),
            {"error": {"message": "The server had an error", "type": "server_error"}},
            chat_chunk({"content": "never"}),
        )
    )
    result = await OpenAIChatModel("gpt-test", client=client).do_stream(
        ModelCallOptions(prompt=HELLO)
    )
    seen: list[str] = []

    async def consume() -> None:
        async for chunk in result.stream:
            seen.append(chunk.type)

    with pytest.raises(APICallError) as caught:
        await consume()
    assert seen == ["response-metadata", "text-start", "text-delta"]
    assert caught.value.message == "The server had an error"
    assert caught.value.status_code == 500  # what "server_error" stands for
    assert caught.value.is_retryable is True
    assert caught.value.data == {"message": "The server had an error", "type": "server_error"}


@pytest.mark.asyncio
async def test_connection_refused_is_a_retryable_api_call_error() -> None:
    async with OpenAIServer() as closed:
        base_url = closed.base_url
    model = OpenAIChatModel("gpt-test", api_key="k", base_url=base_url)
    try:
        with pytest.raises(APICallError) as caught:
            await model.do_stream(ModelCallOptions(prompt=HELLO))
    finally:
        await model.aclose()
    assert caught.value.status_code is None
    assert caught.value.is_retryable is True


@pytest.mark.asyncio
async def test_model_made_client_has_sdk_retries_off_and_sends_headers(
    server: OpenAIServer,
) -> None:
    model = OpenAIChatModel(
        "gpt-test", api_key="sk-own", base_url=server.base_url, headers={"x-team": "core"}
    )
    try:
        assert model.client.max_retries == 0
        server.reply(Reply(status=503, json={"error": {"message": "busy"}}))
        with pytest.raises(APICallError):
            await model.do_stream(ModelCallOptions(prompt=HELLO))
        assert len(server.requests) == 1
        await collect(model)
    finally:
        await model.aclose()
    assert server.requests[-1].headers["authorization"] == "Bearer sk-own"
    assert server.requests[-1].headers["x-team"] == "core"


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-json",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-test",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14},
    }


@pytest.mark.asyncio
async def test_a_json_answer_to_a_streaming_request_is_read_whole(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    # Some compatible servers ignore "stream": true and send the whole chat.completion.
    call = {
        "id": "call_9",
        "type": "function",
        "function": {"name": "weather", "arguments": '{"city":"Oslo"}'},
    }
    message = {"role": "assistant", "content": "Checking.", "tool_calls": [call]}
    server.reply(Reply(json=_completion(message, "tool_calls")))
    chunks = await collect(OpenAIChatModel("gpt-test", client=client))
    assert "".join(c.payload["text"] for c in of_type(chunks, "text-delta")) == "Checking."
    (tool_call,) = (c.payload for c in of_type(chunks, "tool-call"))
    assert tool_call["toolName"] == "weather"
    assert tool_call["args"] == {"city": "Oslo"}
    finish = chunks[-1].payload
    assert finish["stepResult"]["reason"] == "tool-calls"
    assert finish["output"]["usage"]["inputTokens"] == 11


@pytest.mark.asyncio
async def test_a_json_body_that_is_no_completion_fails_clearly(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(Reply(json={"detail": "streaming is not supported here"}))
    with pytest.raises(APICallError, match="application/json that is no chat completion"):
        await collect(OpenAIChatModel("gpt-test", client=client))


@pytest.mark.asyncio
async def test_cited_urls_become_sources_once_each(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    # OpenRouter's web plugin streams url_citation annotations in the delta; Perplexity sends
    # the cited URLs as a top-level citations list, repeated on its chunks.
    note = {"type": "url_citation", "url_citation": {"url": "http://127.0.0.1/a", "title": "A"}}
    first = chat_chunk({"role": "assistant", "content": "See"})
    first["citations"] = ["http://127.0.0.1/b", "http://127.0.0.1/a"]
    server.reply(
        chat_stream(
            first,
            chat_chunk({"content": " this.", "annotations": [note]}),
            chat_chunk({}, "stop"),
        )
    )
    chunks = await collect(OpenAIChatModel("sonar", client=client))
    sources = [c.payload for c in of_type(chunks, "source")]
    assert [s["url"] for s in sources] == ["http://127.0.0.1/b", "http://127.0.0.1/a"]
    assert all(s["sourceType"] == "url" for s in sources)
    assert "".join(c.payload["text"] for c in of_type(chunks, "text-delta")) == "See this."
