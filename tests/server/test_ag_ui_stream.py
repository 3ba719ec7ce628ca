"""The AG-UI encoder on chunk sequences the route rarely sees: an abort mid-message, a stream
cut short, chunks after the terminal event, deltas without their start."""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import Event
from ag_ui_validate import create_validator
from pydantic import TypeAdapter

from procession.chunks import Chunk
from procession.server.ag_ui_stream import AGUIEncoder

EVENTS: TypeAdapter[Any] = TypeAdapter(Event)


def encoded(*chunks: Chunk, close: bool = True) -> list[dict[str, Any]]:
    """The events of ``chunks`` (and of ``close()``), each parsed by ``ag-ui-protocol`` and
    the whole stream checked by ``ag-ui-validate`` (nothing above info level)."""
    encoder = AGUIEncoder("thread-1", "run-1")
    raw = b"".join(encoder.encode(c) or b"" for c in chunks) + (encoder.close() if close else b"")
    events = [json.loads(block[6:]) for block in raw.decode().split("\n\n") if block]
    validator = create_validator()
    for event in events:
        EVENTS.validate_python(event)
        validator.feed(event)
    validator.finalize()
    report = validator.report()
    assert report.summary.errors == report.summary.warnings == 0, report.diagnostics
    return events


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def test_an_abort_mid_message_closes_what_is_open_and_is_a_cancelled_run() -> None:
    events = encoded(
        Chunk("start", {"messageId": "m"}),
        Chunk("step-start", {}),
        Chunk("text-start", {"id": "t"}),
        Chunk("text-delta", {"id": "t", "text": "Hal"}),
        Chunk("abort", {}),
        Chunk("text-delta", {"id": "t", "text": "f"}),  # nothing follows the terminal event
    )
    assert kinds(events) == [
        "RUN_STARTED",
        "STEP_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
        "RUN_FINISHED",
    ]
    assert events[-1]["outcome"] == {"type": "cancelled"}


def test_a_stream_cut_short_ends_with_run_error() -> None:
    events = encoded(Chunk("start", {}), Chunk("step-start", {}))
    assert kinds(events) == ["RUN_STARTED", "STEP_STARTED", "RUN_ERROR"]
    assert events[-1]["code"] == "incomplete"
    assert kinds(encoded()) == ["RUN_STARTED", "RUN_ERROR"]


def test_a_delta_without_its_start_opens_its_message_and_empty_deltas_are_dropped() -> None:
    events = encoded(
        Chunk("text-delta", {"id": "t", "text": ""}),
        Chunk("text-delta", {"id": "t", "text": "Hi"}),
        Chunk("reasoning-delta", {"id": "r", "text": "hm"}),
        Chunk("finish", {"output": {"usage": {"inputTokens": 3, "outputTokens": -1}}}),
    )
    assert kinds(events) == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "RUN_FINISHED",
    ]
    assert events[-1]["usage"] == [{"inputTokens": 3}]  # a negative count is not reported


def test_an_error_chunk_names_its_error_and_a_denied_call_its_reason() -> None:
    events = encoded(
        Chunk("tool-call", {"toolCallId": "c", "toolName": "refund", "args": {}}),
        Chunk("tool-output-denied", {"toolCallId": "c", "reason": "not today"}),
        Chunk("error", {"error": {"name": "ProviderError", "message": "overloaded"}}),
    )
    assert kinds(events)[-2:] == ["TOOL_CALL_RESULT", "RUN_ERROR"]
    assert events[-2]["content"] == "The tool call was declined: not today"
    assert (events[-1]["code"], events[-1]["message"]) == ("ProviderError", "overloaded")
    assert "TOOL_CALL_ARGS" in kinds(events)  # "{}" is still the arguments' JSON
