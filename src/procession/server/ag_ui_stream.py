"""The AG-UI event stream (protocol 1.0): what ``@ag-ui/client``'s ``HttpAgent`` reads.

``POST /ag-ui/{agentId}`` answers ``text/event-stream``; each event is
``data: <AG-UI event JSON>\\n\\n`` (camelCase fields, ``type`` in SCREAMING_SNAKE_CASE), and
the stream ends after its terminal event (AG-UI has no ``[DONE]``). procession's chunks map
to events as follows (decision 0365):

=============================================  ================================================
procession chunk                               AG-UI events
=============================================  ================================================
(the first chunk, whatever it is)              ``RUN_STARTED`` (``threadId``, ``runId``,
                                               ``protocolVersion: "1.0"``) first
``step-start`` / ``step-finish``               ``STEP_STARTED`` / ``STEP_FINISHED``
                                               (``stepName``: ``step-0``, ``step-1``, ...)
``text-start`` / ``-delta`` / ``-end``         ``TEXT_MESSAGE_START`` (``role: "assistant"``)
                                               / ``_CONTENT`` / ``_END``; ``messageId`` is new
                                               and random for each text part
``reasoning-start`` / ``-delta`` / ``-end``    ``REASONING_START`` + ``REASONING_MESSAGE_START``
                                               / ``_CONTENT`` / ``REASONING_MESSAGE_END`` +
                                               ``REASONING_END``
``tool-call``                                  ``TOOL_CALL_START`` + ``TOOL_CALL_ARGS`` (the
                                               arguments as JSON text) + ``TOOL_CALL_END``
``tool-result`` / ``tool-error``               ``TOOL_CALL_RESULT`` (``content``: the result as
                                               JSON text, or the error's message)
``tool-output-denied``                         ``TOOL_CALL_RESULT`` saying it was declined
``tool-call-approval``                         ``CUSTOM`` ``procession:tool-call-approval``
``data-<name>-state``                          ``STATE_SNAPSHOT`` (``snapshot``: its data)
other ``data-*``                               ``CUSTOM`` (``name``: the chunk's type,
                                               ``value``: its data)
``tripwire``                                   ``RUN_ERROR`` (``code: "tripwire"``, the reason
                                               as ``message``, the processor in ``metadata``)
``error``                                      ``RUN_ERROR`` (``code``: the error's name)
``abort``                                      ``RUN_FINISHED`` with ``outcome: cancelled``
``finish``                                     ``RUN_FINISHED`` (``usage`` when known)
=============================================  ================================================

Tool arguments go out once, from the ``tool-call`` chunk, not as the model streamed them: the
chunk carries the arguments as the output processors left them. Everything else
(``response-metadata``, ``source``, ``file``, ``object``, argument deltas) is left out, and so
is anything after the terminal event. The protocol cannot take text back, so the route streams
with ``release="step"`` (D31): a rejected attempt never reaches the client.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from procession.chunks import Chunk
from procession.messages.message import new_id
from procession.server.encoding import dumps

__all__ = ["HEADERS", "PROTOCOL_VERSION", "AGUIEncoder"]

HEADERS = {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
}
"""The response headers of an AG-UI event stream."""

PROTOCOL_VERSION = "1.0"
"""The AG-UI protocol version the stream speaks, declared in ``RUN_STARTED``."""

_RUN_STARTED = {"type": "RUN_STARTED", "protocolVersion": PROTOCOL_VERSION}
_CONTENT = b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":'
_REASONING = b'data: {"type":"REASONING_MESSAGE_CONTENT","messageId":'
_DELTA = b',"delta":'
_END = b"}\n\n"


def _event(event: dict[str, Any]) -> bytes:
    return b"data: " + dumps(event) + b"\n\n"


def _now() -> int:
    """Milliseconds since the Unix epoch: the unit every AG-UI SDK uses for ``timestamp``."""
    return time.time_ns() // 1_000_000


def _message(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error.get("name") or "error")
    return str(error) if error is not None else "error"


def _json_text(value: Any) -> str:
    return value if isinstance(value, str) else dumps(value).decode()


def _usage(payload: dict[str, Any]) -> list[dict[str, int]] | None:
    usage = payload.get("output", {}).get("usage")
    if not isinstance(usage, dict):
        return None
    keys = ("inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens")
    counts = {k: usage[k] for k in keys if isinstance(usage.get(k), int) and usage[k] >= 0}
    return [counts] if counts else None


class AGUIEncoder:
    """Encodes one run's chunks as AG-UI events (one encoder per response).

    :meth:`encode` is the per-chunk call and returns the events' bytes, or ``None`` for a
    chunk the protocol has no place for; :meth:`close` returns the stream's last bytes (a
    terminal event when the run ended without one).

    Args:
        thread_id: The request's ``threadId``, echoed in ``RUN_STARTED`` and ``RUN_FINISHED``.
        run_id: The request's ``runId`` (the run's id), echoed the same way.
    """

    __slots__ = ("_ended", "_open", "_reasoning", "_run", "_started", "_step", "_steps", "_texts")

    def __init__(self, thread_id: str, run_id: str) -> None:
        self._run = {"threadId": thread_id, "runId": run_id}
        self._started = False
        self._ended = False
        self._steps = 0
        self._step: str | None = None
        self._texts: dict[str, tuple[str, bytes]] = {}
        """procession text id -> (AG-UI message id, the content event's prefix)."""
        self._reasoning: dict[str, tuple[str, bytes]] = {}
        self._open: str | None = None
        """The message id of the step's last text message (a tool call's parent)."""

    def encode(self, chunk: Chunk) -> bytes | None:
        """The events for ``chunk``."""
        if self._ended:
            return None
        kind = chunk.type
        if kind == "text-delta":  # the hot path: one dumps and a concatenation
            return self._delta(self._texts, chunk.payload, _CONTENT, "text-start")
        if not self._started:
            self._started = True
            start = _event({**_RUN_STARTED, **self._run, "timestamp": _now()})
            rest = self.encode(chunk)
            return start if rest is None else start + rest
        handler = _HANDLERS.get(kind)
        if handler is not None:
            return handler(self, chunk.payload)
        if kind.startswith("data-"):
            return self._data(chunk)
        return None

    def close(self) -> bytes:
        """The stream's last bytes: nothing after a terminal event, else ``RUN_ERROR`` (the
        run ended without ``finish``: the server cut the stream short)."""
        if self._ended:
            return b""
        prefix = b"" if self._started else _event({**_RUN_STARTED, **self._run})
        self._started = self._ended = True
        ended = {"type": "RUN_ERROR", "message": "The run ended early", "code": "incomplete"}
        return prefix + _event({**ended, "timestamp": _now()})

    # -- text and reasoning -------------------------------------------------------------

    def _delta(
        self,
        open_parts: dict[str, tuple[str, bytes]],
        payload: dict[str, Any],
        prefix: bytes,
        opener: str,
    ) -> bytes | None:
        text = payload.get("text")
        if not text or not isinstance(text, str):
            return None  # AG-UI refuses an empty delta
        part_id = payload.get("id", "")
        opened = open_parts.get(part_id)
        head = b""
        if opened is None:  # a delta without its start (or the run's first chunk): open it
            head = self.encode(Chunk(opener, {"id": part_id})) or b""
            opened = open_parts[part_id]
        return head + opened[1] + dumps(text) + _END

    def _text_start(self, payload: dict[str, Any]) -> bytes | None:
        message_id = new_id("msg")
        self._texts[payload.get("id", "")] = (message_id, _CONTENT + dumps(message_id) + _DELTA)
        self._open = message_id
        event = {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"}
        return _event(event)

    def _text_end(self, payload: dict[str, Any]) -> bytes | None:
        opened = self._texts.pop(payload.get("id", ""), None)
        if opened is None:
            return None
        return _event({"type": "TEXT_MESSAGE_END", "messageId": opened[0]})

    def _reasoning_start(self, payload: dict[str, Any]) -> bytes | None:
        message_id = new_id("msg")
        prefix = _REASONING + dumps(message_id) + _DELTA
        self._reasoning[payload.get("id", "")] = (message_id, prefix)
        return _event({"type": "REASONING_START", "messageId": message_id}) + _event(
            {"type": "REASONING_MESSAGE_START", "messageId": message_id, "role": "reasoning"}
        )

    def _reasoning_delta(self, payload: dict[str, Any]) -> bytes | None:
        return self._delta(self._reasoning, payload, _REASONING, "reasoning-start")

    def _reasoning_end(self, payload: dict[str, Any]) -> bytes | None:
        opened = self._reasoning.pop(payload.get("id", ""), None)
        if opened is None:
            return None
        message_id = opened[0]
        return _event({"type": "REASONING_MESSAGE_END", "messageId": message_id}) + _event(
            {"type": "REASONING_END", "messageId": message_id}
        )

    # -- steps, tools, data ---------------------------------------------------------------

    def _step_start(self, payload: dict[str, Any]) -> bytes | None:
        ended = self._step_finish(payload) or b""  # a step left open (never in step mode)
        self._step = f"step-{self._steps}"
        self._steps += 1
        self._open = None
        return ended + _event({"type": "STEP_STARTED", "stepName": self._step, "timestamp": _now()})

    def _step_finish(self, payload: dict[str, Any]) -> bytes | None:
        if self._step is None:
            return None
        closing = self._close_parts()
        name, self._step = self._step, None
        return closing + _event({"type": "STEP_FINISHED", "stepName": name, "timestamp": _now()})

    def _close_parts(self) -> bytes:
        """``*_END`` events for text and reasoning a step left open."""
        out = b""
        for text_id in list(self._texts):
            out += self._text_end({"id": text_id}) or b""
        for reasoning_id in list(self._reasoning):
            out += self._reasoning_end({"id": reasoning_id}) or b""
        return out

    def _tool_call(self, payload: dict[str, Any]) -> bytes | None:
        call_id = str(payload.get("toolCallId", ""))
        start: dict[str, Any] = {
            "type": "TOOL_CALL_START",
            "toolCallId": call_id,
            "toolCallName": str(payload.get("toolName", "")),
        }
        if self._open is not None:
            start["parentMessageId"] = self._open
        out = _event(start)
        args = _json_text(payload.get("args", {}))
        if args:
            out += _event({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": args})
        return out + _event({"type": "TOOL_CALL_END", "toolCallId": call_id})

    def _tool_result(self, payload: dict[str, Any]) -> bytes | None:
        return self._result(payload, _json_text(payload.get("result")))

    def _tool_error(self, payload: dict[str, Any]) -> bytes | None:
        return self._result(payload, _message(payload.get("error")))

    def _tool_denied(self, payload: dict[str, Any]) -> bytes | None:
        reason = payload.get("reason")
        said = f": {reason}" if isinstance(reason, str) and reason else ""
        return self._result(payload, f"The tool call was declined{said}")

    def _result(self, payload: dict[str, Any], content: str) -> bytes:
        event = {
            "type": "TOOL_CALL_RESULT",
            "messageId": new_id("msg"),
            "toolCallId": str(payload.get("toolCallId", "")),
            "content": content,
            "role": "tool",
        }
        return _event(event)

    def _approval(self, payload: dict[str, Any]) -> bytes | None:
        value = {k: payload.get(k) for k in ("toolCallId", "toolName", "args")}
        return _event({"type": "CUSTOM", "name": "procession:tool-call-approval", "value": value})

    def _data(self, chunk: Chunk) -> bytes:
        if chunk.type.endswith("-state"):
            return _event({"type": "STATE_SNAPSHOT", "snapshot": chunk.data})
        return _event({"type": "CUSTOM", "name": chunk.type, "value": chunk.data})

    # -- the end ----------------------------------------------------------------------------

    def _terminal(self, event: dict[str, Any]) -> bytes:
        """Mark the stream ended; before ``RUN_FINISHED``, the ends of what is still open
        (AG-UI refuses a finished run with an open message or step; after ``RUN_ERROR``
        open parts are expected)."""
        self._ended = True
        if event["type"] != "RUN_FINISHED":
            return b""
        return self._close_parts() + (self._step_finish({}) or b"")

    def _finish(self, payload: dict[str, Any]) -> bytes | None:
        event: dict[str, Any] = {"type": "RUN_FINISHED", **self._run, "timestamp": _now()}
        usage = _usage(payload)
        if usage is not None:
            event["usage"] = usage
        return self._terminal(event) + _event(event)

    def _abort(self, payload: dict[str, Any]) -> bytes | None:
        event = {"type": "RUN_FINISHED", **self._run, "outcome": {"type": "cancelled"}}
        return self._terminal(event) + _event({**event, "timestamp": _now()})

    def _tripwire(self, payload: dict[str, Any]) -> bytes | None:
        meta = {k: payload.get(k) for k in ("processorId", "retry", "metadata")}
        event = {
            "type": "RUN_ERROR",
            "message": str(payload.get("reason") or "The run was blocked"),
            "code": "tripwire",
            "metadata": {k: v for k, v in meta.items() if v is not None},
            "timestamp": _now(),
        }
        return self._terminal(event) + _event(event)

    def _error(self, payload: dict[str, Any]) -> bytes | None:
        error = payload.get("error")
        name = error.get("name") if isinstance(error, dict) else None
        event = {
            "type": "RUN_ERROR",
            "message": _message(error),
            "code": name if isinstance(name, str) and name else "error",
            "timestamp": _now(),
        }
        return self._terminal(event) + _event(event)


_Handler = Callable[[AGUIEncoder, dict[str, Any]], "bytes | None"]

_HANDLERS: dict[str, _Handler] = {
    "text-start": AGUIEncoder._text_start,
    "text-end": AGUIEncoder._text_end,
    "reasoning-start": AGUIEncoder._reasoning_start,
    "reasoning-delta": AGUIEncoder._reasoning_delta,
    "reasoning-end": AGUIEncoder._reasoning_end,
    "step-start": AGUIEncoder._step_start,
    "step-finish": AGUIEncoder._step_finish,
    "tool-call": AGUIEncoder._tool_call,
    "tool-result": AGUIEncoder._tool_result,
    "tool-error": AGUIEncoder._tool_error,
    "tool-output-denied": AGUIEncoder._tool_denied,
    "tool-call-approval": AGUIEncoder._approval,
    "finish": AGUIEncoder._finish,
    "abort": AGUIEncoder._abort,
    "tripwire": AGUIEncoder._tripwire,
    "error": AGUIEncoder._error,
}
