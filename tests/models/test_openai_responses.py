"""OpenAIResponsesModel against the scripted server, through the real ``openai`` SDK."""

from __future__ import annotations

from typing import Any

import pytest
from openai import AsyncOpenAI

from procession.errors import APICallError
from procession.models.base import ModelCallOptions
from procession.models.openai import OpenAIResponsesModel
from procession.testing import check_model
from tests.models.helpers import HELLO, collect, of_type, types
from tests.models.openai_server import (
    OpenAIServer,
    message_events,
    response_object,
    responses_stream,
)

CREATED = {"type": "response.created", "response": response_object("in_progress")}
USAGE = {
    "input_tokens": 30,
    "output_tokens": 12,
    "total_tokens": 42,
    "input_tokens_details": {"cached_tokens": 5},
    "output_tokens_details": {"reasoning_tokens": 7},
}


def _completed(**extra: Any) -> dict[str, Any]:
    return {"type": "response.completed", "response": response_object(usage=USAGE, **extra)}


def _summary(event: str, index: int, **extra: Any) -> dict[str, Any]:
    return {
        "type": f"response.reasoning_summary_{event}",
        "item_id": "rs_1",
        "output_index": 0,
        "summary_index": index,
        **extra,
    }


@pytest.mark.asyncio
async def test_passes_the_model_contract(client: AsyncOpenAI) -> None:
    report = await check_model(OpenAIResponsesModel("gpt-test", client=client))
    assert report.text("text") == "Hello there!"


