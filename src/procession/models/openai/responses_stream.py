"""Responses API stream events (plain dicts) to procession chunks (Mastra payloads).

Event types this code does not know pass by without effect. Built-in tools the provider runs
itself (``web_search_call`` and friends) become a ``tool-call`` and a ``tool-result`` chunk
with ``providerExecuted`` (the call's ``providerMetadata`` names the item, so the next turn
can refer to it); remote MCP items too (:mod:`procession.models.openai.responses_mcp`).
Refusals (``response.refusal.delta``) stream as the message's text, and the finish chunk's
provider metadata carries the refusal.

Reasoning items stream as one reasoning part per summary part (``<item id>:<index>``), the
item known by its ``output_index`` (GitHub Copilot rotates ``item_id`` within one item). Each
part's ``reasoning-start``/``reasoning-end`` carries ``providerMetadata[provider]`` with the
item's ``itemId``; the item's last part ends when the item is done, with its
``reasoningEncryptedContent`` (asked for with ``include: ["reasoning.encrypted_content"]``),
so the next request can send the reasoning back (``responses_input``). A reasoning item
without summary still gives an empty part, to carry them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from procession.chunks import Chunk, Usage, finish_chunk
from procession.models._chunk_stream import Fed
from procession.models.openai.common import iso_timestamp, parse_args
from procession.models.openai.errors import stream_error
from procession.models.openai.responses_mcp import MCP_ITEMS, mcp_chunks

__all__ = ["BUILTIN_TOOL_ITEMS", "ResponsesStreamMapper"]

BUILTIN_TOOL_ITEMS = {
    "web_search_call": "web_search",
    "file_search_call": "file_search",
    "code_interpreter_call": "code_interpreter",
    "image_generation_call": "image_generation",
    "local_shell_call": "local_shell",
}
"""Output item types of provider-executed tools, with the tool name reported for each."""

_INCOMPLETE_REASONS = {"max_output_tokens": "length", "content_filter": "content-filter"}

Event = dict[str, Any]
Out = list[Chunk]


class ResponsesStreamMapper:
    """Turns Responses stream events (dicts) into chunks; one instance per call."""

    def __init__(self, provider: str) -> None:
        self._provider = provider
        self._calls: dict[str, tuple[str, str]] = {}  # item id -> (call id, tool name)
        self._reasoning: dict[str, str] = {}  # item id -> its open part id
        self._item_at: dict[object, str] = {}  # output index -> the id its item was added with
        self._saw_function_call = False
        self._finished = False
        self._refusal: list[str] = []
        self._handlers: dict[str, Callable[[Event, Out], None]] = {
            "response.created": self._created,
            "response.output_item.added": self._item_added,
            "response.output_item.done": self._item_done,
            "response.output_text.delta": self._text_delta,
            "response.refusal.delta": self._refusal_delta,
            "response.output_text.annotation.added": self._annotation,
            "response.reasoning_summary_part.added": self._summary_part,
            "response.reasoning_summary_text.delta": self._reasoning_delta,
            "response.reasoning_text.delta": self._reasoning_delta,
            "response.function_call_arguments.delta": self._args_delta,
            "response.completed": self._completed,
            "response.incomplete": self._completed,
            "response.failed": self._failed,
            "error": self._error,
        }

    def map_event(self, event: Event) -> Fed:
        """The chunks of one event as the adapter's chunk stream takes them: a text delta (the hot
        path) as its one chunk, anything else as :meth:`feed` makes it."""
        if event.get("type") == "response.output_text.delta":
            return Chunk("text-delta", {"id": event.get("item_id"), "text": event.get("delta", "")})
        return self.feed(event)

    def feed(self, event: Event) -> Out:
        """The chunks one event yields; raises :class:`APICallError` for error events."""
        out: Out = []
        handler = self._handlers.get(event.get("type", ""))
        if handler is not None:
            handler(event, out)
        elif "type" not in event and isinstance(event.get("data"), dict):
            return self.feed(event["data"])  # older SDKs wrap some events: {"event", "data"}
        return out

    def finish(self) -> Out:
        """A ``finish`` chunk with reason ``unknown`` if the stream ended without one."""
        out: Out = []
        if not self._finished:
            self._completed({}, out)
        return out

    def _created(self, event: Event, out: Out) -> None:
        response = event.get("response") or {}
        out.append(
            Chunk(
                "response-metadata",
                {
                    "id": response.get("id"),
                    "modelId": response.get("model"),
                    "timestamp": iso_timestamp(response.get("created_at")),
                },
            )
        )

    def _item_id(self, event: Event) -> str:
        """The item an event is about: the one added at its ``output_index`` (GitHub Copilot
        sends a new ``item_id`` on every reasoning event of one item), else its ``item_id``."""
        item_id = self._item_at.get(event.get("output_index"))
        return item_id if item_id is not None else event.get("item_id") or ""

    def _item_added(self, event: Event, out: Out) -> None:
        item = event.get("item") or {}
        kind = item.get("type")
        item_id = item.get("id") or ""
        if "output_index" in event:
            self._item_at[event["output_index"]] = item_id
        if kind == "message":
            out.append(Chunk("text-start", {"id": item_id}))
        elif kind == "function_call":
            call = (item.get("call_id") or item_id, item.get("name") or "")
            self._calls[item_id] = call
            out.append(
                Chunk(
                    "tool-call-input-streaming-start", {"toolCallId": call[0], "toolName": call[1]}
                )
            )
        elif kind == "reasoning":
            self._open_reasoning(item_id, 0, out)

    def _item_done(self, event: Event, out: Out) -> None:
        item = event.get("item") or {}
        kind = item.get("type")
        item_id = item.get("id") or ""
        if kind == "message":
            out.append(Chunk("text-end", {"id": item_id}))
        elif kind == "function_call":
            self._saw_function_call = True
            call_id = item.get("call_id") or item_id
            out.append(Chunk("tool-call-input-streaming-end", {"toolCallId": call_id}))
            out.append(
                Chunk(
                    "tool-call",
                    {
                        "toolCallId": call_id,
                        "toolName": item.get("name") or "",
                        "args": parse_args(item.get("arguments") or ""),
                        "providerMetadata": {self._provider: {"itemId": item_id}},
                    },
                )
            )
        elif kind == "reasoning":
            item_id = self._item_id(event) or item_id
            if item_id not in self._reasoning:
                self._open_reasoning(item_id, 0, out)
            self._close_reasoning(item_id, out, item.get("encrypted_content"))
        elif kind in MCP_ITEMS:
            mcp_chunks(item, self._provider, out)
        elif kind in BUILTIN_TOOL_ITEMS:
            _provider_tool(item, BUILTIN_TOOL_ITEMS[kind], self._provider, out)

    def _text_delta(self, event: Event, out: Out) -> None:
        out.append(
            Chunk("text-delta", {"id": event.get("item_id"), "text": event.get("delta", "")})
        )

    def _refusal_delta(self, event: Event, out: Out) -> None:
        delta = event.get("delta") or ""
        self._refusal.append(delta)
        out.append(Chunk("text-delta", {"id": event.get("item_id"), "text": delta}))

    def _annotation(self, event: Event, out: Out) -> None:
        annotation = event.get("annotation") or {}
        if annotation.get("type") in ("file_citation", "container_file_citation"):
            index = event.get("annotation_index", 0)
            file_id = annotation.get("file_id")
            out.append(
                Chunk(
                    "source",
                    {
                        "id": f"{event.get('item_id')}:{index}",
                        "sourceType": "document",
                        "title": annotation.get("filename") or file_id,
                        "providerMetadata": {"openai": {"fileId": file_id}},
                    },
                )
            )
        if annotation.get("type") == "url_citation":
            index = event.get("annotation_index", 0)
            out.append(
                Chunk(
                    "source",
                    {
                        "id": f"{event.get('item_id')}:{index}",
                        "sourceType": "url",
                        "url": annotation.get("url"),
                        "title": annotation.get("title"),
                    },
                )
            )

    def _summary_part(self, event: Event, out: Out) -> None:
        item_id = self._item_id(event)
        part_id = f"{item_id}:{event.get('summary_index', 0)}"
        if self._reasoning.get(item_id) != part_id:
            self._close_reasoning(item_id, out, None)
            self._open_reasoning(item_id, event.get("summary_index", 0), out)

    def _reasoning_delta(self, event: Event, out: Out) -> None:
        item_id = self._item_id(event)
        if item_id not in self._reasoning:
            self._open_reasoning(item_id, event.get("summary_index", 0), out)
        out.append(
            Chunk(
                "reasoning-delta", {"id": self._reasoning[item_id], "text": event.get("delta", "")}
            )
        )

    def _open_reasoning(self, item_id: str, index: int, out: Out) -> None:
        part_id = f"{item_id}:{index}"
        self._reasoning[item_id] = part_id
        metadata = {self._provider: {"itemId": item_id}}
        out.append(Chunk("reasoning-start", {"id": part_id, "providerMetadata": metadata}))

    def _close_reasoning(self, item_id: str, out: Out, encrypted: object) -> None:
        part_id = self._reasoning.pop(item_id, None)
        if part_id is None:
            return
        values: dict[str, Any] = {"itemId": item_id}
        if isinstance(encrypted, str) and encrypted:
            values["reasoningEncryptedContent"] = encrypted
        out.append(
            Chunk("reasoning-end", {"id": part_id, "providerMetadata": {self._provider: values}})
        )

    def _args_delta(self, event: Event, out: Out) -> None:
        call = self._calls.get(event.get("item_id", ""))
        if call is not None:
            out.append(
                Chunk(
                    "tool-call-delta",
                    {
                        "toolCallId": call[0],
                        "toolName": call[1],
                        "argsTextDelta": event.get("delta", ""),
                    },
                )
            )

    def _completed(self, event: Event, out: Out) -> None:
        self._finished = True
        for item_id in list(self._reasoning):
            self._close_reasoning(item_id, out, None)
        response = event.get("response") or {}
        incomplete = (response.get("incomplete_details") or {}).get("reason")
        if incomplete is not None:
            reason = _INCOMPLETE_REASONS.get(incomplete, "other")
        elif not response:
            reason = "unknown"
        else:
            reason = "tool-calls" if self._saw_function_call else "stop"
        out.append(
            finish_chunk(
                reason,
                _usage(response.get("usage")),
                provider_metadata=self._provider_metadata(response),
                raw_reason=incomplete or response.get("status"),
            )
        )

    def _provider_metadata(self, response: Event) -> dict[str, Any] | None:
        values: dict[str, Any] = {}
        if response.get("id"):
            values["responseId"] = response["id"]
        if self._refusal:
            values["refusal"] = "".join(self._refusal)
        return {self._provider: values} if values else None

    def _failed(self, event: Event, out: Out) -> None:
        error = (event.get("response") or {}).get("error") or {}
        raise stream_error(error.get("message") or "the response failed", error)

    def _error(self, event: Event, out: Out) -> None:
        raise stream_error(None, event)


def _provider_tool(item: dict[str, Any], tool_name: str, provider: str, out: Out) -> None:
    call = {"toolCallId": item.get("id"), "toolName": tool_name, "providerExecuted": True}
    meta = {provider: {"itemId": item.get("id"), "itemType": item.get("type")}}
    out.append(Chunk("tool-call", {**call, "args": {}, "providerMetadata": meta}))
    out.append(Chunk("tool-result", {**call, "result": item}))


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
