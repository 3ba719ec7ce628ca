"""Chat Completions stream chunks (plain dicts, as they came off the wire) to procession chunks.

One mapper reads every OpenAI-compatible dialect, so a quirk seen with one provider is handled
for all of them:

* text in ``delta.content`` as a string, or as a list of parts (Mistral: ``text`` and
  ``thinking`` parts); refusals (``delta.refusal``) stream as text too, and the finish chunk's
  provider metadata carries the refusal;
* reasoning as ``reasoning_content`` (DeepSeek, xAI, vLLM), ``reasoning`` (OpenRouter, Groq,
  Ollama) or only ``reasoning_details`` (OpenRouter), whose entries are kept for the next turn;
* tool calls keyed by ``index``, or by ``id`` where a server sends none (Mistral);
* usage on a last chunk without choices, on the finishing chunk (DeepSeek, Mistral), repeated
  on every chunk (cumulative), or only in ``x_groq.usage`` (Groq); reasoning tokens counted
  apart from completion tokens (xAI) are added to the output tokens;
* Azure's first chunk (``prompt_filter_results``, no id, model or time) gives no response
  metadata; its filter results go to the provider metadata;
* a ``finish_reason`` beside the choices (Together) counts too;
* ``x_groq.error``, or a bare error object (``"object": "error"``), ends the stream with an
  :class:`APICallError` (an ``error`` object in a chunk is raised by the SDK itself);
* Groq's ``executed_tools`` become provider-executed tool calls and results
  (:mod:`procession.models.openai.executed_tools`).
"""

from __future__ import annotations

import json
import secrets
import string
import uuid
from collections.abc import Callable
from typing import Any

from procession.chunks import Chunk, Usage, finish_chunk
from procession.models._chunk_stream import Fed
from procession.models.openai.common import iso_timestamp, parse_args
from procession.models.openai.errors import stream_error
from procession.models.openai.executed_tools import ExecutedTools
from procession.models.openai.think_tags import ThinkTags

__all__ = ["ChatStreamMapper", "chat_finish_reason", "openai_call_id", "short_call_id"]

_FINISH_REASONS = {
    "stop": "stop",
    "eos": "stop",
    "stop_sequence": "stop",
    "end_turn": "stop",
    "length": "length",
    "model_length": "length",
    "max_tokens": "length",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",
    "content_filter": "content-filter",
    "error": "error",
}
TEXT_ID = "txt-0"
REASONING_ID = "reasoning-0"
_ALNUM = string.ascii_letters + string.digits

Data = dict[str, Any]


def chat_finish_reason(raw: str | None) -> str:
    """An API ``finish_reason`` as procession's finish reason."""
    if raw is None:
        return "unknown"
    return _FINISH_REASONS.get(raw, "other")


def openai_call_id() -> str:
    """A tool-call id for a call the server sent without one (``call_`` and 24 hex digits)."""
    return f"call_{uuid.uuid4().hex}"


def short_call_id() -> str:
    """A tool-call id of 9 letters and digits, the only form Mistral accepts back."""
    return "".join(secrets.choice(_ALNUM) for _ in range(9))


class _ToolCall:
    __slots__ = ("args", "id", "name")

    def __init__(self, call_id: str, name: str) -> None:
        self.id = call_id
        self.name = name
        self.args = ""


