"""Gemini ``GenerateContentResponse`` objects (the streamed JSON, camelCase) to chunks.

One :class:`GeminiStreamMapper` per call: :meth:`~GeminiStreamMapper.map` takes each streamed
response and returns its chunks; :meth:`~GeminiStreamMapper.finish` closes what is open and
returns the ``finish`` chunk.

* ``thoughtSignature`` (Gemini 3 signs its turns and rejects a replay that drops the
  signature) is kept in ``providerMetadata.google.thoughtSignature`` on the chunk of the part
  that carried it, on the ``tool-call`` of a signed function call, and on the ``text-end`` /
  ``reasoning-end`` of a signed block; the request builder sends it back.
* A prompt blocked before any candidate (``promptFeedback.blockReason``) ends with finish
  reason ``content-filter``; the block reason is the raw reason and ``promptFeedback`` is in
  the finish chunk's provider metadata.
* Function calls arrive whole, without arguments, or streamed (``partialArgs``, see
  :mod:`procession.models.google._args`); calls get a generated id when Gemini sends none.
* Grounding chunks become ``source`` chunks; ``inlineData`` parts become ``file`` chunks; code
  execution and Gemini 3's server-side tools (``toolCall`` / ``toolResponse``, see
  :mod:`procession.models.google._server_tools`) become provider-executed ``tool-call`` /
  ``tool-result`` pairs.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from procession.chunks import Chunk, Usage, finish_chunk
from procession.models._chunk_stream import Fed
from procession.models.google._args import PartialArgs
from procession.models.google._server_tools import ServerTools

__all__ = ["GeminiStreamMapper", "finish_reason", "usage_of"]

_FILTERED = frozenset(
    (
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "MODEL_ARMOR",
    )
)
_ERRORS = frozenset(("MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"))


def finish_reason(raw: str | None, saw_tool_call: bool) -> str:
    """Procession's finish reason for a Gemini ``finishReason``."""
    if raw is None:
        return "unknown"
    if raw == "STOP":
        return "tool-calls" if saw_tool_call else "stop"
    if raw == "MAX_TOKENS":
        return "length"
    if raw in _FILTERED:
        return "content-filter"
    if raw in _ERRORS:
        return "error"
    return "other"


def usage_of(meta: dict[str, Any]) -> Usage:
    """Token usage from ``usageMetadata``: thought tokens count as output, and the prompt of
    a built-in tool's results (``toolUsePromptTokenCount``: search, code execution) as input,
    as ``totalTokenCount`` counts them."""
    candidates = meta.get("candidatesTokenCount")
    thoughts = meta.get("thoughtsTokenCount")
    output = None
    if candidates is not None or thoughts is not None:
        output = (candidates or 0) + (thoughts or 0)
    prompt, tool_prompt = meta.get("promptTokenCount"), meta.get("toolUsePromptTokenCount")
    if prompt is not None and isinstance(tool_prompt, int):
        prompt += tool_prompt
    return Usage(
        input_tokens=prompt,
        output_tokens=output,
        total_tokens=meta.get("totalTokenCount"),
        reasoning_tokens=thoughts,
        cached_input_tokens=meta.get("cachedContentTokenCount"),
    )


def _signed(signature: Any) -> dict[str, Any] | None:
    return {"google": {"thoughtSignature": signature}} if signature else None


class _Call:
    """A function call whose arguments are still streaming."""

    __slots__ = ("args", "id", "meta", "name")

    def __init__(self, call_id: str, name: str, meta: dict[str, Any] | None) -> None:
        self.id = call_id
        self.name = name
        self.meta = meta
        self.args = PartialArgs()


