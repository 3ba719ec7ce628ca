"""GoogleModel (Gemini REST over httpx2) against a scripted server on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from procession.chunks import Chunk
from procession.errors import APICallError, ConfigurationError
from procession.models import ModelCallOptions, ToolDefinition, resolve_model
from procession.models.google import GoogleModel
from procession.signals import AbortSignal
from procession.testing import check_model
from tests.models.gemini_server import USAGE, response, stream_reply, text_reply, tool_reply
from tests.models.scripted_server import Reply, ScriptedServer, SseEvent

pytest.importorskip("httpx2")

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
async def model(server: ScriptedServer) -> AsyncIterator[GoogleModel]:
    gemini = GoogleModel("gemini-test-1", api_key="g-key", base_url=f"{server.url}/v1beta")
    yield gemini
    await gemini.aclose()


async def collect(model: GoogleModel, **options: Any) -> list[Chunk]:
    options.setdefault("prompt", [USER])
    result = await model.do_stream(ModelCallOptions(**options))
    return [chunk async for chunk in result.stream]


def of_type(chunks: list[Chunk], kind: str) -> list[dict[str, Any]]:
    return [c.payload for c in chunks if c.type == kind]


@pytest.mark.asyncio
async def test_text_stream_and_request(server: ScriptedServer, model: GoogleModel) -> None:
    server.script(text_reply("Hel", "lo"))
    prompt = [{"role": "system", "content": "Be brief."}, USER]
    chunks = await collect(model, prompt=prompt, settings={"max_output_tokens": 50})
    assert [c.type for c in chunks] == [
        "response-metadata",
        "text-start",
        "text-delta",
        "text-delta",
        "text-end",
        "finish",
    ]
    assert chunks[0].payload == {"id": "resp_1", "modelId": "gemini-test-1"}
    finish = chunks[-1].payload
    assert finish["stepResult"]["reason"] == "stop"
    assert finish["output"]["usage"] == {"inputTokens": 8, "outputTokens": 4, "totalTokens": 12}
    sent = server.requests[0]
    assert sent.path == "/v1beta/models/gemini-test-1:streamGenerateContent"
    assert sent.query == {"alt": ["sse"]}
    assert sent.headers["x-goog-api-key"] == "g-key"
    assert sent.body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert sent.body["generationConfig"] == {"maxOutputTokens": 50}


@pytest.mark.asyncio
async def test_function_call_and_tool_config(server: ScriptedServer, model: GoogleModel) -> None:
    server.script(tool_reply("weather", {"city": "Paris"}))
    chunks = await collect(model, tools=[WEATHER], tool_choice={"type": "required"})
    [call] = of_type(chunks, "tool-call")
    assert call["toolName"] == "weather"
    assert call["args"] == {"city": "Paris"}
    assert call["toolCallId"].startswith("call_")
    assert chunks[-1].payload["stepResult"]["reason"] == "tool-calls"
    body = server.requests[0].body
    assert (
        body["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"]
        == (WEATHER["inputSchema"])
    )
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}


@pytest.mark.asyncio
async def test_history_maps_roles_and_tool_results(
    server: ScriptedServer, model: GoogleModel
) -> None:
    server.script(text_reply("ok"))
    prompt = [
        USER,
        {
            "role": "assistant",
            "content": [
                {"type": "tool-call", "toolCallId": "c1", "toolName": "weather", "input": {}}
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "toolName": "weather",
                    "output": {"type": "json", "value": {"temp": 20}},
                }
            ],
        },
    ]
    await collect(model, prompt=prompt)
    contents = server.requests[0].body["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    # gemini-test-1 counts as Gemini 3 (unknown ids do), so the unsigned call gets the placeholder
    assert contents[1]["parts"] == [
        {
            "functionCall": {"name": "weather", "id": "c1", "args": {}},
            "thoughtSignature": "skip_thought_signature_validator",
        }
    ]
    assert contents[2]["parts"] == [
        {"functionResponse": {"name": "weather", "id": "c1", "response": {"temp": 20}}}
    ]


@pytest.mark.asyncio
async def test_thought_parts_become_reasoning(server: ScriptedServer, model: GoogleModel) -> None:
    usage = {**USAGE, "thoughtsTokenCount": 6, "totalTokenCount": 18}
    events = [
        response([{"text": "Pondering", "thought": True}]),
        response([{"text": "Answer"}], finish="MAX_TOKENS", usage=usage),
    ]
    server.script(stream_reply(events))
    chunks = await collect(model)
    types = [c.type for c in chunks]
    assert types[1:4] == ["reasoning-start", "reasoning-delta", "reasoning-end"]
    assert of_type(chunks, "text-delta")[0]["text"] == "Answer"
    finish = chunks[-1].payload
    assert finish["stepResult"]["reason"] == "length"
    assert finish["output"]["usage"]["reasoningTokens"] == 6
    assert finish["output"]["usage"]["outputTokens"] == 10


@pytest.mark.asyncio
async def test_error_mid_stream(server: ScriptedServer, model: GoogleModel) -> None:
    error = {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}
    server.script(stream_reply([response([{"text": "par"}]), SseEvent(error)]))
    result = await model.do_stream(ModelCallOptions(prompt=[USER]))

    async def drain() -> None:
        async for _ in result.stream:
            pass

    with pytest.raises(APICallError) as caught:
        await drain()
    assert caught.value.status_code == 503
    assert caught.value.is_retryable


@pytest.mark.asyncio
async def test_rate_limited_with_retry_after(server: ScriptedServer, model: GoogleModel) -> None:
    body = {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}}
    server.script(Reply(429, body=body, headers={"retry-after": "3"}))
    with pytest.raises(APICallError) as caught:
        await model.do_stream(ModelCallOptions(prompt=[USER]))
    assert (caught.value.status_code, caught.value.retry_after) == (429, 3.0)
    assert caught.value.is_retryable


@pytest.mark.asyncio
async def test_bad_request_carries_status_and_body(
    server: ScriptedServer, model: GoogleModel
) -> None:
    body = {"error": {"code": 400, "message": "bad schema", "status": "INVALID_ARGUMENT"}}
    server.script(Reply(400, body=body))
    with pytest.raises(APICallError) as caught:
        await model.do_stream(ModelCallOptions(prompt=[USER]))
    error = caught.value
    assert (error.status_code, error.is_retryable, error.message) == (400, False, "bad schema")
    assert error.data == body


@pytest.mark.asyncio
async def test_aclose_disconnects_slow_stream(server: ScriptedServer, model: GoogleModel) -> None:
    server.script(text_reply(*["tick"] * 50, delay=0.05))
    result = await model.do_stream(ModelCallOptions(prompt=[USER]))
    stream = result.stream
    async for chunk in stream:
        if chunk.type == "text-delta":
            break
    await stream.aclose()  # type: ignore[attr-defined]
    await asyncio.wait_for(server.disconnected.wait(), timeout=2)


@pytest.mark.asyncio
async def test_abort_signal_closes_response(server: ScriptedServer, model: GoogleModel) -> None:
    server.script(text_reply(*["tick"] * 50, delay=0.05))
    signal = AbortSignal()
    result = await model.do_stream(ModelCallOptions(prompt=[USER], abort_signal=signal))

    async def drain() -> None:
        async for chunk in result.stream:
            if chunk.type == "text-delta":
                asyncio.get_running_loop().call_later(0.01, signal.abort, "stop")

    with pytest.raises(asyncio.CancelledError):
        await drain()
    await asyncio.wait_for(server.disconnected.wait(), timeout=2)


@pytest.mark.asyncio
async def test_passes_model_contract(server: ScriptedServer, model: GoogleModel) -> None:
    server.script(
        text_reply("Hello", "!"),
        tool_reply("echo", {"text": "hi"}),
        text_reply(*["slow"] * 20, delay=0.05),
    )
    report = await check_model(model)
    assert report.text("text") == "Hello!"
    calling = server.requests[1].body["toolConfig"]["functionCallingConfig"]
    assert calling == {"mode": "ANY", "allowedFunctionNames": ["echo"]}
    await asyncio.wait_for(server.disconnected.wait(), timeout=2)


def test_router_reads_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "g-env")
    monkeypatch.setenv("GOOGLE_BASE_URL", "http://127.0.0.1:9/v1beta")
    model = resolve_model("google/gemini-test-1")
    assert isinstance(model, GoogleModel)
    assert (model.provider, model.model_id) == ("google", "gemini-test-1")
    assert model.base_url == "http://127.0.0.1:9/v1beta"


def test_router_names_missing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="GOOGLE_API_KEY"):
        resolve_model("google/gemini-test-1")


@pytest.mark.asyncio
async def test_model_armor_is_a_content_filter_and_tool_prompts_count_as_input(
    server: ScriptedServer, model: GoogleModel
) -> None:
    # Vertex's Model Armor blocks with finishReason MODEL_ARMOR; built-in tools' results
    # (search, code execution) are billed as toolUsePromptTokenCount.
    usage = {
        "promptTokenCount": 8,
        "toolUsePromptTokenCount": 120,
        "candidatesTokenCount": 4,
        "totalTokenCount": 132,
    }
    server.script(stream_reply([response([{"text": "Hi"}], finish="MODEL_ARMOR", usage=usage)]))
    finish = (await collect(model))[-1].payload
    assert finish["stepResult"]["reason"] == "content-filter"
    assert finish["output"]["usage"] == {"inputTokens": 128, "outputTokens": 4, "totalTokens": 132}
