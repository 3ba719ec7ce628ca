"""The JSON codec: every part type, extra keys, unknown parts and whole messages."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from procession.errors import MessageError
from procession.messages import (
    DataPart,
    ErrorPart,
    FilePart,
    Message,
    MessageContent,
    Part,
    ReasoningPart,
    SourceDocumentPart,
    SourcePart,
    StepStartPart,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
    UnknownPart,
    message_from_dict,
    message_to_dict,
    messages_from_json,
    messages_to_json,
    part_from_dict,
    part_to_dict,
)
from procession.messages.codec import decode_datetime, encode_datetime

# Each case: the part object and its stored form as Mastra's MastraDBMessage writes it.
PART_CASES: list[tuple[str, Part, dict[str, Any]]] = [
    ("text", TextPart(text="hi"), {"type": "text", "text": "hi"}),
    (
        "text-with-metadata",
        TextPart(text="hi", provider_metadata={"openai": {"id": "x"}}, created_at=17),
        {
            "type": "text",
            "text": "hi",
            "providerMetadata": {"openai": {"id": "x"}},
            "createdAt": 17,
        },
    ),
    (
        "reasoning",
        ReasoningPart(
            reasoning="think",
            details=[
                {"type": "text", "text": "think", "signature": "s"},
                {"type": "redacted", "data": "d"},
            ],
        ),
        {
            "type": "reasoning",
            "reasoning": "think",
            "details": [
                {"type": "text", "text": "think", "signature": "s"},
                {"type": "redacted", "data": "d"},
            ],
        },
    ),
    (
        "tool-call",
        ToolInvocationPart(
            tool_invocation=ToolInvocation(
                state="call", tool_call_id="c1", tool_name="search", args={"q": "x"}
            )
        ),
        {
            "type": "tool-invocation",
            "toolInvocation": {
                "state": "call",
                "toolCallId": "c1",
                "toolName": "search",
                "args": {"q": "x"},
            },
        },
    ),
    (
        "tool-result-full",
        ToolInvocationPart(
            tool_invocation=ToolInvocation(
                state="result",
                tool_call_id="c1",
                tool_name="search",
                args={},
                result=[1, 2],
                is_error=False,
                raw_input="{}",
                approval={"id": "a1", "approved": True},
                step=2,
            ),
            provider_executed=True,
            title="Search",
            preliminary=False,
        ),
        {
            "type": "tool-invocation",
            "toolInvocation": {
                "state": "result",
                "toolCallId": "c1",
                "toolName": "search",
                "args": {},
                "result": [1, 2],
                "isError": False,
                "rawInput": "{}",
                "approval": {"id": "a1", "approved": True},
                "step": 2,
            },
            "providerExecuted": True,
            "title": "Search",
            "preliminary": False,
        },
    ),
    (
        "tool-error",
        ToolInvocationPart(
            tool_invocation=ToolInvocation(
                state="output-error", tool_call_id="c2", tool_name="t", args=None, error_text="boom"
            )
        ),
        {
            "type": "tool-invocation",
            "toolInvocation": {
                "state": "output-error",
                "toolCallId": "c2",
                "toolName": "t",
                "args": None,
                "errorText": "boom",
            },
        },
    ),
    (
        "source",
        SourcePart(source={"sourceType": "url", "id": "s1", "url": "https://e.x", "title": "E"}),
        {
            "type": "source",
            "source": {"sourceType": "url", "id": "s1", "url": "https://e.x", "title": "E"},
        },
    ),
    (
        "source-document",
        SourceDocumentPart(
            source_id="d1", media_type="application/pdf", title="T", filename="t.pdf"
        ),
        {
            "type": "source-document",
            "sourceId": "d1",
            "mediaType": "application/pdf",
            "title": "T",
            "filename": "t.pdf",
        },
    ),
    (
        "file",
        FilePart(mime_type="image/png", data="aGk="),
        {"type": "file", "mimeType": "image/png", "data": "aGk="},
    ),
    ("step-start", StepStartPart(), {"type": "step-start"}),
    (
        "step-start-model",
        StepStartPart(model="openai/gpt-4o"),
        {"type": "step-start", "model": "openai/gpt-4o"},
    ),
    (
        "error",
        ErrorPart(error={"name": "APICallError", "message": "nope"}),
        {"type": "error", "error": {"name": "APICallError", "message": "nope"}},
    ),
    (
        "data",
        DataPart(type="data-progress", data={"pct": 50}, id="p1"),
        {"type": "data-progress", "data": {"pct": 50}, "id": "p1"},
    ),
]


@pytest.mark.parametrize(
    ("part", "stored"), [c[1:] for c in PART_CASES], ids=[c[0] for c in PART_CASES]
)
def test_part_encodes_to_mastra_camel_case_form(part: Part, stored: dict[str, Any]) -> None:
    assert part_to_dict(part) == stored


@pytest.mark.parametrize(
    ("part", "stored"), [c[1:] for c in PART_CASES], ids=[c[0] for c in PART_CASES]
)
def test_part_decodes_from_mastra_form(part: Part, stored: dict[str, Any]) -> None:
    assert part_from_dict(stored) == part


def test_data_part_keeps_its_own_type_name() -> None:
    part = part_from_dict({"type": "data-weather", "data": [1]})
    assert isinstance(part, DataPart)
    assert part.type == "data-weather"


def test_unknown_keys_of_a_part_land_in_extra_and_are_written_back() -> None:
    stored = {"type": "text", "text": "hi", "state": "done", "customFlag": {"a": 1}}
    part = part_from_dict(stored)
    assert isinstance(part, TextPart)
    assert part.extra == {"state": "done", "customFlag": {"a": 1}}
    assert part_to_dict(part) == stored


def test_unknown_keys_of_a_tool_invocation_round_trip() -> None:
    stored = {
        "type": "tool-invocation",
        "toolInvocation": {
            "state": "call",
            "toolCallId": "c",
            "toolName": "t",
            "args": {},
            "providerOptions": {"x": 1},
        },
    }
    part = part_from_dict(stored)
    assert isinstance(part, ToolInvocationPart)
    assert part.tool_invocation.extra == {"providerOptions": {"x": 1}}
    assert part_to_dict(part) == stored


def test_extra_never_overrides_or_invents_a_modelled_field() -> None:
    part = TextPart(text="real", extra={"text": "fake", "createdAt": "not-a-number", "x": 1})
    assert part_to_dict(part) == {"type": "text", "text": "real", "x": 1}


def test_thinking_part_is_kept_as_an_opaque_unknown_part() -> None:
    stored = {"type": "thinking", "thinking": "hmm", "signature": "sig", "nested": {"a": [1]}}
    part = part_from_dict(stored)
    assert isinstance(part, UnknownPart)
    assert part.type == "thinking"
    assert part.raw == stored
    assert part_to_dict(part) == stored


def test_unknown_part_survives_a_message_json_round_trip() -> None:
    stored = {"type": "thinking", "thinking": "hmm"}
    message = Message(
        id="m1", role="assistant", content=MessageContent(parts=[part_from_dict(stored)])
    )
    [decoded] = messages_from_json(messages_to_json([message]))
    assert [part_to_dict(p) for p in decoded.content.parts] == [stored]


def _full_stored_message() -> dict[str, Any]:
    return {
        "id": "m1",
        "role": "assistant",
        "createdAt": "2025-01-02T03:04:05.678Z",
        "threadId": "t1",
        "resourceId": "r1",
        "type": "v2",
        "content": {
            "format": 2,
            "parts": [{"type": "text", "text": "hello"}],
            "content": "hello",
            "toolInvocations": [],
            "reasoning": "why",
            "experimental_attachments": [{"url": "u"}],
            "annotations": [1],
            "metadata": {"k": "v"},
            "providerMetadata": {"p": {"a": 1}},
            "contentExtra": True,
        },
        "messageExtra": [1, 2],
    }


def test_message_decodes_every_mastra_field() -> None:
    message = message_from_dict(_full_stored_message())
    assert message.id == "m1"
    assert message.role == "assistant"
    assert message.created_at == datetime(2025, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
    assert (message.thread_id, message.resource_id, message.type) == ("t1", "r1", "v2")
    content = message.content
    assert content.content == "hello"
    assert content.tool_invocations == []
    assert content.reasoning == "why"
    assert content.experimental_attachments == [{"url": "u"}]
    assert content.annotations == [1]
    assert content.metadata == {"k": "v"}
    assert content.provider_metadata == {"p": {"a": 1}}
    assert content.extra == {"contentExtra": True}
    assert message.extra == {"messageExtra": [1, 2]}


def test_message_round_trips_through_dict_and_json() -> None:
    stored = _full_stored_message()
    assert message_to_dict(message_from_dict(stored)) == stored
    assert json.loads(messages_to_json(messages_from_json(json.dumps([stored])))) == [stored]


def test_missing_id_and_created_at_are_filled_in() -> None:
    before = datetime.now(UTC)
    message = message_from_dict({"role": "user", "content": {"parts": []}})
    assert message.id
    assert message.created_at >= before
    other = message_from_dict({"role": "user", "content": {"parts": []}})
    assert other.id != message.id


def test_encode_datetime_writes_javascript_milliseconds_in_utc() -> None:
    value = datetime(2025, 1, 2, 5, 4, 5, 678000, tzinfo=timezone(timedelta(hours=2)))
    assert encode_datetime(value) == "2025-01-02T03:04:05.678Z"


def test_encode_datetime_keeps_microseconds_when_not_whole_milliseconds() -> None:
    value = datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    assert decode_datetime(encode_datetime(value), "d") == value


def test_decode_datetime_reads_epoch_milliseconds_and_treats_naive_as_utc() -> None:
    assert decode_datetime(1_000, "d") == datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC)
    assert decode_datetime("2025-01-02T03:04:05", "d").tzinfo is UTC


def test_decode_datetime_rejects_garbage_naming_the_path() -> None:
    with pytest.raises(MessageError, match=r"m\.createdAt.*'yesterday'"):
        decode_datetime("yesterday", "m.createdAt")
