"""``POST /v1/chat/completions``: a run as a ``chat.completion``, or streamed as
``chat.completion.chunk`` events.

======================  ===========================================================
procession chunk        chat.completion.chunk
======================  ===========================================================
``start``               ``delta: {"role": "assistant", "content": ""}``
``text-delta``          ``delta: {"content": ...}``
``reasoning-delta``     ``delta: {"reasoning_content": ...}`` (read by Open WebUI and
                        other OpenAI-compatible clients; the official API sends none)
``tripwire``            ``delta: {"refusal": reason}``, then ``finish_reason:
                        "content_filter"``
``finish``              ``finish_reason`` (``stop``, ``length``, ``content_filter``)
``error``               ``data: {"error": {...}}``: the SDKs raise ``APIError``
tools, steps, data      nothing: the agent runs its own tools
======================  ===========================================================

With ``stream_options.include_usage`` a last chunk with empty ``choices`` carries the run's
usage; then ``data: [DONE]``.
"""

from __future__ import annotations

import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from procession.chunks import Chunk
from procession.results import AgentResult
from procession.server.encoding import dumps
from procession.server.openai_compat.bodies import ChatCompletionBody, parse_openai_body
from procession.server.openai_compat.errors import openai_endpoint, openai_error
from procession.server.openai_compat.messages import chat_messages
from procession.server.openai_compat.run import prepare, request_json, respond_stream, run_to_end
from procession.server.openai_compat.usage import (
    chat_usage,
    finish_reason,
    refusal_text,
    usage_of,
)

__all__ = ["ChatStreamEncoder", "chat_completion", "chat_completions"]

DONE = b"data: [DONE]\n\n"


class ChatStreamEncoder:
    """Encodes one run's chunks as ``chat.completion.chunk`` events (one per response).

    The bytes around a delta are built once, so a text delta costs one ``dumps`` of its
    text and a join.
    """

    __slots__ = (
        "_choice",
        "_head",
        "_include_usage",
        "_reason",
        "_started",
        "_state",
        "_text",
        "_usage",
    )

    _TAIL = b',"logprobs":null,"finish_reason":null}]}\n\n'
    _TEXT_TAIL = b"}" + _TAIL

    def __init__(self, completion_id: str, model: str, created: int, include_usage: bool) -> None:
        self._head = (
            b'data: {"id":'
            + dumps(completion_id)
            + b',"object":"chat.completion.chunk","created":'
            + str(created).encode()
            + b',"model":'
            + dumps(model)
            + b',"system_fingerprint":null'
        )
        self._choice = self._head + b',"choices":[{"index":0,"delta":'
        self._text = self._choice + b'{"content":'
        self._include_usage = include_usage
        self._started = False
        self._reason: str | None = None
        """The finish reason once the run ended (``None`` while it runs)."""
        self._state = "open"
        self._usage: Any = None

    def _delta(self, delta: dict[str, Any]) -> bytes:
        if not self._started:
            self._started = True
            delta = {"role": "assistant", **delta}
        return self._choice + dumps(delta) + self._TAIL

    def encode(self, chunk: Chunk) -> bytes | None:
        """The event for ``chunk``, or ``None``."""
        kind = chunk.type
        if kind == "text-delta":
            text = chunk.payload.get("text")
            if not text:
                return None
            if self._started:
                return self._text + dumps(text) + self._TEXT_TAIL
            return self._delta({"content": text})
        if kind == "start":
            return None if self._started else self._delta({"content": ""})
        if kind == "reasoning-delta":
            text = chunk.payload.get("text")
            return self._delta({"reasoning_content": text}) if text else None
        return self._control(kind, chunk.payload)

    def _control(self, kind: str, payload: dict[str, Any]) -> bytes | None:
        if self._state != "open":
            return None
        if kind == "tripwire":
            self._state = "ended"
            self._reason = "content_filter"
            return self._delta({"refusal": refusal_text(payload)}) + self._finish()
        if kind == "finish":
            self._state = "ended"
            self._reason = finish_reason((payload.get("stepResult") or {}).get("reason"))
            self._usage = (payload.get("output") or {}).get("usage")
            return self._finish()
        if kind == "error":
            self._state = "failed"
            error = payload.get("error")
            message = error.get("message") if isinstance(error, dict) else str(error)
            return b"data: " + dumps(openai_error(500, str(message or "run failed"))) + b"\n\n"
        if kind == "abort":
            self._state = "ended"
            self._reason = "stop"
            return self._finish()
        return None

    def _finish(self) -> bytes:
        tail = b',"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":'
        return self._head + tail + dumps(self._reason) + b"}]}\n\n"

    def close(self) -> bytes:
        """The last bytes: a finish when none went out, the usage chunk when asked, [DONE]."""
        out = b""
        if self._state == "open":
            self._state = "ended"
            self._reason = "stop"
            out = self._finish()
        if self._include_usage and self._state == "ended":
            usage = dumps(chat_usage(usage_of(self._usage)))
            out += self._head + b',"choices":[],"usage":' + usage + b"}\n\n"
        return out + DONE


def chat_completion(
    completion_id: str, model: str, created: int, result: AgentResult
) -> dict[str, Any]:
    """The ``chat.completion`` object of a finished run."""
    message: dict[str, Any] = {"role": "assistant", "content": result.text, "refusal": None}
    reason = finish_reason(result.finish_reason)
    if result.tripwire is not None:
        message["content"] = result.text or None
        message["refusal"] = refusal_text(result.tripwire)
        reason = "content_filter"
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "system_fingerprint": None,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": reason}],
        "usage": chat_usage(result.usage),
    }


@openai_endpoint
async def chat_completions(request: Request) -> Any:
    """``POST /v1/chat/completions``: the agent named by ``model`` answers ``messages``."""
    state, data = await request_json(request)
    body = parse_openai_body(ChatCompletionBody, data)
    messages = chat_messages(body.messages)
    max_tokens = body.max_completion_tokens or body.max_tokens
    turn = prepare(state, request, body, messages, max_tokens=max_tokens)
    created = int(time.time())
    if body.stream:
        include = bool(body.stream_options and body.stream_options.include_usage)
        encoder = ChatStreamEncoder(f"chatcmpl-{turn.run_id}", turn.model, created, include)
        return await respond_stream(state, turn, encoder.encode, encoder.close)
    result = await run_to_end(request, state, turn)
    if isinstance(result, Response):
        return result
    completion_id = f"chatcmpl-{turn.run_id}"
    return Response(
        dumps(chat_completion(completion_id, turn.model, created, result)),
        media_type="application/json",
    )
