"""Anthropic Messages stream events to procession chunks (Mastra payloads).

One :class:`AnthropicStreamMapper` per call: feed it each SDK event with :meth:`map` and it
returns the chunks that event stands for; :meth:`finish` ends the stream. Content blocks are
keyed by their ``index``. Events are read by attribute (``event.type``, ``delta.text``), so
shapes the installed SDK does not model (it keeps unknown fields as extras) still map; unknown
event, block and delta types are skipped.

A stream cut short never leaves a started part open: text and reasoning get their ``-end``
chunk, and a tool call whose input JSON is incomplete (``max_tokens`` reached inside a
``tool_use`` block, with or without its ``content_block_stop``) gets its
``tool-call-input-streaming-end`` and is dropped, listed under ``truncatedToolCalls`` in the
finish chunk's ``providerMetadata.anthropic`` (finish reason ``length``). Input that is invalid
JSON although the block was not cut is passed on as the raw text, so the tool reports the error
to the model.

Events arrive as dicts (the SDK's decoded JSON, see ``docs/decisions/0170-provider-overhead-
baselines.md``): :meth:`AnthropicStreamMapper.map_event` reads the common ones (text, thinking and
tool-input deltas, block ends) directly, and builds any other into the SDK's typed event first
(:func:`sdk_event`, as the SDK's own typed stream would) for :meth:`AnthropicStreamMapper.map`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from procession.chunks import Chunk, Usage, finish_chunk
from procession.models._chunk_stream import Fed

__all__ = ["AnthropicStreamMapper", "finish_reason", "sdk_event"]

_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool-calls",
    "refusal": "content-filter",
}
_CUT_OFF = frozenset(("max_tokens", "model_context_window_exceeded"))
_SERVER_TOOL_BLOCKS = frozenset(("server_tool_use", "mcp_tool_use"))
_URL_CITATIONS = frozenset(("web_search_result_location", "search_result_location"))


def finish_reason(stop_reason: str | None) -> str:
    """Procession's finish reason for an Anthropic ``stop_reason``."""
    if stop_reason is None:
        return "unknown"
    return _FINISH_REASONS.get(stop_reason, "other")


def _dump(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", exclude_none=True, warnings=False) if dump is not None else value


_EVENT_TYPES: tuple[Any, dict[str, Any]] | None = None
"""The SDK's stream event union as a pydantic ``TypeAdapter``, and its variant by ``type``."""


def _event_types() -> tuple[Any, dict[str, Any]]:
    global _EVENT_TYPES
    if _EVENT_TYPES is None:
        import pydantic
        from anthropic import types

        by_type: dict[str, Any] = {
            "message_start": types.RawMessageStartEvent,
            "message_delta": types.RawMessageDeltaEvent,
            "message_stop": types.RawMessageStopEvent,
            "content_block_start": types.RawContentBlockStartEvent,
            "content_block_delta": types.RawContentBlockDeltaEvent,
            "content_block_stop": types.RawContentBlockStopEvent,
        }
        _EVENT_TYPES = (pydantic.TypeAdapter(types.RawMessageStreamEvent), by_type)
    return _EVENT_TYPES


def sdk_event(data: dict[str, Any]) -> Any:
    """A stream event (a dict) as the SDK's typed event, built the way the SDK's typed stream
    builds it: validated against the event union, or, where that fails, the variant its
    ``type`` names constructed without validation. ``None`` for an unknown event type."""
    adapter, by_type = _event_types()
    try:
        return adapter.validate_python(data)
    except Exception:  # the SDK falls back to construction on any failure, so do we
        kind = data.get("type")
        variant = by_type.get(kind) if isinstance(kind, str) else None
        return None if variant is None else variant.construct(**data)


@dataclass(slots=True)
class _Block:
    kind: str
    id: str
    name: str = ""
    json: list[str] = field(default_factory=list)
    input: Any = None
    """The input a ``tool_use`` block started with (used when no JSON deltas follow)."""
    signature: str | None = None
    redacted: str | None = None
    """A ``redacted_thinking`` block's opaque data (sent back as it came)."""
    server_name: str | None = None
    """The MCP server of an ``mcp_tool_use`` block (the MCP connector)."""
    provider_executed: bool = False
    citations: list[dict[str, Any]] = field(default_factory=list)


_TOKEN_KEYS = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cache_read", "cache_read_input_tokens"),
    ("cache_write", "cache_creation_input_tokens"),
)
"""The usage counts read, as the mapper's attribute and the API's key."""


