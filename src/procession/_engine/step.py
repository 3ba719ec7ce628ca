"""Building one step's assistant parts from the processed chunks of its model stream.

The message stored for a step is built from the chunks *after* ``process_output_stream``: a
dropped delta is not stored, a rewritten one is stored rewritten, a dropped ``tool-call`` is
never executed (Mastra's behaviour, kept).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from procession.chunks import Chunk, check_chunk
from procession.messages.parts import (
    FilePart,
    Part,
    ReasoningPart,
    SourcePart,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
)
from procession.results import ToolCallInfo

__all__ = ["MalformedChunkError", "StepBuilder"]


class MalformedChunkError(ValueError):
    """A chunk the step cannot take: a field the runtime reads is missing or of the wrong
    type (D33). The loop names the processor that passed it on."""


def _malformed(chunk: Chunk) -> MalformedChunkError:
    """The error for a delta whose ``text`` is missing or not a string."""
    return MalformedChunkError(check_chunk(chunk) or f"a {chunk.type} needs a string text")


class StepBuilder:
    """Accumulates the parts, text, reasoning and tool calls of one model stream."""

    __slots__ = (
        "_reasoning",
        "_reasoning_meta",
        "_text",
        "_text_meta",
        "execution_args",
        "files",
        "on_text",
        "parts",
        "reasoning_text",
        "response",
        "sources",
        "text_parts",
        "tool_calls",
    )

    def __init__(self) -> None:
        self.parts: list[Part] = []
        self._text: list[str] | None = None
        self._reasoning: list[str] | None = None
        self._reasoning_meta: dict[str, Any] | None = None
        self.text_parts: list[str] = []
        self.reasoning_text: list[str] = []
        self.tool_calls: list[ToolCallInfo] = []
        self.sources: list[dict[str, Any]] = []
        self.files: list[dict[str, Any]] = []
        self.response: dict[str, Any] = {}
        self.execution_args: dict[str, Any] = {}
        """Real arguments of tool calls whose displayed arguments a processor redacted."""
        self._text_meta: dict[str, Any] | None = None
        self.on_text: Callable[[str], None] | None = None
        """Called with each processed text delta (structured output's partial objects)."""

    @property
    def text(self) -> str:
        """The step's text so far."""
        pending = "".join(self._text) if self._text else ""
        return "".join(self.text_parts) + pending

    def add(self, chunk: Chunk) -> None:
        """Record one processed chunk."""
        kind = chunk.type
        if kind == "text-delta":
            text = chunk.payload.get("text")
            if type(text) is not str:
                raise _malformed(chunk)
            if self._text is None:
                self._flush_reasoning()
                self._text = []
            self._text.append(text)
            if self.on_text is not None:
                self.on_text(text)
            if "providerMetadata" in chunk.payload:
                self._text_metadata(chunk.payload["providerMetadata"])
            return
        if kind == "reasoning-delta":
            text = chunk.payload.get("text")
            if type(text) is not str:
                raise _malformed(chunk)
            if self._reasoning is None:
                self._flush_text()
                self._reasoning = []
            self._reasoning.append(text)
            return
        problem = check_chunk(chunk)  # every other kind is rarer: checked in full (D33)
        if problem is not None:
            raise MalformedChunkError(problem)
        if kind == "text-start":
            self._flush_text()
            self._flush_reasoning()
            self._text = []
        elif kind == "text-end":
            if "providerMetadata" in chunk.payload:
                self._text_metadata(chunk.payload["providerMetadata"])
            self._flush_text()
        elif kind == "reasoning-start":
            self._flush_text()
            self._flush_reasoning()
            self._reasoning = []
        elif kind == "reasoning-end":
            self._reasoning_meta = chunk.payload.get("providerMetadata")
            self._flush_reasoning()
        elif kind == "tool-call":
            self._tool_call(chunk.payload)
            if chunk.execution_args is not None:
                self.execution_args[chunk.payload["toolCallId"]] = chunk.execution_args
        elif kind == "source":
            self._flush_text()
            source = {k: v for k, v in chunk.payload.items() if k != "providerMetadata"}
            self.sources.append(source)
            self.parts.append(SourcePart(source=source))
        elif kind == "file":
            self._flush_text()
            payload = chunk.payload
            self.files.append(payload)
            mime = payload.get("mimeType") or payload.get("mediaType") or ""
            self.parts.append(FilePart(mime_type=mime, data=str(payload.get("data", ""))))
        elif kind == "response-metadata":
            self.response.update(chunk.payload)

    def _text_metadata(self, metadata: Any) -> None:
        """A text block's provider metadata (ids, signatures): merged, the last value wins."""
        if isinstance(metadata, dict) and metadata:
            merged = self._text_meta or {}
            for provider, values in metadata.items():
                if isinstance(values, dict) and isinstance(merged.get(provider), dict):
                    merged[provider] = {**merged[provider], **values}
                else:
                    merged[provider] = values
            self._text_meta = merged

    def _tool_call(self, payload: dict[str, Any]) -> None:
        self._flush_text()
        self._flush_reasoning()
        call = ToolCallInfo(
            tool_call_id=payload["toolCallId"],
            tool_name=payload["toolName"],
            args=payload.get("args", {}),
            provider_executed=payload.get("providerExecuted"),
        )
        self.tool_calls.append(call)
        invocation = ToolInvocation(
            state="call", tool_call_id=call.tool_call_id, tool_name=call.tool_name, args=call.args
        )
        metadata = payload.get("providerMetadata")
        self.parts.append(
            ToolInvocationPart(
                tool_invocation=invocation,
                provider_executed=call.provider_executed,
                provider_metadata=metadata if isinstance(metadata, dict) else None,
            )
        )

    def _flush_text(self) -> None:
        if self._text is not None:
            text = "".join(self._text)
            self._text = None
            metadata, self._text_meta = self._text_meta, None
            if text:
                self.text_parts.append(text)
                self.parts.append(TextPart(text=text, provider_metadata=metadata))

    def _flush_reasoning(self) -> None:
        if self._reasoning is not None:
            text = "".join(self._reasoning)
            self._reasoning = None
            detail: dict[str, Any] = {"type": "text", "text": text}
            meta = self._reasoning_meta
            if meta:
                signature = next(
                    (v.get("signature") for v in meta.values() if isinstance(v, dict)), None
                )
                if signature:
                    detail["signature"] = signature
            self._reasoning_meta = None
            self.reasoning_text.append(text)
            self.parts.append(
                ReasoningPart(reasoning=text, details=[detail], provider_metadata=meta)
            )

    def finish(self) -> list[Part]:
        """Close open text or reasoning and return every part of the step."""
        self._flush_text()
        self._flush_reasoning()
        return self.parts
