"""Gemini API wire fixtures for :class:`ScriptedServer`.

``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` answers with SSE ``data:``
lines, each a ``GenerateContentResponse`` JSON object (camelCase, as on the wire).
"""

from __future__ import annotations

from typing import Any

from tests.models.scripted_server import Reply, SseEvent

__all__ = ["response", "stream_reply", "text_reply", "tool_reply"]

MODEL = "gemini-test-1"


def response(
    parts: list[dict[str, Any]],
    finish: str | None = None,
    usage: dict[str, int] | None = None,
) -> SseEvent:
    """One streamed ``GenerateContentResponse``."""
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    body: dict[str, Any] = {
        "candidates": [candidate],
        "modelVersion": MODEL,
        "responseId": "resp_1",
    }
    if usage is not None:
        body["usageMetadata"] = usage
    return SseEvent(body)


USAGE = {"promptTokenCount": 8, "candidatesTokenCount": 4, "totalTokenCount": 12}


def stream_reply(events: list[SseEvent], **kwargs: Any) -> Reply:
    """An SSE reply."""
    return Reply(events=events, **kwargs)


def text_reply(*pieces: str, delay: float = 0.0) -> Reply:
    """A streamed text answer split into ``pieces``, usage on the last chunk."""
    events = [response([{"text": p}]) for p in pieces[:-1]]
    events.append(response([{"text": pieces[-1]}], finish="STOP", usage=USAGE))
    return stream_reply(events, delay=delay)


def tool_reply(name: str, args: dict[str, Any]) -> Reply:
    """A streamed ``functionCall`` part."""
    call = {"functionCall": {"name": name, "args": args}}
    return stream_reply([response([call], finish="STOP", usage=USAGE)])
