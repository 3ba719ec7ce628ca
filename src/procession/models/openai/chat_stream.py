"""Chat Completions stream chunks to procession chunks (Mastra payloads)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from procession.chunks import Chunk, Usage, finish_chunk
from procession.models.openai.common import iso_timestamp, parse_args

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionChunk
    from openai.types.chat.chat_completion_chunk import ChoiceDeltaToolCall
    from openai.types.completion_usage import CompletionUsage

__all__ = ["ChatStreamMapper", "chat_finish_reason"]

_FINISH_REASONS = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",
    "content_filter": "content-filter",
}
TEXT_ID = "txt-0"
REASONING_ID = "reasoning-0"


def chat_finish_reason(raw: str | None) -> str:
    """An API ``finish_reason`` as procession's finish reason."""
    if raw is None:
        return "unknown"
    return _FINISH_REASONS.get(raw, "other")


@dataclass(slots=True)
class _ToolCall:
    id: str
    name: str
    args: str = ""


class ChatStreamMapper:
    """Turns ``ChatCompletionChunk`` objects into chunks; one instance per call."""

    def __init__(self, provider: str) -> None:
        self._provider = provider
        self._metadata_sent = False
        self._text_open = False
        self._reasoning_open = False
        self._tool_calls: dict[int, _ToolCall] = {}
        self._raw_reason: str | None = None
        self._usage = Usage()
        self._response_id: str | None = None

    def feed(self, chunk: ChatCompletionChunk) -> Iterator[Chunk]:
        """The chunks one SSE event yields."""
        if not self._metadata_sent:
            self._metadata_sent = True
            self._response_id = chunk.id
            yield Chunk(
                "response-metadata",
                {"id": chunk.id, "modelId": chunk.model, "timestamp": iso_timestamp(chunk.created)},
            )
        if chunk.usage is not None:
            self._usage = _usage(chunk.usage)
        for choice in chunk.choices[:1]:
            delta = choice.delta
            extra = delta.model_extra or {}
            reasoning = extra.get("reasoning_content") or extra.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                yield from self._reasoning(reasoning)
            if delta.content:
                yield from self._text(delta.content)
            for call in delta.tool_calls or ():
                yield from self._tool_delta(call)
            if choice.finish_reason is not None:
                self._raw_reason = choice.finish_reason

    def finish(self) -> Iterator[Chunk]:
        """The closing chunks once the stream has ended."""
        yield from self._close_reasoning()
        if self._text_open:
            self._text_open = False
            yield Chunk("text-end", {"id": TEXT_ID})
        for call in self._tool_calls.values():
            yield Chunk("tool-call-input-streaming-end", {"toolCallId": call.id})
            yield Chunk(
                "tool-call",
                {"toolCallId": call.id, "toolName": call.name, "args": parse_args(call.args)},
            )
        metadata = (
            {self._provider: {"responseId": self._response_id}} if self._response_id else None
        )
        yield finish_chunk(
            chat_finish_reason(self._raw_reason),
            self._usage,
            provider_metadata=metadata,
            raw_reason=self._raw_reason,
        )

    def _reasoning(self, text: str) -> Iterator[Chunk]:
        if not self._reasoning_open:
            self._reasoning_open = True
            yield Chunk("reasoning-start", {"id": REASONING_ID})
        yield Chunk("reasoning-delta", {"id": REASONING_ID, "text": text})

    def _close_reasoning(self) -> Iterator[Chunk]:
        if self._reasoning_open:
            self._reasoning_open = False
            yield Chunk("reasoning-end", {"id": REASONING_ID})

    def _text(self, text: str) -> Iterator[Chunk]:
        yield from self._close_reasoning()
        if not self._text_open:
            self._text_open = True
            yield Chunk("text-start", {"id": TEXT_ID})
        yield Chunk("text-delta", {"id": TEXT_ID, "text": text})

    def _tool_delta(self, delta: ChoiceDeltaToolCall) -> Iterator[Chunk]:
        function = delta.function
        call = self._tool_calls.get(delta.index)
        if call is None:
            yield from self._close_reasoning()
            call = _ToolCall(
                id=delta.id or f"call_{uuid.uuid4().hex[:24]}",
                name=(function.name if function else None) or "",
            )
            self._tool_calls[delta.index] = call
            yield Chunk(
                "tool-call-input-streaming-start", {"toolCallId": call.id, "toolName": call.name}
            )
        elif function is not None and function.name and not call.name:
            call.name = function.name
        if function is not None and function.arguments:
            call.args += function.arguments
            yield Chunk(
                "tool-call-delta",
                {"toolCallId": call.id, "toolName": call.name, "argsTextDelta": function.arguments},
            )


def _usage(usage: CompletionUsage) -> Usage:
    completion = usage.completion_tokens_details
    prompt = usage.prompt_tokens_details
    return Usage(
        input_tokens=usage.prompt_tokens,
        output_tokens=usage.completion_tokens,
        total_tokens=usage.total_tokens,
        reasoning_tokens=completion.reasoning_tokens if completion else None,
        cached_input_tokens=prompt.cached_tokens if prompt else None,
    )