class GeminiStreamMapper:
    """Gemini responses to procession chunks, for one call."""

    def __init__(self) -> None:
        self.open: dict[str, str] = {}  # "text"/"reasoning" -> id of the open block
        self.signatures: dict[str, Any] = {}  # "text"/"reasoning" -> the block's signature
        self.counter = 0
        self.saw_tool_call = False
        self.finish_raw: str | None = None
        self.usage_metadata: Any = None  # the last ``usageMetadata`` (read at the end)
        self.metadata_sent = False
        self.streaming: _Call | None = None
        self.code_call: str | None = None
        self.sources: set[str] = set()
        self.extra: dict[str, Any] = {}
        self.server_tools = ServerTools()

    def map_event(self, response: dict[str, Any]) -> Fed:
        """The chunks of one streamed response: the usual one (one more piece of open text)
        as its one chunk, read without the general path of :meth:`map`."""
        text_id = self.open.get("text")
        if text_id is not None:
            text = _plain_text(response)
            if text:
                if "usageMetadata" in response:
                    self.usage_metadata = self.extra["usageMetadata"] = response["usageMetadata"]
                return Chunk("text-delta", {"id": text_id, "text": text})
        return self.map(response)

    def map(self, response: dict[str, Any]) -> list[Chunk]:
        """The chunks of one streamed response."""
        out: list[Chunk] = []
        if not self.metadata_sent:
            self.metadata_sent = True
            meta = {"id": response.get("responseId"), "modelId": response.get("modelVersion")}
            out.append(Chunk("response-metadata", {k: v for k, v in meta.items() if v}))
        if "usageMetadata" in response:
            self.usage_metadata = self.extra["usageMetadata"] = response["usageMetadata"]
        if response.get("promptFeedback") is not None:
            self.extra["promptFeedback"] = response["promptFeedback"]
        candidates = response.get("candidates") or ()
        if candidates:
            self._candidate(candidates[0], out)
        return out

    def _candidate(self, candidate: dict[str, Any], out: list[Chunk]) -> None:
        grounding = candidate.get("groundingMetadata")
        if grounding is not None:
            self.extra["groundingMetadata"] = grounding
            out.extend(self._sources(grounding))
        for key in ("urlContextMetadata", "safetyRatings", "finishMessage", "citationMetadata"):
            if candidate.get(key) is not None:
                self.extra[key] = candidate[key]
        for part in (candidate.get("content") or {}).get("parts") or ():
            out.extend(self._part(part))
        if candidate.get("finishReason") is not None:
            self.finish_raw = candidate["finishReason"]

    def _part(self, part: dict[str, Any]) -> list[Chunk]:
        if self.server_tools.waiting and "toolCall" not in part and "toolResponse" not in part:
            return self.server_tools.flush() + self._other_part(part)
        return self._other_part(part)

    def _other_part(self, part: dict[str, Any]) -> list[Chunk]:
        if "toolCall" in part:
            return self._close_all() + self.server_tools.call(part)
        if "toolResponse" in part:
            return self._close_all() + self.server_tools.response(part)
        meta = _signed(part.get("thoughtSignature"))
        if "functionCall" in part:
            return self._close_all() + self._function_call(part["functionCall"] or {}, meta)
        if "text" in part:
            return self._text(str(part.get("text") or ""), bool(part.get("thought")), meta)
        if "inlineData" in part:
            data = part["inlineData"] or {}
            payload = {"data": data.get("data", ""), "mimeType": data.get("mimeType", "")}
            if meta is not None:
                payload["providerMetadata"] = meta
            return [*self._close_all(), Chunk("file", payload)]
        if "executableCode" in part or "codeExecutionResult" in part:
            return self._close_all() + self._code(part)
        return []

    def _text(self, text: str, thought: bool, meta: dict[str, Any] | None) -> list[Chunk]:
        kind = "reasoning" if thought else "text"
        if meta is not None and kind in self.open:
            self.signatures[kind] = meta
        if not text:
            if meta is None or kind not in self.open:
                return []
            signed = {"id": self.open[kind], "text": "", "providerMetadata": meta}
            return [Chunk(f"{kind}-delta", signed)]
        out = self._close("text" if thought else "reasoning")
        if kind not in self.open:
            self.counter += 1
            self.open[kind] = str(self.counter)
            if meta is not None:
                self.signatures[kind] = meta
            out.append(Chunk(f"{kind}-start", {"id": self.open[kind]}))
        delta: dict[str, Any] = {"id": self.open[kind], "text": text}
        if meta is not None:
            delta["providerMetadata"] = meta
        out.append(Chunk(f"{kind}-delta", delta))
        return out

    def _function_call(self, call: dict[str, Any], meta: dict[str, Any] | None) -> list[Chunk]:
        name = call.get("name")
        partial = call.get("partialArgs")
        more = call.get("willContinue") is True
        if name is not None and (more or partial is not None):
            out = self._end_streaming(complete=True)
            self.streaming = _Call(str(call.get("id") or _new_id()), str(name), meta)
            out.append(self._tool_chunk("tool-call-input-streaming-start", self.streaming))
            return out + self._more_args(partial or [], more)
        if partial is not None or (name is None and "args" not in call):
            return self._more_args(partial or [], more)
        if name is None:
            return []
        whole = _Call(str(call.get("id") or _new_id()), str(name), meta)
        args = _arguments(call.get("args"))
        raw = args if isinstance(args, str) else None
        if isinstance(args, dict):
            whole.args.value = args
        return self._end_streaming(complete=True) + self._emit_call(whole, raw=raw)

    def _more_args(self, partial: list[Any], more: bool) -> list[Chunk]:
        call = self.streaming
        if call is None:
            return []
        call.args.add(partial)
        pieces_continue = any(isinstance(p, dict) and p.get("willContinue") for p in partial)
        if more or pieces_continue:
            return []
        return self._end_streaming(complete=True)

    def _end_streaming(self, *, complete: bool) -> list[Chunk]:
        call, self.streaming = self.streaming, None
        if call is None:
            return []
        if not complete:
            self.extra.setdefault("truncatedToolCalls", []).append(
                {"toolCallId": call.id, "toolName": call.name, "args": call.args.value}
            )
            return [self._tool_chunk("tool-call-input-streaming-end", call)]
        return self._emit_call(call, started=True)

    def _tool_chunk(self, kind: str, call: _Call, **extra: Any) -> Chunk:
        payload: dict[str, Any] = {"toolCallId": call.id, "toolName": call.name, **extra}
        if call.meta is not None:
            payload["providerMetadata"] = call.meta
        return Chunk(kind, payload)

    def _emit_call(
        self, call: _Call, *, started: bool = False, raw: str | None = None
    ) -> list[Chunk]:
        """The chunks of a complete call; ``raw`` is arguments text that is not a JSON object."""
        self.saw_tool_call = True
        out = [] if started else [self._tool_chunk("tool-call-input-streaming-start", call)]
        text = raw if raw is not None else json.dumps(call.args.value) if call.args.value else ""
        if text:
            out.append(self._tool_chunk("tool-call-delta", call, argsTextDelta=text))
        out.append(self._tool_chunk("tool-call-input-streaming-end", call))
        args: Any = raw if raw is not None else call.args.value
        out.append(self._tool_chunk("tool-call", call, args=args))
        return out

    def _code(self, part: dict[str, Any]) -> list[Chunk]:
        ids = {"toolName": "code_execution", "providerExecuted": True}
        if "executableCode" in part:
            self.code_call = _new_id()
            args = dict(part["executableCode"] or {})
            return [Chunk("tool-call", {"toolCallId": self.code_call, **ids, "args": args})]
        if self.code_call is None:
            return []
        result = dict(part["codeExecutionResult"] or {})
        call_id, self.code_call = self.code_call, None
        return [Chunk("tool-result", {"toolCallId": call_id, **ids, "result": result})]

    def _sources(self, grounding: dict[str, Any]) -> list[Chunk]:
        out: list[Chunk] = []
        for entry in grounding.get("groundingChunks") or ():
            for kind in ("web", "retrievedContext", "maps"):
                source = entry.get(kind) if isinstance(entry, dict) else None
                if not isinstance(source, dict):
                    continue
                uri = source.get("uri")
                if uri and uri not in self.sources:
                    self.sources.add(uri)
                    payload: dict[str, Any] = {"id": f"source-{len(self.sources)}"}
                    payload["sourceType"] = "url"
                    payload.update(url=uri, title=source.get("title"))
                    out.append(Chunk("source", payload))
        return out

    def _close(self, kind: str) -> list[Chunk]:
        part_id = self.open.pop(kind, None)
        if part_id is None:
            return []
        payload: dict[str, Any] = {"id": part_id}
        meta = self.signatures.pop(kind, None)
        if meta is not None:
            payload["providerMetadata"] = meta
        return [Chunk(f"{kind}-end", payload)]

    def _close_all(self) -> list[Chunk]:
        return self._close("reasoning") + self._close("text")

    def finish(self) -> list[Chunk]:
        """Close what is open and end with the ``finish`` chunk."""
        out = self._close_all() + self.server_tools.flush()
        out += self._end_streaming(complete=self.finish_raw not in (None, "MAX_TOKENS"))
        raw = self.finish_raw
        reason = finish_reason(raw, self.saw_tool_call)
        feedback = self.extra.get("promptFeedback") or {}
        if raw is None and feedback.get("blockReason"):
            raw = str(feedback["blockReason"])
            reason = "content-filter"
        meta = {"google": {"finishReason": self.finish_raw, **self.extra}}
        usage = Usage() if self.usage_metadata is None else usage_of(self.usage_metadata)
        out.append(finish_chunk(reason, usage, provider_metadata=meta, raw_reason=raw))
        return out


