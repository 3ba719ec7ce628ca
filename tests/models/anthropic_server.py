"""Anthropic Messages API wire fixtures for :class:`ScriptedServer`.

Builders for the SSE events of ``POST /v1/messages`` with ``stream: true``
(``message_start``, ``content_block_start``/``_delta``/``_stop``, ``message_delta``,
``message_stop``, ``error``, ``ping``) and ready-made replies for common scripts.
"""

from __future__ import annotations

from typing import Any

from tests.models.scripted_server import Reply, SseEvent

__all__ = [
    "block_delta",
    "block_start",
    "block_stop",
    "error_event",
    "message_delta",
    "message_start",
    "message_stop",
    "stream_reply",
    "text_reply",
    "tool_reply",
]

MODEL = "claude-test-1"


def _event(name: str, data: dict[str, Any]) -> SseEvent:
    return SseEvent({"type": name, **data}, event=name)


def message_start(message_id: str = "msg_1", input_tokens: int = 10, **usage: int) -> SseEvent:
    """``message_start`` with a message id and input usage."""
    message: dict[str, Any] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": 1, **usage},
    }
    return _event("message_start", {"message": message})


def block_start(index: int, block: dict[str, Any]) -> SseEvent:
    """``content_block_start`` for a content block."""
    return _event("content_block_start", {"index": index, "content_block": block})


def block_delta(index: int, delta: dict[str, Any]) -> SseEvent:
    """``content_block_delta`` carrying one delta."""
    return _event("content_block_delta", {"index": index, "delta": delta})


def block_stop(index: int) -> SseEvent:
    """``content_block_stop``."""
    return _event("content_block_stop", {"index": index})


def message_delta(stop_reason: str, output_tokens: int = 5) -> SseEvent:
    """``message_delta`` with the stop reason and the output token count."""
    delta = {"stop_reason": stop_reason, "stop_sequence": None}
    return _event("message_delta", {"delta": delta, "usage": {"output_tokens": output_tokens}})


def message_stop() -> SseEvent:
    """``message_stop``."""
    return _event("message_stop", {})


def error_event(kind: str, message: str) -> SseEvent:
    """A mid-stream ``error`` event."""
    return _event("error", {"error": {"type": kind, "message": message}})


def stream_reply(events: list[SseEvent], **kwargs: Any) -> Reply:
    """An SSE reply with Anthropic's request id header."""
    headers = {"request-id": "req_test", **kwargs.pop("headers", {})}
    return Reply(events=events, headers=headers, **kwargs)


def text_reply(*pieces: str, delay: float = 0.0) -> Reply:
    """A streamed text answer split into ``pieces``."""
    events = [message_start(), SseEvent({"type": "ping"}, event="ping")]
    events.append(block_start(0, {"type": "text", "text": ""}))
    events += [block_delta(0, {"type": "text_delta", "text": p}) for p in pieces]
    events += [block_stop(0), message_delta("end_turn"), message_stop()]
    return stream_reply(events, delay=delay)


def tool_reply(name: str, json_pieces: list[str], tool_id: str = "toolu_1") -> Reply:
    """A streamed ``tool_use`` block whose input arrives in ``json_pieces``."""
    events = [message_start()]
    events.append(block_start(0, {"type": "tool_use", "id": tool_id, "name": name, "input": {}}))
    events += [
        block_delta(0, {"type": "input_json_delta", "partial_json": piece}) for piece in json_pieces
    ]
    events += [block_stop(0), message_delta("tool_use"), message_stop()]
    return stream_reply(events)