@dataclass(slots=True)
class _Tokens:
    input: int | None = None
    output: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    thinking: int | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    def update(self, usage: Any) -> None:
        """Fold in a ``message_start`` or ``message_delta`` usage.

        The counts are cumulative, so a later ``0`` (``message_delta`` sends
        ``cache_read_input_tokens: 0`` under compaction) never replaces a figure already
        read. With server-side compaction the top-level counts are the last iteration's
        only; ``usage.iterations`` lists every iteration, and the call's usage is their sum.
        """
        if usage is None:
            return
        raw = _dump(usage)
        self.raw.update(raw)
        for attr, key in _TOKEN_KEYS:
            value = getattr(usage, key, None)
            if isinstance(value, int) and value >= (getattr(self, attr) or 0):
                setattr(self, attr, value)
        iterations = raw.get("iterations")
        if isinstance(iterations, list) and iterations:
            for attr, key in _TOKEN_KEYS:
                counts = [i.get(key) for i in iterations if isinstance(i, dict)]
                if any(isinstance(count, int) for count in counts):
                    setattr(self, attr, sum(c for c in counts if isinstance(c, int)))
        details = getattr(usage, "output_tokens_details", None)
        thinking = getattr(details, "thinking_tokens", None)
        if thinking is not None:
            self.thinking = thinking

    def usage(self) -> Usage:
        cached = self.cache_read
        total_in = None
        if self.input is not None:
            total_in = self.input + (cached or 0) + (self.cache_write or 0)
        total = None if total_in is None or self.output is None else total_in + self.output
        return Usage(total_in, self.output, total, self.thinking, cached)


def _parse_input(block: _Block) -> tuple[dict[str, Any] | str, bool]:
    """A tool block's arguments and whether its JSON was complete."""
    text = "".join(block.json)
    if not text.strip():
        start = block.input
        return (dict(start) if isinstance(start, dict) else {}), True
    try:
        value = json.loads(text)
    except ValueError:
        return text, False
    return (value if isinstance(value, dict) else {"value": value}), True


