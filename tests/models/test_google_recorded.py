"""Recorded Gemini streams (``fixtures/google/``) through GoogleModel on a loopback server.

Covers the issue's findings: thought signatures kept and sent back, a blocked prompt ending as
``content-filter``, errors sent as bare JSON raising :class:`APICallError`, and the
``RetryInfo.retryDelay`` of a 429 honoured by the retry layer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from procession import Agent, tool
from procession.chunks import Chunk
from procession.errors import APICallError
from procession.messages.formats import to_prompt
from procession.messages.message import Message, MessageContent
from procession.messages.parts import Part, TextPart, ToolInvocation, ToolInvocationPart
from procession.models import ModelCallOptions
from procession.models.google import GoogleModel
from procession.models.retry import stream_with_retries
from tests.models.gemini_server import text_reply
from tests.models.scripted_server import ScriptedServer
from tests.models.wire_fixtures import fixture_reply

pytest.importorskip("httpx2")

USER = {"role": "user", "content": [{"type": "text", "text": "Weather in Lisbon?"}]}
SIGNATURE = (
    "CpwBAY89a1+qs2Vn7QdH3kR1c0FmY2xhc3NpYy1zaWduYXR1cmUt"
    "Zm9yLXdlYXRoZXItY2FsbC1vbmUtdHdvLXRocmVlLWZvdXI="
)


@pytest_asyncio.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    async with ScriptedServer() as scripted:
        yield scripted


def gemini(server: ScriptedServer, model_id: str = "gemini-3-pro-preview") -> GoogleModel:
    return GoogleModel(model_id, api_key="g-key", base_url=f"{server.url}/v1beta")


async def replay(server: ScriptedServer, name: str, **options: Any) -> list[Chunk]:
    server.script(fixture_reply(f"google/{name}"))
    model = gemini(server)
    options.setdefault("prompt", [USER])
    result = await model.do_stream(ModelCallOptions(**options))
    chunks = [chunk async for chunk in result.stream]
    await model.aclose()
    return chunks


def of_type(chunks: list[Chunk], kind: str) -> list[dict[str, Any]]:
    return [c.payload for c in chunks if c.type == kind]


async def drain(model: GoogleModel, options: ModelCallOptions) -> list[Chunk]:
    result = await model.do_stream(options)
    return [chunk async for chunk in result.stream]


@pytest.mark.asyncio
async def test_thought_signature_is_kept_on_the_tool_call(server: ScriptedServer) -> None:
    chunks = await replay(server, "tool-call-gemini3.sse")
    [call] = of_type(chunks, "tool-call")
    assert call["toolName"] == "weather"
    assert call["args"] == {"location": "Lisbon"}
    assert call["providerMetadata"] == {"google": {"thoughtSignature": SIGNATURE}}
    for kind in ("tool-call-input-streaming-start", "tool-call-input-streaming-end"):
        assert of_type(chunks, kind)[0]["providerMetadata"] == call["providerMetadata"]
    finish = chunks[-1].payload
    assert finish["stepResult"] == {"reason": "tool-calls", "rawReason": "STOP"}
    assert finish["output"]["usage"]["reasoningTokens"] == 467


@pytest.mark.asyncio
async def test_signature_on_a_trailing_empty_text_part(server: ScriptedServer) -> None:
    chunks = await replay(server, "text-gemini3-signature.sse")
    text = "".join(p["text"] for p in of_type(chunks, "text-delta"))
    assert text == "It is **18 °C** and sunny in Lisbon right now."
    signed = [p for p in of_type(chunks, "text-delta") if "providerMetadata" in p]
    assert [p["text"] for p in signed] == [""]
    [end] = of_type(chunks, "text-end")
    assert end["providerMetadata"]["google"]["thoughtSignature"].startswith("EpYCCo8C")


@pytest.mark.asyncio
async def test_signatures_are_sent_back_on_their_parts(server: ScriptedServer) -> None:
    server.script(text_reply("ok"))
    signed = {"google": {"thoughtSignature": "sig-call"}}
    prompt = [
        USER,
        {
            "role": "assistant",
            "content": [
                {
                    "type": "reasoning",
                    "text": "Think.",
                    "providerOptions": {"google": {"thoughtSignature": "sig-r"}},
                },
                {
                    "type": "text",
                    "text": "Checking.",
                    "providerMetadata": {"google": {"thoughtSignature": "sig-t"}},
                },
                {
                    "type": "tool-call",
                    "toolCallId": "c1",
                    "toolName": "weather",
                    "input": {},
                    "providerOptions": signed,
                },
                {"type": "tool-call", "toolCallId": "c2", "toolName": "time", "input": {}},
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": c,
                    "toolName": n,
                    "output": {"type": "json", "value": {}},
                }
                for c, n in (("c1", "weather"), ("c2", "time"))
            ],
        },
    ]
    model = gemini(server)
    result = await model.do_stream(ModelCallOptions(prompt=prompt))
    [_ async for _ in result.stream]
    await model.aclose()
    parts = server.requests[0].body["contents"][1]["parts"]
    assert [p.get("thoughtSignature") for p in parts] == ["sig-r", "sig-t", "sig-call", None]
    assert result.warnings == []  # the second call of a signed batch needs no signature


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("model_id", "placeholder"),
    [("gemini-3-pro-preview", True), ("gemini-flash-latest", True), ("gemini-2.5-flash", False)],
)
async def test_unsigned_replayed_call_gets_googles_placeholder_on_gemini_3(
    server: ScriptedServer, model_id: str, placeholder: bool
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
                    "output": {"type": "json", "value": 1},
                }
            ],
        },
    ]
    model = gemini(server, model_id)
    result = await model.do_stream(ModelCallOptions(prompt=prompt))
    [_ async for _ in result.stream]
    await model.aclose()
    [call] = server.requests[0].body["contents"][1]["parts"]
    if placeholder:
        assert call["thoughtSignature"] == "skip_thought_signature_validator"
        [warning] = result.warnings
        assert "weather" in warning["message"]
    else:
        assert "thoughtSignature" not in call
        assert result.warnings == []


def test_stored_parts_give_their_metadata_back_as_provider_options() -> None:
    invocation = ToolInvocation(
        state="result", tool_call_id="c1", tool_name="weather", args={}, result={"t": 20}
    )
    parts: list[Part] = [
        TextPart(text="Checking.", provider_metadata={"google": {"thoughtSignature": "s1"}}),
        ToolInvocationPart(
            tool_invocation=invocation, provider_metadata={"google": {"thoughtSignature": "s2"}}
        ),
    ]
    message = Message(id="m1", role="assistant", content=MessageContent(parts=parts))
    [assistant, _results] = to_prompt([], [message])
    text, call = assistant["content"]
    assert text["providerOptions"] == {"google": {"thoughtSignature": "s1"}}
    assert call["providerOptions"] == {"google": {"thoughtSignature": "s2"}}


@pytest.mark.asyncio
async def test_agent_sends_the_signature_back_on_the_next_step(server: ScriptedServer) -> None:
    @tool
    def weather(location: str) -> dict[str, Any]:
        """Weather for a place."""
        return {"location": location, "celsius": 18}

    model = gemini(server)
    agent = Agent(id="w", instructions="Answer.", model=model, tools=[weather])
    server.script(fixture_reply("google/tool-call-gemini3.sse"), text_reply("18 degrees."))
    result = await agent.generate("Weather in Lisbon?")
    await model.aclose()
    assert result.text == "18 degrees."
    call = server.requests[1].body["contents"][1]["parts"][0]
    assert call["functionCall"]["name"] == "weather"
    assert call["thoughtSignature"] == SIGNATURE  # the real one, not the placeholder


@pytest.mark.asyncio
async def test_blocked_prompt_ends_as_content_filter(server: ScriptedServer) -> None:
    chunks = await replay(server, "prompt-blocked.sse")
    assert [c.type for c in chunks] == ["response-metadata", "finish"]
    finish = chunks[-1].payload
    assert finish["stepResult"] == {"reason": "content-filter", "rawReason": "PROHIBITED_CONTENT"}
    feedback = finish["providerMetadata"]["google"]["promptFeedback"]
    assert feedback["blockReason"] == "PROHIBITED_CONTENT"
    assert feedback["blockReasonMessage"].startswith("The prompt was blocked")
    assert finish["output"]["usage"]["inputTokens"] == 12


@pytest.mark.asyncio
async def test_blocked_prompt_through_an_agent(server: ScriptedServer) -> None:
    model = gemini(server)
    agent = Agent(id="b", instructions="Answer.", model=model)
    server.script(fixture_reply("google/prompt-blocked.sse"))
    result = await agent.generate("something prohibited")
    await model.aclose()
    assert result.finish_reason == "content-filter"
    assert result.text == ""


@pytest.mark.asyncio
async def test_error_as_bare_json_lines_raises(server: ScriptedServer) -> None:
    server.script(fixture_reply("google/error-bare-json.txt"))
    model = gemini(server)
    seen: list[Chunk] = []
    result = await model.do_stream(ModelCallOptions(prompt=[USER]))

    async def read() -> None:
        async for chunk in result.stream:
            seen.append(chunk)

    with pytest.raises(APICallError) as caught:
        await read()
    await model.aclose()
    assert "".join(p["text"] for p in of_type(seen, "text-delta")) == "Once upon a time"
    error = caught.value
    assert (error.status_code, error.is_retryable) == (500, True)
    assert error.message.startswith("An internal error has occurred")
    assert error.data == {"error": {"code": 500, "message": error.message, "status": "INTERNAL"}}


@pytest.mark.asyncio
async def test_pretty_printed_error_after_sse_events_raises(server: ScriptedServer) -> None:
    server.script(fixture_reply("google/error-after-sse.txt"))
    model = gemini(server)
    with pytest.raises(APICallError) as caught:
        await drain(model, ModelCallOptions(prompt=[USER]))
    await model.aclose()
    assert (caught.value.status_code, caught.value.message) == (
        503,
        "The model is overloaded. Please try again later.",
    )


@pytest.mark.asyncio
async def test_text_that_never_becomes_json_raises(server: ScriptedServer) -> None:
    reply = fixture_reply("google/error-bare-json.txt")
    reply.raw = [reply.raw[0].replace(b'{"error":{"code":500', b'{"error": bad_json')]
    server.script(reply)
    model = gemini(server)
    with pytest.raises(APICallError, match="not valid JSON"):
        await drain(model, ModelCallOptions(prompt=[USER]))
    await model.aclose()


@pytest.mark.asyncio
async def test_quota_error_retry_delay_is_honoured(server: ScriptedServer) -> None:
    server.script(fixture_reply("google/429-retry-info.json", status=429), text_reply("ok"))
    model = gemini(server)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    result = await stream_with_retries(model, ModelCallOptions(prompt=[USER]), sleep=sleep)
    chunks = [chunk async for chunk in result.stream]
    await model.aclose()
    assert slept == [21.7]  # RetryInfo.retryDelay, not the exponential back-off
    assert "".join(p["text"] for p in of_type(chunks, "text-delta")) == "ok"
    assert len(server.requests) == 2


@pytest.mark.asyncio
async def test_retry_delay_in_the_body_wins_over_the_header(server: ScriptedServer) -> None:
    server.script(
        fixture_reply("google/429-retry-info.json", status=429, headers={"retry-after": "3"})
    )
    model = gemini(server)
    with pytest.raises(APICallError) as caught:
        await model.do_stream(ModelCallOptions(prompt=[USER]))
    await model.aclose()
    assert caught.value.retry_after == 21.7


@pytest.mark.asyncio
async def test_streamed_function_call_arguments(server: ScriptedServer) -> None:
    chunks = await replay(server, "stream-function-call-arguments.sse")
    calls = of_type(chunks, "tool-call")
    assert [(c["toolName"], c["args"]) for c in calls] == [
        (
            "plan_trip",
            {
                "trip": {
                    "city": "Lisbon",
                    "nights": 3,
                    "stops": ["Belém", "Sintra"],
                    "by_train": True,
                }
            },
        ),
        ("read_theme", {}),
    ]
    assert calls[0]["providerMetadata"]["google"]["thoughtSignature"].startswith("CiMB")
    assert "providerMetadata" not in calls[1]
    starts = of_type(chunks, "tool-call-input-streaming-start")
    assert [s["toolCallId"] for s in starts] == [c["toolCallId"] for c in calls]
    assert len(of_type(chunks, "tool-call-input-streaming-end")) == 2
    assert chunks[-1].payload["stepResult"]["reason"] == "tool-calls"


@pytest.mark.asyncio
async def test_stream_cut_inside_streamed_arguments_drops_the_call(server: ScriptedServer) -> None:
    reply = fixture_reply("google/stream-function-call-arguments.sse")
    reply.raw = reply.raw[:4]
    server.script(reply)
    model = gemini(server)
    chunks = await drain(model, ModelCallOptions(prompt=[USER]))
    await model.aclose()
    assert of_type(chunks, "tool-call") == []
    assert len(of_type(chunks, "tool-call-input-streaming-end")) == 1
    finish = chunks[-1].payload
    assert finish["stepResult"] == {"reason": "unknown"}
    [cut] = finish["providerMetadata"]["google"]["truncatedToolCalls"]
    assert cut["args"] == {"trip": {"city": "Lisbon", "nights": 3}}


@pytest.mark.asyncio
async def test_grounding_chunks_become_sources_once(server: ScriptedServer) -> None:
    chunks = await replay(server, "grounding.sse")
    sources = of_type(chunks, "source")
    assert [(s["title"], s["sourceType"]) for s in sources] == [
        ("port.example.org", "url"),
        ("weather.example.net", "url"),
    ]
    assert sources[0]["url"].endswith("AUZIYQEexample1")
    meta = chunks[-1].payload["providerMetadata"]["google"]
    assert meta["groundingMetadata"]["webSearchQueries"] == ["harbour high tide today"]