class ChatStreamMapper:
    """Turns Chat Completions chunks (dicts) into procession chunks; one instance per call.

    Args:
        provider: The provider name, the key of the finish chunk's provider metadata.
        new_call_id: Makes an id for a tool call that arrives without one.
    """

    def __init__(
        self,
        provider: str,
        new_call_id: Callable[[], str] = openai_call_id,
        *,
        think_tags: bool = False,
    ) -> None:
        self._provider = provider
        self._think = ThinkTags() if think_tags else None
        self._new_call_id = new_call_id
        self._metadata_sent = False
        self._text_open = False
        self._reasoning_open = False
        self._tool_calls: dict[object, _ToolCall] = {}
        self._last_call: _ToolCall | None = None
        self._raw_reason: str | None = None
        self._usage: Data | None = None
        self._response_id: str | None = None
        self._refusal: list[str] = []
        self._reasoning_details: list[Data] = []
        self._extra: Data = {}
        self._sources: set[str] = set()
        self._executed = ExecutedTools(provider, self._source)

    def map_event(self, data: Data) -> Fed:
        """The chunks one SSE event yields; raises :class:`APICallError` for an error."""
        choices = data.get("choices")
        if self._text_open and choices and self._think is None:  # the hot path: more text
            choice = choices[0]
            delta = choice.get("delta")
            if (
                type(delta) is dict
                and len(delta) == 1
                and type(content := delta.get("content")) is str
                and choice.get("finish_reason") is None
                and not choice.get("content_filter_results")
                and not data.get("usage")
                and "x_groq" not in data
                and data.get("finish_reason") is None
            ):
                return Chunk("text-delta", {"id": TEXT_ID, "text": content}) if content else None
        return self._map_event(data, choices)

    def _map_event(self, data: Data, choices: Any) -> list[Chunk]:
        out: list[Chunk] = []
        if not self._metadata_sent:
            self._metadata(data, out)
        citations = data.get("citations")  # Perplexity: the URLs the answer cites
        if isinstance(citations, list) and citations:
            for url in citations:
                self._source(url, None, out)
        usage = data.get("usage")
        if usage:
            self._usage = usage
        elif "x_groq" in data:
            self._groq(data["x_groq"])
        if choices:
            choice = choices[0]
            delta = choice.get("delta")
            if delta:
                self._delta(delta, out)
            reason = choice.get("finish_reason")
            if reason is not None:
                self._raw_reason = reason
            filters = choice.get("content_filter_results")
            if filters:
                self._extra["contentFilterResults"] = filters
        elif data.get("object") == "error" or data.get("type") == "error":
            raise stream_error(None, data)  # a bare error object (vLLM, Mistral shapes)
        if data.get("finish_reason") is not None:  # Together may put it beside the choices
            self._raw_reason = data["finish_reason"]
        return out

    def finish(self) -> list[Chunk]:
        """The closing chunks once the stream has ended."""
        out: list[Chunk] = []
        if self._think is not None:
            self._split(self._think.flush(), out)
        self._close_reasoning(out)
        if self._text_open:
            self._text_open = False
            out.append(Chunk("text-end", {"id": TEXT_ID}))
        for call in self._tool_calls.values():
            out.append(Chunk("tool-call-input-streaming-end", {"toolCallId": call.id}))
            out.append(
                Chunk(
                    "tool-call",
                    {"toolCallId": call.id, "toolName": call.name, "args": parse_args(call.args)},
                )
            )
        out.append(
            finish_chunk(
                chat_finish_reason(self._raw_reason),
                chat_usage(self._usage),
                provider_metadata=self._provider_metadata(),
                raw_reason=self._raw_reason,
            )
        )
        return out

    def _metadata(self, data: Data, out: list[Chunk]) -> None:
        # Azure's first chunk has only prompt filter results: no id, model, time or choices.
        filters = data.get("prompt_filter_results")
        if filters:
            self._extra["promptFilterResults"] = filters
        if not (data.get("id") or data.get("choices")):
            return
        self._metadata_sent = True
        self._response_id = data.get("id") or None
        out.append(
            Chunk(
                "response-metadata",
                {
                    "id": self._response_id,
                    "modelId": data.get("model") or None,
                    "timestamp": iso_timestamp(data.get("created") or None),
                },
            )
        )

    def _groq(self, x_groq: Any) -> None:
        if not isinstance(x_groq, dict):
            return
        if x_groq.get("error"):
            raise stream_error(str(x_groq["error"]), x_groq)
        if x_groq.get("usage"):
            self._usage = x_groq["usage"]

    def _delta(self, delta: Data, out: list[Chunk]) -> None:
        content = delta.get("content")
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        details = delta.get("reasoning_details")
        if details:
            text = self._details(details)
            if not isinstance(reasoning, str) or not reasoning:
                reasoning = text
        if isinstance(reasoning, str) and reasoning:
            self._reasoning(reasoning, out)
        elif details and self._reasoning_details and not self._reasoning_open:
            # Encrypted details (OpenRouter's reasoning.encrypted) have no text: the part is
            # opened all the same, so its end carries them back on the next turn.
            self._reasoning_open = True
            out.append(Chunk("reasoning-start", {"id": REASONING_ID}))
        if content:
            if isinstance(content, str):
                self._text(content, out)
            elif isinstance(content, list):
                self._content_parts(content, out)
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            self._refusal.append(refusal)
            self._text(refusal, out)
        calls = delta.get("tool_calls")
        if calls:
            for call in calls:
                self._tool_delta(call, out)
        executed = delta.get("executed_tools")  # Groq's compound models: tools it ran itself
        if executed:
            self._executed.feed(executed, self._response_id, out)
        annotations = delta.get("annotations")  # OpenRouter's web plugin, OpenAI search models
        if isinstance(annotations, list):
            for note in annotations:
                cited = note.get("url_citation") if isinstance(note, dict) else None
                if isinstance(cited, dict):
                    self._source(cited.get("url"), cited.get("title"), out)

    def _source(self, url: Any, title: Any, out: list[Chunk]) -> None:
        """A ``source`` chunk for a cited URL, once per URL in a call."""
        if not isinstance(url, str) or not url or url in self._sources:
            return
        self._sources.add(url)
        payload: Data = {"id": f"source-{len(self._sources)}", "sourceType": "url", "url": url}
        if isinstance(title, str) and title:
            payload["title"] = title
        out.append(Chunk("source", payload))

    def _content_parts(self, parts: list[Any], out: list[Chunk]) -> None:
        for part in parts:
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "text" and part.get("text"):
                self._text(part["text"], out)
            elif kind == "thinking":
                text = _joined_text(part.get("thinking"))
                if text:
                    self._reasoning(text, out)

    def _details(self, details: Any) -> str:
        """Keep OpenRouter's reasoning details (merged by index); return their text."""
        if not isinstance(details, list):
            return ""
        text: list[str] = []
        for detail in details:
            if isinstance(detail, dict):
                text.append(_merge_detail(self._reasoning_details, detail))
        return "".join(text)

    def _reasoning(self, text: str, out: list[Chunk]) -> None:
        if not self._reasoning_open:
            self._reasoning_open = True
            out.append(Chunk("reasoning-start", {"id": REASONING_ID}))
        out.append(Chunk("reasoning-delta", {"id": REASONING_ID, "text": text}))

    def _close_reasoning(self, out: list[Chunk]) -> None:
        if self._reasoning_open:
            self._reasoning_open = False
            payload: Data = {"id": REASONING_ID}
            if self._reasoning_details:
                payload["providerMetadata"] = {
                    self._provider: {"reasoningDetails": self._reasoning_details}
                }
            out.append(Chunk("reasoning-end", payload))

    def _text(self, text: str, out: list[Chunk]) -> None:
        if self._think is not None:
            self._split(self._think.feed(text), out)
            return
        self._answer(text, out)

    def _split(self, pieces: list[tuple[bool, str]], out: list[Chunk]) -> None:
        for is_reasoning, piece in pieces:
            if is_reasoning:
                self._reasoning(piece, out)
            else:
                self._answer(piece, out)

    def _answer(self, text: str, out: list[Chunk]) -> None:
        if not self._text_open:
            self._close_reasoning(out)
            self._text_open = True
            out.append(Chunk("text-start", {"id": TEXT_ID}))
        out.append(Chunk("text-delta", {"id": TEXT_ID, "text": text}))

    def _tool_delta(self, delta: Any, out: list[Chunk]) -> None:
        if not isinstance(delta, dict):
            return
        function = delta.get("function") or {}
        call = self._find_call(delta)
        name = function.get("name") or ""
        if call is None:
            self._close_reasoning(out)
            call = _ToolCall(delta.get("id") or self._new_call_id(), name)
            key = delta.get("index")
            self._tool_calls[key if key is not None else call.id] = call
            out.append(
                Chunk(
                    "tool-call-input-streaming-start",
                    {"toolCallId": call.id, "toolName": call.name},
                )
            )
        elif name and not call.name:
            call.name = name
        self._last_call = call
        arguments = function.get("arguments")
        if arguments:
            if not isinstance(arguments, str):  # a few servers send the object itself
                arguments = json.dumps(arguments)
            call.args += arguments
            out.append(
                Chunk(
                    "tool-call-delta",
                    {"toolCallId": call.id, "toolName": call.name, "argsTextDelta": arguments},
                )
            )

    def _find_call(self, delta: Data) -> _ToolCall | None:
        index = delta.get("index")
        if index is not None:
            return self._tool_calls.get(index)
        call_id = delta.get("id")
        if call_id:  # no index (Mistral): a new id is a new call
            return self._tool_calls.get(call_id)
        return self._last_call

    def _provider_metadata(self) -> dict[str, Any] | None:
        values: Data = dict(self._extra)
        if self._response_id:
            values["responseId"] = self._response_id
        if self._refusal:
            values["refusal"] = "".join(self._refusal)
        cost = (self._usage or {}).get("cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            values["cost"] = cost
        return {self._provider: values} if values else None


def chat_usage(usage: Data | None) -> Usage:
    """A Chat Completions ``usage`` object (in any of the dialects above) as :class:`Usage`."""
    if not usage:
        return Usage()
    prompt = _int(usage.get("prompt_tokens"))
    completion = _int(usage.get("completion_tokens"))
    total = _int(usage.get("total_tokens"))
    completion_details = usage.get("completion_tokens_details") or {}
    reasoning = _int(completion_details.get("reasoning_tokens"))
    if reasoning is None:  # Azure's DeepSeek models put it at the top level
        reasoning = _int(usage.get("reasoning_tokens"))
    if (
        reasoning
        and None not in (prompt, completion, total)
        and total == (prompt or 0) + (completion or 0) + reasoning
    ):
        completion = (completion or 0) + reasoning  # reasoning counted apart (xAI)
    return Usage(
        input_tokens=prompt,
        output_tokens=completion,
        total_tokens=total,
        reasoning_tokens=reasoning,
        cached_input_tokens=_cached(usage),
    )


def _cached(usage: Data) -> int | None:
    for key in ("prompt_tokens_details", "prompt_token_details"):
        details = usage.get(key)
        if isinstance(details, dict) and _int(details.get("cached_tokens")) is not None:
            return _int(details["cached_tokens"])
    for key in ("prompt_cache_hit_tokens", "num_cached_tokens"):  # DeepSeek, Mistral
        if _int(usage.get(key)) is not None:
            return _int(usage[key])
    return None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _joined_text(parts: Any) -> str:
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        return ""
    return "".join(
        part["text"]
        for part in parts
        if isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    )


def _merge_detail(kept: list[Data], detail: Data) -> str:
    """Add one streamed reasoning detail to ``kept``; return its new text."""
    text = detail.get("text") if isinstance(detail.get("text"), str) else None
    summary = detail.get("summary") if isinstance(detail.get("summary"), str) else None
    last = kept[-1] if kept else None
    if (
        last is not None
        and last.get("type") == detail.get("type")
        and last.get("index") == detail.get("index")
    ):
        for key, piece in (("text", text), ("summary", summary)):
            if piece:
                last[key] = (last.get(key) or "") + piece
        for key, value in detail.items():
            if key not in ("text", "summary") and value is not None:
                last[key] = value
    else:
        kept.append(dict(detail))
    return text or summary or ""