@pytest.mark.asyncio
async def test_reasoning_summaries_text_and_usage(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
    part = {"type": "summary_text", "text": ""}
    server.reply(
        responses_stream(
            CREATED,
            {"type": "response.output_item.added", "output_index": 0, "item": reasoning},
            _summary("part.added", 0, part=part),
            _summary("text.delta", 0, delta="Check "),
            _summary("text.delta", 0, delta="units."),
            _summary("part.done", 0, part=part),
            _summary("part.added", 1, part=part),
            _summary("text.delta", 1, delta="Then answer."),
            {"type": "response.output_item.done", "output_index": 0, "item": reasoning},
            *message_events("msg_1", "4", "2", output_index=1),
            _completed(),
        )
    )
    chunks = await collect(OpenAIResponsesModel("gpt-test", client=client))
    assert types(chunks) == [
        "response-metadata",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-delta",
        "reasoning-end",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "text-start",
        "text-delta",
        "text-delta",
        "text-end",
        "finish",
    ]
    assert [c.payload["id"] for c in of_type(chunks, "reasoning-start")] == ["rs_1:0", "rs_1:1"]
    assert chunks[0].payload == {
        "id": "resp_test",
        "modelId": "gpt-test",
        "timestamp": "2023-11-14T22:13:20Z",
    }
    finish = chunks[-1].payload
    assert finish["stepResult"]["reason"] == "stop"
    assert finish["output"]["usage"] == {
        "inputTokens": 30,
        "outputTokens": 12,
        "totalTokens": 42,
        "reasoningTokens": 7,
        "cachedInputTokens": 5,
    }
    assert finish["providerMetadata"] == {"openai": {"responseId": "resp_test"}}


@pytest.mark.asyncio
async def test_provider_executed_web_search_and_citations(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    search = {"type": "web_search_call", "id": "ws_1", "status": "in_progress"}
    action = {"type": "search", "query": "procession python"}
    done = {**search, "status": "completed", "action": action}
    citation = {
        "type": "url_citation",
        "url": "http://127.0.0.1/page",
        "title": "A page",
        "start_index": 0,
        "end_index": 5,
    }
    server.reply(
        responses_stream(
            CREATED,
            {"type": "response.output_item.added", "output_index": 0, "item": search},
            {"type": "response.web_search_call.in_progress", "item_id": "ws_1", "output_index": 0},
            {"type": "response.web_search_call.searching", "item_id": "ws_1", "output_index": 0},
            {"type": "response.web_search_call.completed", "item_id": "ws_1", "output_index": 0},
            {"type": "response.output_item.done", "output_index": 0, "item": done},
            *message_events("msg_1", "Found it.", output_index=1)[:2],
            {
                "type": "response.output_text.annotation.added",
                "item_id": "msg_1",
                "output_index": 1,
                "content_index": 0,
                "annotation_index": 0,
                "annotation": citation,
            },
            message_events("msg_1", "Found it.", output_index=1)[2],
            _completed(),
        )
    )
    options = ModelCallOptions(
        prompt=HELLO, provider_options={"openai": {"tools": [{"type": "web_search"}]}}
    )
    model = OpenAIResponsesModel("gpt-test", client=client)
    chunks = await collect(model, options)
    assert server.requests[-1].body["tools"] == [{"type": "web_search"}]
    call, result = of_type(chunks, "tool-call"), of_type(chunks, "tool-result")
    assert [c.payload for c in call] == [
        {
            "toolCallId": "ws_1",
            "toolName": "web_search",
            "providerExecuted": True,
            "args": {},
            # the item, so the next turn can send an item_reference to it
            "providerMetadata": {"openai": {"itemId": "ws_1", "itemType": "web_search_call"}},
        }
    ]
    assert len(result) == 1
    assert result[0].payload["providerExecuted"] is True
    assert result[0].payload["toolName"] == "web_search"
    assert result[0].payload["result"]["action"] == action
    assert result[0].payload["result"]["status"] == "completed"
    assert [c.payload for c in of_type(chunks, "source")] == [
        {"id": "msg_1:0", "sourceType": "url", "url": "http://127.0.0.1/page", "title": "A page"}
    ]
    assert chunks[-1].payload["stepResult"]["reason"] == "stop"
    await check_model(model)  # still within the contract with built-in tools around


@pytest.mark.asyncio
async def test_function_call_arguments_stream(server: OpenAIServer, client: AsyncOpenAI) -> None:
    chunks = await collect(
        OpenAIResponsesModel("gpt-test", client=client),
        ModelCallOptions(
            prompt=HELLO,
            tools=[
                {
                    "type": "function",
                    "name": "echo",
                    "description": "Echo.",
                    "inputSchema": {"type": "object"},
                }
            ],
            tool_choice={"type": "tool", "toolName": "echo"},
        ),
    )
    deltas = "".join(c.payload["argsTextDelta"] for c in of_type(chunks, "tool-call-delta"))
    assert deltas == '{"text": "hi"}'
    assert of_type(chunks, "tool-call")[0].payload == {
        "toolCallId": "call_1",
        "toolName": "echo",
        "args": {"text": "hi"},
        "providerMetadata": {"openai": {"itemId": "fc_1"}},
    }
    assert chunks[-1].payload["stepResult"]["reason"] == "tool-calls"
    body = server.requests[-1].body
    assert body["tool_choice"] == {"type": "function", "name": "echo"}
    assert body["tools"][0]["name"] == "echo"


@pytest.mark.asyncio
async def test_request_body(server: OpenAIServer, client: AsyncOpenAI) -> None:
    prompt: list[dict[str, Any]] = [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look"},
                {"type": "file", "data": "http://127.0.0.1/cat.png", "mediaType": "image/png"},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Calling."},
                {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {"a": 1}},
                {
                    "type": "tool-call",
                    "toolCallId": "ws",
                    "toolName": "web_search",
                    "input": {},
                    "providerExecuted": True,
                },
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "toolName": "f",
                    "output": {"type": "error-text", "value": "boom"},
                }
            ],
        },
    ]
    options = ModelCallOptions(
        prompt=prompt,
        settings={"temperature": 0.5, "max_output_tokens": 99, "seed": 3},
        provider_options={
            "openai": {"reasoningEffort": "high", "reasoningSummary": "auto", "store": False}
        },
        response_format={"type": "json", "schema": {"type": "object"}},
    )
    result = await OpenAIResponsesModel("gpt-test", client=client).do_stream(options)
    _ = [chunk async for chunk in result.stream]
    body = server.requests[-1].body
    assert server.requests[-1].path == "/v1/responses"
    assert body == result.request["body"]
    assert body["input"] == [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Look"},
                {"type": "input_image", "image_url": "http://127.0.0.1/cat.png"},
            ],
        },
        {"role": "assistant", "content": [{"type": "output_text", "text": "Calling."}]},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"a": 1}'},
        {"type": "function_call_output", "call_id": "c1", "output": "boom"},
    ]
    assert body["temperature"] == 0.5
    assert body["max_output_tokens"] == 99
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["store"] is False
    assert body["text"] == {
        "format": {
            "type": "json_schema",
            "name": "response",
            "schema": {"type": "object"},
            "strict": False,
        }
    }
    assert result.warnings == [{"type": "unsupported-setting", "setting": "seed"}]


