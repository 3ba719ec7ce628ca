"""Anthropic Messages stream events to procession chunks (Mastra payloads).

One :class:`AnthropicStreamMapper` per call: feed it each SDK event with :meth:`map` and it
returns the chunks that event stands for. Content blocks are keyed by their ``index``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from procession.chunks import Chunk, Usage, finish_chunk

__all__ = ["AnthropicStreamMapper", "finish_reason"]

_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool-calls",
    "refusal": "content-filter",
}


def finish_reason(stop_reason: str | None) -> str:
    """Procession's finish reason for an Anthropic ``stop_reason``."""
    if stop_reason is None:
        return "unknown"
    return _FINISH_REASONS.get(stop_reason, "other")


def _dump(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", exclude_none=True) if dump is not None else value


@dataclass(slots=True)
class _Block:
    kind: str
    id: str
    name: str = ""
    json: list[str] = field(default_factory=list)
    signature: str | None = None
    provider_executed: bool = False


@dataclass(slots=True)
class _Tokens:
    input: int | None = None
    output: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    thinking: int | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    def update(self, usage: Any) -> None:
        if usage is None:
            return
        self.raw.update(_dump(usage))
        for attr, key in (
            ("input", "input_tokens"),
            ("output", "output_tokens"),
            ("cache_read", "cache_read_input_tokens"),
            ("cache_write", "cache_creation_input_tokens"),
        ):
            value = getattr(usage, key, None)
            if value is not None:
                setattr(self, attr, value)
        details = getattr(usage, "output_tokens_details", None)
        if details is not None:
            self.thinking = details.thinking_tokens

    def usage(self) -> Usage:
        cached = self.cache_read
        total_in = None
        if self.input is not None:
            total_in = self.input + (cached or 0) + (self.cache_write or 0)
        total = None if total_in is None or self.output is None else total_in + self.output
        return Usage(total_in, self.output, total, self.thinking, cached)


class AnthropicStreamMapper:
    """Turns one call's stream events into chunks."""

    def __init__(self) -> None:
        self.blocks: dict[int, _Block] = {}
        self.server_tools: dict[str, str] = {}
        self.tokens = _Tokens()
        self.stop_reason: str | None = None
        self.stop_sequence: str | None = None
        self.finished = False

    def map(self, event: Any) -> list[Chunk]:
        """The chunks for one SDK stream event."""
        kind = event.type
        if kind == "content_block_delta":
            return self._delta(event.index, event.delta)
        if kind == "content_block_start":
            return self._start(event.index, event.content_block)
        if kind == "content_block_stop":
            return self._stop(event.index)
        if kind == "message_start":
            return self._message_start(event.message)
        if kind == "message_delta":
            self.stop_reason = event.delta.stop_reason
            self.stop_sequence = event.delta.stop_sequence
            self.tokens.update(event.usage)
            return []
        if kind == "message_stop":
            return [self.finish()]
        return []

    def _message_start(self, message: Any) -> list[Chunk]:
        self.tokens.update(message.usage)
        return [Chunk("response-metadata", {"id": message.id, "modelId": message.model})]

    def _start(self, index: int, block: Any) -> list[Chunk]:
        kind = block.type
        key = str(index)
        if kind == "text":
            self.blocks[index] = _Block("text", key)
            return [Chunk("text-start", {"id": key})]
        if kind in ("thinking", "redacted_thinking"):
            self.blocks[index] = _Block("reasoning", key)
            payload: dict[str, Any] = {"id": key}
            if kind == "redacted_thinking":
                payload["providerMetadata"] = {"anthropic": {"redactedData": block.data}}
            return [Chunk("reasoning-start", payload)]
        if kind in ("tool_use", "server_tool_use"):
            server = kind == "server_tool_use"
            self.blocks[index] = _Block("tool", block.id, block.name, provider_executed=server)
            if server:
                self.server_tools[block.id] = block.name
            start = {"toolCallId": block.id, "toolName": block.name}
            if server:
                start["providerExecuted"] = True
            return [Chunk("tool-call-input-streaming-start", start)]
        if kind.endswith("_tool_result"):
            return [self._server_result(block)]
        return []

    def _server_result(self, block: Any) -> Chunk:
        raw = _dump(block)
        content = raw.get("content")
        error = isinstance(content, dict) and str(content.get("type", "")).endswith("_error")
        payload: dict[str, Any] = {
            "toolCallId": block.tool_use_id,
            "toolName": self.server_tools.get(
                block.tool_use_id, block.type[: -len("_tool_result")]
            ),
            "result": content,
            "providerExecuted": True,
        }
        if error:
            payload["isError"] = True
        return Chunk("tool-result", payload)

    def _delta(self, index: int, delta: Any) -> list[Chunk]:
        block = self.blocks.get(index)
        if block is None:
            return []
        kind = delta.type
        if kind == "text_delta":
            return [Chunk("text-delta", {"id": block.id, "text": delta.text})]
        if kind == "thinking_delta":
            return [Chunk("reasoning-delta", {"id": block.id, "text": delta.thinking})]
        if kind == "signature_delta":
            block.signature = delta.signature
            meta = {"anthropic": {"signature": delta.signature}}
            return [
                Chunk("reasoning-delta", {"id": block.id, "text": "", "providerMetadata": meta})
            ]
        if kind == "input_json_delta":
            block.json.append(delta.partial_json)
            payload = {"toolCallId": block.id, "toolName": block.name}
            payload["argsTextDelta"] = delta.partial_json
            return [Chunk("tool-call-delta", payload)]
        return []

    def _stop(self, index: int) -> list[Chunk]:
        block = self.blocks.pop(index, None)
        if block is None:
            return []
        if block.kind == "text":
            return [Chunk("text-end", {"id": block.id})]
        if block.kind == "reasoning":
            payload: dict[str, Any] = {"id": block.id}
            if block.signature is not None:
                payload["providerMetadata"] = {"anthropic": {"signature": block.signature}}
            return [Chunk("reasoning-end", payload)]
        return self._tool_end(block)

    def _tool_end(self, block: _Block) -> list[Chunk]:
        text = "".join(block.json)
        args = json.loads(text) if text.strip() else {}
        if not isinstance(args, dict):
            args = {"value": args}
        ids = {"toolCallId": block.id, "toolName": block.name}
        call: dict[str, Any] = {**ids, "args": args}
        if block.provider_executed:
            call["providerExecuted"] = True
        return [Chunk("tool-call-input-streaming-end", ids), Chunk("tool-call", call)]

    def finish(self) -> Chunk:
        """The ``finish`` chunk for what the stream said so far."""
        self.finished = True
        meta: dict[str, Any] = {"usage": dict(self.tokens.raw)}
        if self.tokens.cache_write is not None:
            meta["cacheCreationInputTokens"] = self.tokens.cache_write
        if self.stop_sequence is not None:
            meta["stopSequence"] = self.stop_sequence
        return finish_chunk(
            finish_reason(self.stop_reason),
            self.tokens.usage(),
            provider_metadata={"anthropic": meta},
            raw_reason=self.stop_reason,
        )
