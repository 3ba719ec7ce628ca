"""Small deterministic summaries of procession objects, in the oracle's trace vocabulary.

The oracle (``lib/summarize.mjs``) turns Mastra chunks, stored messages and prompts into small
JSON summaries; this module does the same for procession's objects so that the two traces
compare field by field. Random ids are replaced by ``<idN>`` in order of first appearance;
timestamps, provider metadata and raw usage are dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from procession import Chunk, Message
from procession.chunks import Usage
from procession.messages.message import SystemMessage
from procession.messages.parts import (
    DataPart,
    ErrorPart,
    ReasoningPart,
    StepStartPart,
    TextPart,
    ToolInvocationPart,
)

__all__ = [
    "IdNormalizer",
    "chunk_summary",
    "clean",
    "compact_json",
    "error_summary",
    "message_summary",
    "prompt_summary",
    "usage_summary",
]

# Mastra's random ids are UUIDs; procession's are ``run_<hex>``/``msg_<hex>`` (and the response
# message id is ``<run id>-response``).
_ID_RE = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|\b(?:run|msg)_[0-9a-f]{12,}(?:-response)?",
    re.IGNORECASE,
)
_DROP_KEYS = frozenset(
    (
        "createdAt",
        "timestamp",
        "startedAt",
        "updatedAt",
        "providerOptions",
        "providerMetadata",
        "raw",
    )
)


class IdNormalizer:
    """Replaces random ids by ``<idN>``, numbered in order of first appearance."""

    def __init__(self) -> None:
        self._map: dict[str, str] = {}

    def norm(self, value: Any) -> Any:
        """``value`` with every random id replaced (non-strings unchanged)."""
        if not isinstance(value, str):
            return value

        def swap(match: re.Match[str]) -> str:
            found = match.group(0)
            if found not in self._map:
                self._map[found] = f"<id{len(self._map) + 1}>"
            return self._map[found]

        return _ID_RE.sub(swap, value)


def clean(value: Any, ids: IdNormalizer | None = None, depth: int = 0) -> Any:
    """A plain-JSON deep copy without time-like keys, with ids normalised."""
    if depth > 12:
        return "<deep>"
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, BaseException):
        return error_summary(value, ids)
    if isinstance(value, str):
        return ids.norm(value) if ids else value
    if isinstance(value, list | tuple):
        return [clean(v, ids, depth + 1) for v in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in _DROP_KEYS or callable(item):
                continue
            cleaned = clean(item, ids, depth + 1)
            if cleaned is not None or item is None:
                out[str(key)] = cleaned
        return out
    dump: Callable[..., Any] | None = getattr(value, "model_dump", None)
    if dump is not None:
        return clean(dump(), ids, depth + 1)
    return repr(value)


def error_summary(error: Any, ids: IdNormalizer | None = None) -> dict[str, Any]:
    """``{name, message, statusCode?}`` of an exception or of an error chunk's data (D33), or
    ``{message}`` of anything else."""
    if isinstance(error, dict) and isinstance(error.get("name"), str):
        data: dict[str, Any] = {"name": error["name"]}
        message = str(error.get("message", ""))
        data["message"] = ids.norm(message) if ids else message
        if error.get("statusCode") is not None:
            data["statusCode"] = error["statusCode"]
        return data
    if not isinstance(error, BaseException):
        return {"message": str(error)}
    message = str(getattr(error, "message", None) or error)
    out: dict[str, Any] = {
        "name": type(error).__name__,
        "message": ids.norm(message) if ids else message,
    }
    status = getattr(error, "status_code", None)
    if status is not None:
        out["statusCode"] = status
    return out


def usage_summary(usage: Usage | dict[str, Any] | None) -> dict[str, int] | None:
    """The token counts that are known."""
    if usage is None:
        return None
    wire: dict[str, Any] = usage.to_dict() if isinstance(usage, Usage) else usage
    keys = ("inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens")
    return {k: int(wire[k]) for k in keys if wire.get(k) is not None}


def _tool_names(calls: Any) -> list[Any]:
    names = []
    for call in calls or ():
        if isinstance(call, dict):
            names.append(call.get("toolName") or (call.get("payload") or {}).get("toolName"))
        else:
            names.append(getattr(call, "tool_name", None))
    return names


def chunk_summary(chunk: Chunk, ids: IdNormalizer) -> dict[str, Any]:
    """The chunk's type plus its key payload fields (``chunkSummary`` of the oracle)."""
    kind = chunk.type
    p = chunk.payload
    if kind in ("start", "step-start"):
        return {"type": kind, "messageId": ids.norm(p.get("messageId"))}
    if kind in ("text-start", "text-end", "reasoning-start", "reasoning-end"):
        return {"type": kind, "id": ids.norm(p.get("id"))}
    if kind in ("text-delta", "reasoning-delta"):
        return {"type": kind, "id": ids.norm(p.get("id")), "text": p.get("text")}
    if kind == "tool-call":
        return {
            "type": kind,
            "toolCallId": p.get("toolCallId"),
            "toolName": p.get("toolName"),
            "args": clean(p.get("args"), ids),
        }
    if kind == "tool-result":
        out: dict[str, Any] = {
            "type": kind,
            "toolCallId": p.get("toolCallId"),
            "toolName": p.get("toolName"),
            "result": clean(p.get("result"), ids),
        }
        if p.get("isError"):
            out["isError"] = True
        return out
    if kind == "tool-error":
        return {
            "type": kind,
            "toolCallId": p.get("toolCallId"),
            "toolName": p.get("toolName"),
            "error": error_summary(p.get("error"), ids),
        }
    if kind in (
        "tool-call-input-streaming-start",
        "tool-call-input-streaming-end",
        "tool-call-delta",
    ):
        return {"type": kind, "toolCallId": p.get("toolCallId"), "toolName": p.get("toolName")}
    if kind == "response-metadata":
        return {"type": kind, "id": p.get("id"), "modelId": p.get("modelId")}
    if kind in ("step-finish", "finish"):
        step = p.get("stepResult") or {}
        output = p.get("output") or {}
        out = {
            "type": kind,
            "reason": step.get("reason"),
            "isContinued": step.get("isContinued"),
            "text": output.get("text"),
            "toolCalls": _tool_names(output.get("toolCalls")),
            "usage": usage_summary(output.get("usage")),
        }
        if p.get("processorRetryCount") is not None:
            out["processorRetryCount"] = p["processorRetryCount"]
        return {k: v for k, v in out.items() if v is not None}
    if kind == "tripwire":
        return {
            "type": kind,
            "reason": p.get("reason"),
            "retry": p.get("retry"),
            "metadata": clean(p.get("metadata"), ids),
            "processorId": p.get("processorId"),
        }
    if kind == "error":
        return {"type": kind, "error": error_summary(p.get("error"), ids)}
    if kind == "abort":
        return {"type": kind}
    if kind.startswith("data-"):
        out = {"type": kind, "data": clean(chunk.data, ids)}
        if chunk.transient:
            out["transient"] = True
        if chunk.id is not None:
            out["id"] = ids.norm(chunk.id)
        return out
    return {"type": kind, "payloadKeys": sorted(p)}