class AnthropicStreamMapper:
    """Turns one call's stream events into chunks.

    Args:
        documents: ``(title, media type)`` of each document block of the request, in order;
            document citations name them by index.
    """

    def __init__(self, documents: list[tuple[str, str]] | None = None) -> None:
        self.blocks: dict[int, _Block] = {}
        self.server_tools: dict[str, str] = {}
        self.tokens = _Tokens()
        self.documents = documents or []
        self.message_id = ""
        self.stop_reason: str | None = None
        self.stop_sequence: str | None = None
        self.stop_details: dict[str, Any] | None = None
        self.container: dict[str, Any] | None = None
        self.invalid: list[tuple[_Block, str]] = []
        self.truncated: list[dict[str, Any]] = []
        self.sources = 0
        self.finished = False

    def map_event(self, data: dict[str, Any]) -> Fed:
        """The chunks for one stream event read as a dict (the hot path for deltas)."""
        kind = data.get("type")
        if kind == "content_block_delta":
            chunk = self._plain_delta(data)
            if chunk is not None:
                return chunk
        elif kind == "content_block_stop":
            index = data.get("index")
            if type(index) is int:
                return self._stop(index)
        event = sdk_event(data)
        return None if event is None else self.map(event)

    def _plain_delta(self, data: dict[str, Any]) -> Chunk | None:
        """The chunk of a text, thinking or tool-input delta of a known block, read from the
        dict; ``None`` for anything else (then read as a typed event)."""
        index = data.get("index")
        delta = data.get("delta")
        if type(index) is not int or type(delta) is not dict:
            return None
        block = self.blocks.get(index)
        if block is None:
            return None
        kind = delta.get("type")
        if kind == "text_delta":
            text = delta.get("text")
            if type(text) is str:
                return Chunk("text-delta", {"id": block.id, "text": text})
        elif kind == "thinking_delta":
            text = delta.get("thinking")
            if type(text) is str:
                return Chunk("reasoning-delta", {"id": block.id, "text": text})
        elif kind == "input_json_delta":
            partial = delta.get("partial_json")
            if type(partial) is str:
                block.json.append(partial)
                payload = {"toolCallId": block.id, "toolName": block.name, "argsTextDelta": partial}
                return Chunk("tool-call-delta", payload)
        return None

    def map(self, event: Any) -> list[Chunk]:
        """The chunks for one SDK stream event (a typed event)."""
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
            self._message_delta(event)
            return []
        if kind == "message_stop":
            return self.finish()
        return []

    def _message_start(self, message: Any) -> list[Chunk]:
        if message is None:
            return []
        self.tokens.update(getattr(message, "usage", None))
        self.message_id = str(getattr(message, "id", "") or "")
        return [Chunk("response-metadata", {"id": message.id, "modelId": message.model})]

    def _message_delta(self, event: Any) -> None:
        delta = event.delta
        self.stop_reason = getattr(delta, "stop_reason", None)
        self.stop_sequence = getattr(delta, "stop_sequence", None)
        details = getattr(delta, "stop_details", None)
        if details is not None:
            self.stop_details = _dump(details)
        container = getattr(delta, "container", None)
        if container is not None:
            self.container = _dump(container)
        self.tokens.update(getattr(event, "usage", None))

    def _start(self, index: int, block: Any) -> list[Chunk]:
        kind = block.type
        key = str(index)
        if kind == "text":
            self.blocks[index] = _Block("text", key)
            return [Chunk("text-start", {"id": key})]
        if kind in ("thinking", "redacted_thinking"):
            reasoning = self.blocks[index] = _Block("reasoning", key)
            payload: dict[str, Any] = {"id": key}
            if kind == "redacted_thinking":
                reasoning.redacted = block.data
                payload["providerMetadata"] = {"anthropic": {"redactedData": block.data}}
            return [Chunk("reasoning-start", payload)]
        if kind == "tool_use" or kind in _SERVER_TOOL_BLOCKS:
            return self._tool_start(index, block, kind in _SERVER_TOOL_BLOCKS)
        if kind.endswith("_tool_result"):
            return [self._server_result(block)]
        return []

    def _tool_start(self, index: int, block: Any, server: bool) -> list[Chunk]:
        tool = _Block("tool", block.id, block.name, provider_executed=server)
        tool.input = _dump(getattr(block, "input", None))
        if block.type == "mcp_tool_use":
            tool.server_name = str(getattr(block, "server_name", "") or "")
        self.blocks[index] = tool
        if server:
            self.server_tools[block.id] = block.name
        start: dict[str, Any] = {"toolCallId": block.id, "toolName": block.name}
        if server:
            start["providerExecuted"] = True
        return [Chunk("tool-call-input-streaming-start", start)]

    def _server_result(self, block: Any) -> Chunk:
        raw = _dump(block)
        content = raw.get("content")
        error = isinstance(content, dict) and str(content.get("type", "")).endswith("_error")
        tool_use_id = raw.get("tool_use_id", "")
        payload: dict[str, Any] = {
            "toolCallId": tool_use_id,
            "toolName": self.server_tools.get(tool_use_id, block.type[: -len("_tool_result")]),
            "result": content,
            "providerExecuted": True,
        }
        if error or raw.get("is_error"):
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
        if kind == "input_json_delta":
            block.json.append(delta.partial_json)
            payload = {"toolCallId": block.id, "toolName": block.name}
            payload["argsTextDelta"] = delta.partial_json
            return [Chunk("tool-call-delta", payload)]
        if kind == "signature_delta":
            block.signature = delta.signature
            meta = {"anthropic": {"signature": delta.signature}}
            return [
                Chunk("reasoning-delta", {"id": block.id, "text": "", "providerMetadata": meta})
            ]
        if kind == "citations_delta":
            return self._citation(block, _dump(delta.citation))
        return []

    def _citation(self, block: _Block, citation: dict[str, Any]) -> list[Chunk]:
        """A ``source`` chunk for a citation; the text block keeps it for its ``text-end``."""
        block.citations.append(citation)
        self.sources += 1
        payload: dict[str, Any] = {"id": f"{self.message_id or 'msg'}-source-{self.sources}"}
        if citation.get("type") in _URL_CITATIONS:
            url = citation.get("url") or citation.get("source") or ""
            payload.update(sourceType="url", url=url, title=citation.get("title"))
        else:
            title, media_type = self._document(citation)
            payload.update(sourceType="document", title=title, mimeType=media_type)
        payload["providerMetadata"] = {"anthropic": citation}
        return [Chunk("source", payload)]

    def _document(self, citation: dict[str, Any]) -> tuple[str, str]:
        index = citation.get("document_index")
        known = (
            self.documents[index]
            if isinstance(index, int) and 0 <= index < len(self.documents)
            else None
        )
        title = citation.get("document_title") or (known[0] if known else None)
        return str(title or f"Document {index}"), known[1] if known else "text/plain"

    def _stop(self, index: int) -> list[Chunk]:
        block = self.blocks.pop(index, None)
        return [] if block is None else self._close(block, cut=False)

    def _close(self, block: _Block, *, cut: bool) -> list[Chunk]:
        """The chunks that end a block; ``cut`` means the stream ended inside it."""
        payload: dict[str, Any] = {"id": block.id}
        if block.kind == "text":
            if block.citations:
                payload["providerMetadata"] = {"anthropic": {"citations": block.citations}}
            return [Chunk("text-end", payload)]
        if block.kind == "reasoning":  # the end's metadata is what the next turn sends back
            if block.redacted is not None:
                payload["providerMetadata"] = {"anthropic": {"redactedData": block.redacted}}
            elif block.signature is not None:
                payload["providerMetadata"] = {"anthropic": {"signature": block.signature}}
            return [Chunk("reasoning-end", payload)]
        ids = {"toolCallId": block.id, "toolName": block.name}
        end = Chunk("tool-call-input-streaming-end", ids)
        args, complete = _parse_input(block)
        if cut:
            self._drop(block)
            return [end]
        if not complete:
            # Only the stop reason (sent after this event) tells a cut from a bad input.
            self.invalid.append((block, str(args)))
            return [end]
        return [end, self._tool_call(block, args)]

    def _tool_call(self, block: _Block, args: dict[str, Any] | str) -> Chunk:
        call: dict[str, Any] = {"toolCallId": block.id, "toolName": block.name, "args": args}
        if block.provider_executed:
            call["providerExecuted"] = True
        if block.server_name is not None:  # sent back as mcp_tool_use, with its server
            call["providerMetadata"] = {"anthropic": {"mcpServerName": block.server_name}}
        return Chunk("tool-call", call)

    def _drop(self, block: _Block) -> None:
        self.truncated.append(
            {"toolCallId": block.id, "toolName": block.name, "argsText": "".join(block.json)}
        )

    def finish(self) -> list[Chunk]:
        """Close what is still open and end with the ``finish`` chunk (once)."""
        if self.finished:
            return []
        self.finished = True
        out: list[Chunk] = []
        for index in sorted(self.blocks):
            out.extend(self._close(self.blocks[index], cut=True))
        self.blocks.clear()
        cut = self.stop_reason in _CUT_OFF
        for block, text in self.invalid:
            if cut:
                self._drop(block)
            else:
                out.append(self._tool_call(block, text))
        out.append(self._finish_chunk())
        return out

    def _finish_chunk(self) -> Chunk:
        meta: dict[str, Any] = {"usage": dict(self.tokens.raw), "stopSequence": self.stop_sequence}
        if self.tokens.cache_write is not None:
            meta["cacheCreationInputTokens"] = self.tokens.cache_write
        if self.stop_details is not None:
            meta["stopDetails"] = self.stop_details
        if self.container is not None:
            meta["container"] = self.container
        if self.truncated:
            meta["truncatedToolCalls"] = self.truncated
        return finish_chunk(
            finish_reason(self.stop_reason),
            self.tokens.usage(),
            provider_metadata={"anthropic": meta},
            raw_reason=self.stop_reason,
        )
