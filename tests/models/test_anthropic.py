"""AnthropicModel with the real ``anthropic`` SDK against a scripted server on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from procession.chunks import Chunk
from procession.errors import APICallError, ConfigurationError
from procession.models import ModelCallOptions, ToolDefinition, resolve_model
from procession.models.anthropic import AnthropicModel
from procession.signals import AbortSignal
from procession.testing import check_model
from tests.models.anthropic_server import (
    block_delta,
    block_start,
    block_stop,
    error_event,
    message_delta,
    message_start,
    message_stop,
    stream_reply,
    text_reply,
    tool_reply,
)
from tests.models.scripted_server import Reply, ScriptedServer

pytest.importorskip("anthropic")

USER = {"role": "user", "content": [{"type": "text", "text": "Hi"}]}
WEATHER: ToolDefinition = {
    "type": "function",
    "name": "weather",
    "description": "Weather for a city.",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


@pytest_asyncio.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    async with ScriptedServer() as scripted:
        yield scripted


@pytest_asyncio.fixture
async def model(server: ScriptedServer) -> AsyncIterator[AnthropicModel]:
    claude = AnthropicModel("claude-test-1", api_key="sk-test", base_url=server.url)
    yield claude
    await claude.aclose()


async def collect(model: AnthropicModel, **options: Any) -> list[Chunk]:
    options.setdefault("prompt", [USER])
    result = await model.do_stream(ModelCallOptions(**options))
    return [chunk async for chunk in result.stream]


def of_type(chunks: list[Chunk], kind: str) -> list[dict[str, Any]]:
    return [c.payload for c in chunks if c.type == kind]


@pytest.mark.asyncio
async def test_text_stream_and_request(server: ScriptedServer, model: AnthropicModel) -> None:
    server.script(text_reply("Hel", "lo"))
    prompt = [{"role": "system", "content": "Be brief."}, USER]
    chunks = await collect(model, prompt=prompt, settings={"temperature": 0.2})
    assert [c.type for c in chunks] == [
        "response-metadata",
        "text-start",
        "text-delta",
        "text-delta",
        "text-end",
        "finish",
    ]
    assert chunks[0].payload == {"id": "msg_1", "modelId": "claude-test-1"}
    assert "".join(p["text"] for p in of_type(chunks, "text-delta")) == "Hello"
    finish = chunks[-1].payload
    assert finish["stepResult"]["reason"] == "stop"
    assert finish["output"]["usage"] == {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}
    sent = server.requests[0]
    assert (sent.method, sent.path) == ("POST", "/v1/messages")
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.headers["anthropic-version"]
    assert sent.body["system"] == [{"type": "text", "text": "Be brief."}]
    assert sent.body["stream"] is True
    assert sent.body["max_tokens"] == 4096
    assert sent.body["temperature"] == 0.2


@pytest.mark.asyncio
async def test_tool_call_split_across_deltas(server: ScriptedServer, model: AnthropicModel) -> None:
    server.script(tool_reply("weather", ['{"ci', 'ty": "Pa', 'ris"}']))
    chunks = await collect(model, tools=[WEATHER], tool_choice={"type": "required"})
    deltas = of_type(chunks, "tool-call-delta")
    assert [d["argsTextDelta"] for d in deltas] == ['{"ci', 'ty": "Pa', 'ris"}']
    assert of_type(chunks, "tool-call-input-streaming-start") == [
        {"toolCallId": "toolu_1", "toolName": "weather"}
    ]
    assert of_type(chunks, "tool-call") == [
        {"toolCallId": "toolu_1", "toolName": "weather", "args": {"city": "Paris"}}
    ]
    assert chunks[-1].payload["stepResult"]["reason"] == "tool-calls"
    body = server.requests[0].body
    assert body["tools"] == [
        {
            "name": "weather",
            "description": "Weather for a city.",
            "input_schema": WEATHER["inputSchema"],
        }
    ]
    assert body["tool_choice"] == {"type": "any"}


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ({"type": "auto"}, {"type": "auto"}),
        ({"type": "tool", "toolName": "weather"}, {"type": "tool", "name": "weather"}),
    ],
)
async def test_tool_choice(
    server: ScriptedServer, model: AnthropicModel, choice: dict[str, Any], expected: Any
) -> None:
    server.script(text_reply("ok"))
    await collect(model, tools=[WEATHER], tool_choice=choice)
    assert server.requests[0].body["tool_choice"] == expected


@pytest.mark.asyncio
async def test_tool_choice_none_sends_no_tools(
    server: ScriptedServer, model: AnthropicModel
) -> None:
    server.script(text_reply("ok"))
    await collect(model, tools=[WEATHER], tool_choice={"type": "none"})
    assert "tools" not in server.requests[0].body


@pytest.mark.asyncio
async def test_thinking_budget_and_cache_control(
    server: ScriptedServer, model: AnthropicModel
) -> None:
    server.script(text_reply("ok"))
    options = {
        "anthropic": {
            "thinking": {"type": "enabled", "budgetTokens": 2048},
            "cacheControl": True,
            "metadata": {"user_id": "u1"},
        }
    }
    prompt = [{"role": "system", "content": "Sys"}, USER]
    settings = {"max_output_tokens": 1000, "temperature": 0.5}
    await collect(
        model, prompt=prompt, tools=[WEATHER], provider_options=options, settings=settings
    )
    body = server.requests[0].body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == 3048
    assert "temperature" not in body  # not allowed with thinking
    ephemeral = {"type": "ephemeral"}
    assert body["system"][-1]["cache_control"] == ephemeral
    assert body["tools"][-1]["cache_control"] == ephemeral
    assert body["messages"][-1]["content"][-1]["cache_control"] == ephemeral
    assert body["metadata"] == {"user_id": "u1"}  # passed through


@pytest.mark.asyncio
async def test_message_level_cache_control(server: ScriptedServer, model: AnthropicModel) -> None:
    server.script(text_reply("ok"))
    cached = {"anthropic": {"cacheControl": {"type": "ephemeral", "ttl": "1h"}}}
    prompt = [
        {"role": "system", "content": "Long context", "providerOptions": cached},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "a", "providerOptions": cached},
                {"type": "text", "text": "b"},
            ],
        },
    ]
    await collect(model, prompt=prompt)
    body = server.requests[0].body
    assert body["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert body["messages"][0]["content"][0]["cache_control"]["ttl"] == "1h"
    assert "cache_control" not in body["messages"][0]["content"][1]


@pytest.mark.asyncio
async def test_prompt_history_maps_and_merges(
    server: ScriptedServer, model: AnthropicModel
) -> None:
    server.script(text_reply("ok"))
    signed = {"anthropic": {"signature": "sig"}}
    prompt = [
        {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
        {"role": "user", "content": [{"type": "file", "data": "aGk=", "mediaType": "image/png"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "think", "providerOptions": signed},
                {"type": "text", "text": "Checking."},
                {"type": "tool-call", "toolCallId": "t1", "toolName": "weather", "input": {}},
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "t1",
                    "toolName": "weather",
                    "output": {"type": "json", "value": {"temp": 20}},
                }
            ],
        },
        {"role": "user", "content": [{"type": "text", "text": "Thanks"}]},
    ]
    await collect(model, prompt=prompt)
    messages = server.requests[0].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[0]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "aGk="},
    }
    assert messages[1]["content"] == [
        {"type": "thinking", "thinking": "think", "signature": "sig"},
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "t1", "name": "weather", "input": {}},
    ]
    assert messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": '{"temp": 20}'},
        {"type": "text", "text": "Thanks"},
    ]


@pytest.mark.asyncio
async def test_thinking_stream(server: ScriptedServer, model: AnthropicModel) -> None:
    events = [
        message_start(),
        block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        block_delta(0, {"type": "thinking_delta", "thinking": "Let me "}),
        block_delta(0, {"type": "thinking_delta", "thinking": "think."}),
        block_delta(0, {"type": "signature_delta", "signature": "sig-1"}),
        block_stop(0),
        block_start(1, {"type": "redacted_thinking", "data": "opaque"}),
        block_stop(1),
        block_start(2, {"type": "text", "text": ""}),
        block_delta(2, {"type": "text_delta", "text": "Done"}),
        block_stop(2),
        message_delta("end_turn"),
        message_stop(),
    ]
    server.script(stream_reply(events))
    chunks = await collect(model)
    texts = [p["text"] for p in of_type(chunks, "reasoning-delta")]
    assert texts == ["Let me ", "think.", ""]
    ends = of_type(chunks, "reasoning-end")
    assert ends[0] == {"id": "0", "providerMetadata": {"anthropic": {"signature": "sig-1"}}}
    starts = of_type(chunks, "reasoning-start")
    assert starts[1]["providerMetadata"] == {"anthropic": {"redactedData": "opaque"}}
    assert of_type(chunks, "text-delta") == [{"id": "2", "text": "Done"}]


@pytest.mark.asyncio
async def test_usage_with_cache_and_thinking_tokens(
    server: ScriptedServer, model: AnthropicModel
) -> None:
    start = message_start(
        input_tokens=7, cache_read_input_tokens=100, cache_creation_input_tokens=3
    )
    delta = message_delta("max_tokens", output_tokens=40)
    delta.data["usage"]["output_tokens_details"] = {"thinking_tokens": 30}
    server.script(stream_reply([start, delta, message_stop()]))
    chunks = await collect(model)
    finish = chunks[-1].payload
    assert finish["stepResult"]["reason"] == "length"
    assert finish["output"]["usage"] == {
        "inputTokens": 110,
        "outputTokens": 40,
        "totalTokens": 150,
        "reasoningTokens": 30,
        "cachedInputTokens": 100,
    }
    assert finish["providerMetadata"]["anthropic"]["cacheCreationInputTokens"] == 3


@pytest.mark.asyncio
async def test_error_mid_stream(server: ScriptedServer, model: AnthropicModel) -> None:
    events = [message_start(), block_start(0, {"type": "text", "text": ""})]
    events += [block_delta(0, {"type": "text_delta", "text": "par"})]
    events += [error_event("overloaded_error", "Overloaded")]
    server.script(stream_reply(events))
    result = await model.do_stream(ModelCallOptions(prompt=[USER]))
    seen: list[Chunk] = []

    async def drain() -> None:
        async for chunk in result.stream:
            seen.append(chunk)

    with pytest.raises(APICallError) as caught:
        await drain()
    assert [c.type for c in seen] == ["response-metadata", "text-start", "text-delta"]
    error = caught.value
    assert error.status_code == 529
    assert error.is_retryable
    assert error.message == "Overloaded"
    assert error.response_body is not None
    assert "overloaded_error" in error.response_body


@pytest.mark.asyncio
async def test_rate_limited_with_retry_after(server: ScriptedServer, model: AnthropicModel) -> None:
    body = {"type": "error", "error": {"type": "rate_limit_error", "message": "Slow down"}}
    server.script(Reply(429, body=body, headers={"retry-after": "7"}))
    with pytest.raises(APICallError) as caught:
        await model.do_stream(ModelCallOptions(prompt=[USER]))
    error = caught.value
    assert error.status_code == 429
    assert error.is_retryable
    assert error.retry_after == 7.0
    assert len(server.requests) == 1  # the SDK itself does not retry


@pytest.mark.asyncio
async def test_bad_request_carries_status_and_body(
    server: ScriptedServer, model: AnthropicModel
) -> None:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": "bad field"}}
    server.script(Reply(400, body=body))
    with pytest.raises(APICallError) as caught:
        await model.do_stream(ModelCallOptions(prompt=[USER]))
    error = caught.value
    assert (error.status_code, error.is_retryable, error.message) == (400, False, "bad field")
    assert error.data == body
    assert error.response_body is not None
    assert "invalid_request_error" in error.response_body


@pytest.mark.asyncio
async def test_transport_failure_is_retryable_api_call_error() -> None:
    async with ScriptedServer() as gone:
        url = gone.url
    claude = AnthropicModel("claude-test-1", api_key="k", base_url=url)
    with pytest.raises(APICallError) as caught:
        await claude.do_stream(ModelCallOptions(prompt=[USER]))
    assert caught.value.status_code is None
    assert caught.value.is_retryable
    await claude.aclose()


@pytest.mark.asyncio
async def test_aclose_disconnects_slow_stream(
    server: ScriptedServer, model: AnthropicModel
) -> None:
    server.script(text_reply(*["tick"] * 50, delay=0.05))
    result = await model.do_stream(ModelCallOptions(prompt=[USER]))
    stream = result.stream
    assert isinstance(stream, AsyncIterator)
    async for chunk in stream:
        if chunk.type == "text-delta":
            break
    await stream.aclose()  # type: ignore[attr-defined]
    await asyncio.wait_for(server.disconnected.wait(), timeout=2)


@pytest.mark.asyncio
async def test_abort_signal_closes_response(server: ScriptedServer, model: AnthropicModel) -> None:
    server.script(text_reply(*["tick"] * 50, delay=0.05))
    signal = AbortSignal()
    result = await model.do_stream(ModelCallOptions(prompt=[USER], abort_signal=signal))
    seen: list[Chunk] = []

    async def drain() -> None:
        async for chunk in result.stream:
            seen.append(chunk)
            if chunk.type == "text-delta":
                asyncio.get_running_loop().call_later(0.01, signal.abort, "user left")

    with pytest.raises(asyncio.CancelledError):
        await drain()
    assert [c.type for c in seen].count("text-delta") == 1
    await asyncio.wait_for(server.disconnected.wait(), timeout=2)


@pytest.mark.asyncio
async def test_web_search_server_tool(server: ScriptedServer, model: AnthropicModel) -> None:
    results = [{"type": "web_search_result", "url": "http://a.test/", "title": "A"}]
    events = [
        message_start(),
        block_start(
            0, {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}}
        ),
        block_delta(0, {"type": "input_json_delta", "partial_json": '{"query": "news"}'}),
        block_stop(0),
        block_start(
            1, {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": results}
        ),
        block_stop(1),
        message_delta("end_turn"),
        message_stop(),
    ]
    server.script(stream_reply(events))
    search = {
        "type": "provider-defined",
        "id": "anthropic.web_search_20250305",
        "name": "web_search",
        "args": {"max_uses": 2},
    }
    chunks = await collect(model, tools=[search])
    assert of_type(chunks, "tool-call") == [
        {
            "toolCallId": "srv_1",
            "toolName": "web_search",
            "args": {"query": "news"},
            "providerExecuted": True,
        }
    ]
    [result] = of_type(chunks, "tool-result")
    assert result["providerExecuted"] is True
    assert result["toolName"] == "web_search"
    assert result["result"][0]["url"] == "http://a.test/"
    assert server.requests[0].body["tools"] == [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}
    ]


@pytest.mark.asyncio
async def test_passes_model_contract(server: ScriptedServer, model: AnthropicModel) -> None:
    server.script(
        text_reply("Hello", "!"),
        tool_reply("echo", ['{"text"', ': "hi"}']),
        text_reply(*["slow"] * 20, delay=0.05),
    )
    report = await check_model(model)
    assert report.text("text") == "Hello!"
    assert server.requests[1].body["tool_choice"] == {"type": "tool", "name": "echo"}
    await asyncio.wait_for(server.disconnected.wait(), timeout=2)


def test_router_reads_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    model = resolve_model("anthropic/claude-test-1")
    assert isinstance(model, AnthropicModel)
    assert (model.provider, model.model_id) == ("anthropic", "claude-test-1")
    assert str(model.client.base_url).startswith("http://127.0.0.1:9")


def test_router_names_missing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY"):
        resolve_model("anthropic/claude-test-1")