def _part_summary(part: Any, ids: IdNormalizer) -> Any:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ReasoningPart):
        return {"type": "reasoning", "text": part.reasoning}
    if isinstance(part, StepStartPart):
        return "step-start"
    if isinstance(part, ToolInvocationPart):
        inv = part.tool_invocation
        out: dict[str, Any] = {
            "type": "tool",
            "state": inv.state,
            "toolCallId": inv.tool_call_id,
            "toolName": inv.tool_name,
            "args": clean(inv.args, ids),
        }
        if inv.result is not None:
            out["result"] = clean(inv.result, ids)
        return out
    if isinstance(part, DataPart):
        return {"type": part.type, "data": clean(part.data, ids)}
    if isinstance(part, ErrorPart):
        return {"type": "error", "error": clean(part.error, ids)}
    return {"type": getattr(part, "type", "?")}


def message_summary(message: Message | SystemMessage | dict[str, Any], ids: IdNormalizer) -> Any:
    """``{role, parts, metadata?}`` of a stored message; ``{role, content}`` of a system one."""
    if isinstance(message, SystemMessage):
        return {"role": "system", "content": message.content}
    if isinstance(message, dict):
        content = message.get("content")
        return {"role": message.get("role"), "content": clean(content, ids)}
    out: dict[str, Any] = {
        "role": message.role,
        "parts": [_part_summary(p, ids) for p in message.content.parts],
    }
    if message.content.metadata:
        out["metadata"] = clean(message.content.metadata, ids)
    return out


def _prompt_part(part: dict[str, Any], ids: IdNormalizer) -> Any:
    kind = part.get("type")
    if kind == "text":
        return part.get("text")
    if kind == "reasoning":
        return {"type": "reasoning", "text": part.get("text")}
    if kind == "tool-call":
        return {
            "type": "tool-call",
            "toolCallId": part.get("toolCallId"),
            "toolName": part.get("toolName"),
            "input": clean(part.get("input", part.get("args")), ids),
        }
    if kind == "tool-result":
        return {
            "type": "tool-result",
            "toolCallId": part.get("toolCallId"),
            "toolName": part.get("toolName"),
            "output": clean(part.get("output", part.get("result")), ids),
        }
    return {"type": kind}


def prompt_summary(prompt: list[dict[str, Any]], ids: IdNormalizer) -> list[dict[str, Any]]:
    """``{role, content}`` per prompt message, text parts as plain strings."""
    out = []
    for message in prompt:
        content = message.get("content")
        if isinstance(content, str):
            out.append({"role": message.get("role"), "content": content})
        else:
            parts = [_prompt_part(p, ids) for p in content or ()]
            out.append({"role": message.get("role"), "content": parts})
    return out


def compact_json(value: Any, width: int = 120, indent: str = "") -> str:
    """JSON with small values on one line and larger ones expanded (``stringifyCompact``)."""
    flat = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if len(flat) + len(indent) <= width or not isinstance(value, dict | list):
        return flat
    inner = indent + "  "
    if isinstance(value, list):
        if not value:
            return "[]"
        items = ",\n".join(inner + compact_json(v, width, inner) for v in value)
        return "[\n" + items + "\n" + indent + "]"
    if not value:
        return "{}"
    entries = ",\n".join(
        inner + json.dumps(k, ensure_ascii=False) + ": " + compact_json(v, width, inner)
        for k, v in value.items()
    )
    return "{\n" + entries + "\n" + indent + "}"