_PLAIN_CANDIDATE = frozenset(("content", "index"))


def _plain_text(response: dict[str, Any]) -> str | None:
    """The text of a response that is nothing but one text part (no thought, signature,
    finish, metadata or feedback): the usual streamed response, whose only chunk is a text
    delta. ``None`` (or ``""``) for any other response."""
    candidates = response.get("candidates")
    if not candidates or response.get("promptFeedback") is not None:
        return None
    candidate = candidates[0]
    if type(candidate) is not dict or not candidate.keys() <= _PLAIN_CANDIDATE:
        return None
    content = candidate.get("content")
    parts = content.get("parts") if type(content) is dict else None
    if type(parts) is not list or len(parts) != 1:
        return None
    part = parts[0]
    if type(part) is not dict or len(part) != 1:
        return None
    text = part.get("text")
    return text if type(text) is str else None


def _arguments(args: Any) -> dict[str, Any] | str:
    """A whole call's ``args``: an object, or text that does not parse as one."""
    if isinstance(args, str):
        try:
            parsed = json.loads(args) if args.strip() else {}
        except ValueError:
            return args
        return parsed if isinstance(parsed, dict) else args
    return args if isinstance(args, dict) else {}


def _new_id() -> str:
    return f"call_{uuid.uuid4().hex}"
