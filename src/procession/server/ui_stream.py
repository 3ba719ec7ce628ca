"""The AI SDK UI message stream (protocol ``v1``): what ``useChat`` reads.

``POST /chat/{agentId}`` answers ``text/event-stream`` with the header
``x-vercel-ai-ui-message-stream: v1``; each event is ``data: <UI chunk JSON>\\n\\n`` and the
stream ends with ``data: [DONE]\\n\\n``. procession's chunks map to UI chunks one to one or
not at all:

=============================================  ================================================
procession chunk                               UI message chunk
=============================================  ================================================
``start``                                      ``start`` (``messageId``: the stored response id)
``step-start`` / ``step-finish``               ``start-step`` / ``finish-step``
``step-finish`` of a rejected attempt (D2)     ``reset-step`` (live mode only; AI SDK ≥ 7);
                                               the retry's ``step-start`` is then left out
                                               (``reset-step`` keeps the step's start)
``text-*``, ``reasoning-*``                    ``text-*``, ``reasoning-*`` (``delta``)
``tool-call-input-streaming-start``            ``tool-input-start``
``tool-call-delta``                            ``tool-input-delta``
``tool-call``                                  ``tool-input-available``
``tool-result`` / ``tool-error``               ``tool-output-available`` / ``tool-output-error``
``tool-call-approval``                         ``tool-approval-request`` (``approvalId``: the call)
``tool-output-denied``                         ``tool-output-denied``
``source``, ``file``                           ``source-url`` or ``source-document``, ``file``
``data-*``                                     the same ``data-*`` chunk
``tripwire``                                   ``data-tripwire`` (as Mastra's AI SDK bridge)
``error``                                      ``error`` (``errorText``)
``abort``                                      ``abort``
``finish``                                     ``finish`` (``finishReason``)
=============================================  ================================================

Everything else (``response-metadata``, ``object``, ``text-end`` of nothing, ...) is not part
of the protocol and is left out. The protocol has no way to take text back except
``reset-step``, which only AI SDK 7 knows: so the route streams with ``release="step"``
(D31) unless the request asks for ``live``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from procession.chunks import Chunk
from procession.server.encoding import dumps

__all__ = ["DONE", "HEADERS", "UIStreamEncoder"]

DONE = b"data: [DONE]\n\n"
"""The event that ends an AI SDK UI message stream."""

HEADERS = {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
    "x-vercel-ai-ui-message-stream": "v1",
}
"""The response headers of an AI SDK UI message stream."""

_FINISH_REASONS = frozenset({"stop", "length", "content-filter", "tool-calls", "error", "other"})
_TERMINAL = frozenset({"finish", "error", "abort"})


def _event(ui: dict[str, Any]) -> bytes:
    return b"data: " + dumps(ui) + b"\n\n"


_START_STEP = _event({"type": "start-step"})


def _text(kind: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda p: {"type": kind, "id": p.get("id", "")}


def _delta(kind: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda p: {"type": kind, "id": p.get("id", ""), "delta": p.get("text", "")}


def _executed(ui: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    if payload.get("providerExecuted") is not None:
        ui["providerExecuted"] = bool(payload["providerExecuted"])
    return ui


def _tool_call(p: dict[str, Any]) -> dict[str, Any]:
    ui = {
        "type": "tool-input-available",
        "toolCallId": p["toolCallId"],
        "toolName": p["toolName"],
        "input": p.get("args", {}),
    }
    return _executed(ui, p)


def _tool_result(p: dict[str, Any]) -> dict[str, Any]:
    ui = {"type": "tool-output-available", "toolCallId": p["toolCallId"], "output": p.get("result")}
    return _executed(ui, p)


def _tool_error(p: dict[str, Any]) -> dict[str, Any]:
    return _executed(
        {
            "type": "tool-output-error",
            "toolCallId": p["toolCallId"],
            "errorText": _message(p.get("error")),
        },
        p,
    )


def _source(p: dict[str, Any]) -> dict[str, Any] | None:
    if p.get("sourceType", "url") == "url" and isinstance(p.get("url"), str):
        ui = {"type": "source-url", "sourceId": str(p.get("id", "")), "url": p["url"]}
        if isinstance(p.get("title"), str):
            ui["title"] = p["title"]
        return ui
    if p.get("sourceType") == "document":
        ui = {
            "type": "source-document",
            "sourceId": str(p.get("id", "")),
            "mediaType": str(p.get("mediaType", "")),
            "title": str(p.get("title", "")),
        }
        if isinstance(p.get("filename"), str):
            ui["filename"] = p["filename"]
        return ui
    return None


def _file(p: dict[str, Any]) -> dict[str, Any] | None:
    data, media = p.get("data"), p.get("mimeType", p.get("mediaType"))
    if not isinstance(data, str) or not isinstance(media, str):
        return None
    url = data if data.startswith(("data:", "http:", "https:")) else f"data:{media};base64,{data}"
    return {"type": "file", "url": url, "mediaType": media}


def _message(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error.get("name") or "error")
    return str(error) if error is not None else "error"


_SIMPLE: dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]] = {
    "text-start": _text("text-start"),
    "text-delta": _delta("text-delta"),
    "text-end": _text("text-end"),
    "reasoning-start": _text("reasoning-start"),
    "reasoning-delta": _delta("reasoning-delta"),
    "reasoning-end": _text("reasoning-end"),
    "tool-call-input-streaming-start": lambda p: {
        "type": "tool-input-start",
        "toolCallId": p["toolCallId"],
        "toolName": p["toolName"],
    },
    "tool-call-delta": lambda p: {
        "type": "tool-input-delta",
        "toolCallId": p["toolCallId"],
        "inputTextDelta": p.get("argsTextDelta", ""),
    },
    "tool-call": _tool_call,
    "tool-result": _tool_result,
    "tool-error": _tool_error,
    "source": _source,
    "file": _file,
    "tool-call-approval": lambda p: {
        "type": "tool-approval-request",
        "approvalId": p["toolCallId"],
        "toolCallId": p["toolCallId"],
    },
    "tool-output-denied": lambda p: {"type": "tool-output-denied", "toolCallId": p["toolCallId"]},
}


class UIStreamEncoder:
    """Encodes one run's chunks as UI message stream events (one encoder per response).

    :meth:`encode` is the per-chunk call and returns the event's bytes, or ``None`` for a
    chunk the protocol has no place for; :meth:`close` returns the stream's last bytes (a
    ``finish`` when the run ended without one, then ``[DONE]``).
    """

    __slots__ = ("_ended", "_reset")

    def __init__(self) -> None:
        self._ended = False
        self._reset = False
        """A ``reset-step`` was sent: the client's message keeps that step's ``step-start``."""

    def encode(self, chunk: Chunk) -> bytes | None:
        """The event for ``chunk``."""
        kind = chunk.type
        simple = _SIMPLE.get(kind)
        if simple is not None:
            ui = simple(chunk.payload)
            return None if ui is None else _event(ui)
        if kind.startswith("data-"):
            return _event(chunk.to_dict())
        return self._control(kind, chunk.payload)

    def _control(self, kind: str, payload: dict[str, Any]) -> bytes | None:
        if kind == "start":
            ui: dict[str, Any] = {"type": "start"}
            if isinstance(payload.get("messageId"), str):
                ui["messageId"] = payload["messageId"]
            return _event(ui)
        if kind == "step-start":
            if self._reset:  # the retry continues the step the client reset
                self._reset = False
                return None
            return _START_STEP
        if kind == "step-finish":
            self._reset = payload.get("stepResult", {}).get("reason") == "retry"
            return _event({"type": "reset-step" if self._reset else "finish-step"})
        if kind == "tripwire":
            data = {k: payload.get(k) for k in ("reason", "retry", "metadata", "processorId")}
            return _event({"type": "data-tripwire", "data": data})
        if kind in _TERMINAL:
            self._ended = True
            if kind == "error":
                return _event({"type": "error", "errorText": _message(payload.get("error"))})
            if kind == "abort":
                return _event({"type": "abort"})
            reason = payload.get("stepResult", {}).get("reason")
            finish: dict[str, Any] = {"type": "finish"}
            if reason in _FINISH_REASONS:
                finish["finishReason"] = reason
            return _event(finish)
        return None

    def close(self) -> bytes:
        """The stream's last bytes."""
        if self._ended:
            return DONE
        self._ended = True
        return _event({"type": "finish", "finishReason": "other"}) + DONE
