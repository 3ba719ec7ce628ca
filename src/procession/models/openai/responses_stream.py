"""Responses API stream events to procession chunks (Mastra payloads).

Events are read as plain dicts (the SDK's ``to_dict``), so event types this code does not
know pass by without effect. Built-in tools the provider runs itself (``web_search_call``
and friends) become a ``tool-call`` and a ``tool-result`` chunk with ``providerExecuted``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from procession.chunks import Chunk, Usage, finish_chunk
from procession.models.openai.common import iso_timestamp, parse_args
from procession.models.openai.errors import stream_error

__all__ = ["BUILTIN_TOOL_ITEMS", "ResponsesStreamMapper"]

BUILTIN_TOOL_ITEMS = {
    "web_search_call": "web_search",
    "file_search_call": "file_search",
    "code_interpreter_call": "code_interpreter",
    "image_generation_call": "image_generation",
    "mcp_call": "mcp",
    "local_shell_call": "local_shell",
}
"""Output item types of provider-executed tools, with the tool name reported for each."""

_INCOMPLETE_REASONS = {"max_output_tokens": "length", "content_filter": "content-filter"}

Event = dict[str, Any]


class ResponsesStreamMapper:
    """Turns Responses stream events (as dicts) into chunks; one instance per call."""

    def __init__(self, provider: str) -> None:
        self._provider = provider
        self._calls: dict[str, tuple[str, str]] = {}  # item id -> (call id, tool name)
        self._open_reasoning: set[str] = set()
        self._saw_function_call = False
        self._finished = False
        self._handlers: dict[str, Callable[[Event], Iterator[Chunk]]] = {
            "response.created": self._created,
            "response.output_item.added": self._item_added,
            "response.output_item.done": self._item_done,
            "response.output_text.delta": self._text_delta,
            "response.output_text.annotation.added": self._annotation,
            "response.reasoning_summary_part.added": self._reasoning_start,
            "response.reasoning_summary_text.delta": self._reasoning_delta,
            "response.reasoning_summary_part.done": self._reasoning_end,
            "response.function_call_arguments.delta": self._args_delta,
            "response.completed": self._completed,
            "response.incomplete": self._completed,
            "response.failed": self._failed,
            "error": self._error,
        }

    def feed(self, event: Event) -> Iterator[Chunk]:
        """The chunks one event yields; raises :class:`APICallError` for error events."""
        handler = self._handlers.get(event.get("type", ""))
        return handler(event) if handler is not None else iter(())

    def finish(self) -> Iterator[Chunk]:
        """A ``finish`` chunk with reason ``unknown`` if the stream ended without one."""
        if not self._finished:
            self._finished = True
            yield from self._completed({})

    def _created(self, event: Event) -> Iterator[Chunk]:
        response = event.get("response") or {}
        yield Chunk(
            "response-metadata",
            {
                "id": response.get("id"),
                "modelId": response.get("model"),
                "timestamp": iso_timestamp(response.get("created_at")),
            },
        )

    def _item_added(self, event: Event) -> Iterator[Chunk]:
        item = event.get("item") or {}
        kind = item.get("type")
        if kind == "message":
            yield Chunk("text-start", {"id": item["id"]})
        elif kind == "function_call":
            self._calls[item["id"]] = (item["call_id"], item["name"])
            yield Chunk(
                "tool-call-input-streaming-start",
                {"toolCallId": item["call_id"], "toolName": item["name"]},
            )

    def _item_done(self, event: Event) -> Iterator[Chunk]:
        item = event.get("item") or {}
        kind = item.get("type")
        if kind == "message":
            yield Chunk("text-end", {"id": item["id"]})
        elif kind == "function_call":
            self._saw_function_call = True
            yield Chunk("tool-call-input-streaming-end", {"toolCallId": item["call_id"]})
            yield Chunk(
                "tool-call",
                {
                    "toolCallId": item["call_id"],
                    "toolName": item["name"],
                    "args": parse_args(item.get("arguments") or ""),
                },
            )
        elif kind == "reasoning":
            for part_id in sorted(
                p for p in self._open_reasoning if p.startswith(f"{item['id']}:")
            ):
                yield from self._close_reasoning(part_id)
        elif kind in BUILTIN_TOOL_ITEMS:
            yield from _provider_tool(item, BUILTIN_TOOL_ITEMS[kind])

    def _text_delta(self, event: Event) -> Iterator[Chunk]:
        yield Chunk("text-delta", {"id": event["item_id"], "text": event.get("delta", "")})

    def _annotation(self, event: Event) -> Iterator[Chunk]:
        annotation = event.get("annotation") or {}
        if annotation.get("type") == "url_citation":
            index = event.get("annotation_index", 0)
            yield Chunk(
                "source",
                {
                    "id": f"{event.get('item_id')}:{index}",
                    "sourceType": "url",
                    "url": annotation.get("url"),
                    "title": annotation.get("title"),
                },
            )

    def _reasoning_start(self, event: Event) -> Iterator[Chunk]:
        part_id = _reasoning_id(event)
        if part_id not in self._open_reasoning:
            self._open_reasoning.add(part_id)
            yield Chunk("reasoning-start", {"id": part_id})

    def _reasoning_delta(self, event: Event) -> Iterator[Chunk]:
        yield from self._reasoning_start(event)
        yield Chunk("reasoning-delta", {"id": _reasoning_id(event), "text": event.get("delta", "")})

    def _reasoning_end(self, event: Event) -> Iterator[Chunk]:
        return self._close_reasoning(_reasoning_id(event))

    def _close_reasoning(self, part_id: str) -> Iterator[Chunk]:
        if part_id in self._open_reasoning:
            self._open_reasoning.discard(part_id)
            yield Chunk("reasoning-end", {"id": part_id})

    def _args_delta(self, event: Event) -> Iterator[Chunk]:
        call = self._calls.get(event.get("item_id", ""))
        if call is not None:
            yield Chunk(
                "tool-call-delta",
                {
                    "toolCallId": call[0],
                    "toolName": call[1],
                    "argsTextDelta": event.get("delta", ""),
                },
            )

    def _completed(self, event: Event) -> Iterator[Chunk]:
        self._finished = True
        for part_id in sorted(self._open_reasoning):
            yield from self._close_reasoning(part_id)
        response = event.get("response") or {}
        incomplete = (response.get("incomplete_details") or {}).get("reason")
        if incomplete is not None:
            reason = _INCOMPLETE_REASONS.get(incomplete, "other")
        elif not response:
            reason = "unknown"
        else:
            reason = "tool-calls" if self._saw_function_call else "stop"
        yield finish_chunk(
            reason,
            _usage(response.get("usage")),
            provider_metadata={self._provider: {"responseId": response["id"]}}
            if response
            else None,
            raw_reason=incomplete or response.get("status"),
        )

    def _failed(self, event: Event) -> Iterator[Chunk]:
        error = (event.get("response") or {}).get("error") or {}
        raise stream_error(error.get("message") or "the response failed", error)

    def _error(self, event: Event) -> Iterator[Chunk]:
        body = {key: event.get(key) for key in ("code", "message", "param")}
        raise stream_error(event.get("message") or "error event in the stream", body)


def _reasoning_id(event: Event) -> str:
    return f"{event.get('item_id')}:{event.get('summary_index', 0)}"


def _provider_tool(item: dict[str, Any], tool_name: str) -> Iterator[Chunk]:
    call = {"toolCallId": item["id"], "toolName": tool_name, "providerExecuted": True}
    yield Chunk("tool-call", {**call, "args": {}})
    yield Chunk("tool-result", {**call, "result": item})


def _usage(usage: dict[str, Any] | None) -> Usage:
    if not usage:
        return Usage()
    output_details = usage.get("output_tokens_details") or {}
    input_details = usage.get("input_tokens_details") or {}
    return Usage(
        input_tokens=usage.get("input_tokens"),
        output_tokens=usage.get("output_tokens"),
        total_tokens=usage.get("total_tokens"),
        reasoning_tokens=output_details.get("reasoning_tokens"),
        cached_input_tokens=input_details.get("cached_tokens"),
    )
