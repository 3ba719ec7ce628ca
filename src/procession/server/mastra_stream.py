"""Mastra's chunk stream on the wire (D22): what ``@mastra/client-js`` reads.

``POST /api/agents/{agentId}/stream`` answers ``text/event-stream``: each chunk is
``data: <chunk JSON>\\n\\n`` in Mastra's shape (``{type, runId, from, payload}``, or
``{type, data, id?, transient?}`` for ``data-*``), and the stream ends with
``data: [DONE]\\n\\n`` — the framing of Mastra's own server. As Mastra's server does, the
request sent to the provider is redacted: ``step-start`` carries ``request: {}``, and
``step-finish`` and ``finish`` lose ``metadata.request`` and every ``output.steps[].request``
(they can hold the system prompt and tool definitions).

:func:`encode_chunk` is the per-chunk call: one ``to_dict()`` and one ``orjson`` encode.
"""

from __future__ import annotations

from typing import Any

from procession.chunks import Chunk
from procession.server.encoding import dumps

__all__ = ["DONE", "HEADERS", "encode_chunk", "redact"]

DONE = b"data: [DONE]\n\n"
"""The last event of every stream."""

HEADERS = {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
}
"""Response headers of the stream (no proxy buffering: each chunk goes out at once)."""

_REDACTED = frozenset({"step-start", "step-finish", "finish"})


def encode_chunk(chunk: Chunk) -> bytes:
    """One chunk as one server-sent event."""
    data = chunk.to_dict()
    if chunk.type in _REDACTED:
        data = redact(data)
    return b"data: " + dumps(data) + b"\n\n"


def redact(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of a ``step-start``, ``step-finish`` or ``finish`` chunk without the provider
    request (Mastra's ``redactStreamChunk``)."""
    payload = data.get("payload")
    if not isinstance(payload, dict):
        return data
    if data["type"] == "step-start":
        return {**data, "payload": {**payload, "request": {}}}
    payload = dict(payload)
    metadata = payload.get("metadata")
    if isinstance(metadata, dict) and "request" in metadata:
        payload["metadata"] = {k: v for k, v in metadata.items() if k != "request"}
    output = payload.get("output")
    if isinstance(output, dict) and isinstance(output.get("steps"), list):
        steps = [
            {k: v for k, v in step.items() if k != "request"} if isinstance(step, dict) else step
            for step in output["steps"]
        ]
        payload["output"] = {**output, "steps": steps}
    return {**data, "payload": payload}