@pytest.mark.asyncio
async def test_incomplete_response_finishes_with_length(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    incomplete = response_object(
        "incomplete", incomplete_details={"reason": "max_output_tokens"}, usage=USAGE
    )
    server.reply(
        responses_stream(
            CREATED,
            *message_events("msg_1", "Trunc"),
            {"type": "response.incomplete", "response": incomplete},
        )
    )
    chunks = await collect(OpenAIResponsesModel("gpt-test", client=client))
    assert chunks[-1].payload["stepResult"]["reason"] == "length"


@pytest.mark.asyncio
async def test_failed_response_raises_mid_stream(server: OpenAIServer, client: AsyncOpenAI) -> None:
    error = {"code": "server_error", "message": "Something broke"}
    server.reply(
        responses_stream(
            CREATED,
            {"type": "response.failed", "response": response_object("failed", error=error)},
        )
    )
    result = await OpenAIResponsesModel("gpt-test", client=client).do_stream(
        ModelCallOptions(prompt=HELLO)
    )
    first = await result.stream.__anext__()
    assert first.type == "response-metadata"
    with pytest.raises(APICallError) as caught:
        await result.stream.__anext__()
    assert caught.value.message == "Something broke"
    assert caught.value.is_retryable is True


@pytest.mark.asyncio
async def test_error_event_raises(server: OpenAIServer, client: AsyncOpenAI) -> None:
    server.reply(
        responses_stream(
            CREATED,
            {"type": "error", "code": "invalid_prompt", "message": "No.", "param": None},
        )
    )
    with pytest.raises(APICallError) as caught:
        await collect(OpenAIResponsesModel("gpt-test", client=client))
    assert caught.value.message == "No."
    assert caught.value.is_retryable is False


@pytest.mark.asyncio
async def test_stream_cut_short_still_finishes(server: OpenAIServer, client: AsyncOpenAI) -> None:
    server.reply(responses_stream(CREATED, *message_events("msg_1", "Hi")))
    chunks = await collect(OpenAIResponsesModel("gpt-test", client=client))
    assert chunks[-1].type == "finish"
    assert chunks[-1].payload["stepResult"]["reason"] == "unknown"


@pytest.mark.asyncio
async def test_file_citations_become_document_sources(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    # file_search answers cite files: a document source per citation.
    cited = {"type": "file_citation", "file_id": "file-9x", "filename": "handbook.pdf", "index": 3}
    server.reply(
        responses_stream(
            CREATED,
            *message_events("msg_1", "Per the handbook.")[:2],
            {
                "type": "response.output_text.annotation.added",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "annotation_index": 0,
                "annotation": cited,
            },
            message_events("msg_1", "Per the handbook.")[2],
            _completed(),
        )
    )
    chunks = await collect(OpenAIResponsesModel("gpt-test", client=client))
    [source] = [c.payload for c in of_type(chunks, "source")]
    assert source["sourceType"] == "document"
    assert source["title"] == "handbook.pdf"
    assert source["providerMetadata"] == {"openai": {"fileId": "file-9x"}}
