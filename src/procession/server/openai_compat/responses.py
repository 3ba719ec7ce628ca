"""``POST /v1/responses``: a run as a Responses API ``response``, or streamed as its events.

Streaming sends ``response.created`` and ``response.in_progress``; then, once the run has
text, ``response.output_item.added`` (one assistant ``message``), ``response.content_part.added``
and a ``response.output_text.delta`` per text delta; at the end the ``...done`` events and
``response.completed`` with the usage. A tripwire adds a ``refusal`` content part
(``response.refusal.delta`` / ``.done``) and ends with ``response.incomplete``
(``incomplete_details.reason: "content_filter"``); the step budget or ``max_output_tokens``
running out also ends ``incomplete``; a failed run ends with ``response.failed``. Every event
carries its ``sequence_number``. ``previous_response_id`` is refused (decision 0356): nothing
is stored per response; a thread (``metadata.thread_id``) keeps a conversation.
"""

from __future__ import annotations

import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from procession.chunks import Chunk, Usage
from procession.results import AgentResult
from procession.server.encoding import dumps
from procession.server.openai_compat.bodies import ResponsesBody, parse_openai_body
from procession.server.openai_compat.errors import openai_endpoint
from procession.server.openai_compat.messages import response_input
from procession.server.openai_compat.run import prepare, request_json, respond_stream, run_to_end
from procession.server.openai_compat.usage import (
    finish_reason,
    refusal_text,
    response_usage,
    usage_of,
)

__all__ = ["ResponseEvents", "ResponseShape", "create_response", "response_object"]


class ResponseShape:
    """What every ``response`` object of one request repeats."""

    __slots__ = ("created", "fields", "message_id", "response_id")

    def __init__(self, response_id: str, message_id: str, created: int, body: ResponsesBody):
        self.response_id, self.message_id, self.created = response_id, message_id, created
        self.fields: dict[str, Any] = {
            "model": body.model,
            "instructions": body.instructions,
            "metadata": body.metadata or {},
            "temperature": body.temperature,
            "top_p": body.top_p,
            "max_output_tokens": body.max_output_tokens,
            "parallel_tool_calls": False,
            "tool_choice": "none",
            "tools": [],
            "text": {"format": {"type": "text"}},
        }

    def response(
        self,
        status: str,
        parts: list[dict[str, Any]] | None = None,
        usage: Usage | None = None,
        *,
        incomplete: str | None = None,
        error: str | None = None,
    ) -> dict[str, Any]:
        """The ``response`` object in ``status`` with the message of ``parts``."""
        output: list[dict[str, Any]] = []
        if parts:
            output.append(self.message(parts, "completed"))
        return {
            "id": self.response_id,
            "object": "response",
            "created_at": self.created,
            "status": status,
            "error": {"code": "server_error", "message": error} if error is not None else None,
            "incomplete_details": {"reason": incomplete} if incomplete is not None else None,
            "output": output,
            "usage": response_usage(usage) if usage is not None else None,
            **self.fields,
        }

    def message(self, parts: list[dict[str, Any]], status: str) -> dict[str, Any]:
        """The assistant message output item."""
        return {
            "type": "message",
            "id": self.message_id,
            "status": status,
            "role": "assistant",
            "content": parts,
        }


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def _end(reason: str | None) -> tuple[str, str | None]:
    """The response's status and ``incomplete_details.reason`` for a finish reason."""
    if reason == "length":
        return "incomplete", "max_output_tokens"
    if reason == "content_filter":
        return "incomplete", "content_filter"
    return "completed", None


class ResponseEvents:
    """Encodes one run's chunks as Responses API stream events (one per response)."""

    __slots__ = ("_delta_head", "_done", "_opened", "_parts", "_seq", "_shape", "_texts", "_usage")

    def __init__(self, shape: ResponseShape) -> None:
        self._shape = shape
        self._seq = 0
        self._texts: list[str] | None = None
        """The text deltas of the open output_text part (``None`` before the first)."""
        self._parts: list[dict[str, Any]] = []
        self._done = False
        self._opened = False
        """``response.created`` went out (at ``start``, or before the first other event)."""
        self._usage: Any = None
        item = dumps(shape.message_id)
        self._delta_head = (
            b'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",'
            b'"item_id":' + item + b',"output_index":0,"content_index":0,"logprobs":[],"delta":'
        )

    def _event(self, kind: str, fields: dict[str, Any]) -> bytes:
        self._seq += 1
        data = dumps({"type": kind, "sequence_number": self._seq - 1, **fields})
        return b"event: " + kind.encode() + b"\ndata: " + data + b"\n\n"

    def _item(self, index: int, **fields: Any) -> dict[str, Any]:
        return {
            "item_id": self._shape.message_id,
            "output_index": 0,
            "content_index": index,
            **fields,
        }

    def encode(self, chunk: Chunk) -> bytes | None:
        """The events for ``chunk``, or ``None``."""
        kind = chunk.type
        if kind == "text-delta":
            text = chunk.payload.get("text")
            if not text or self._done:
                return None
            out = b"" if self._texts is not None else self._open() + self._open_text()
            self._texts.append(text)  # type: ignore[union-attr]
            self._seq += 1
            seq = str(self._seq - 1).encode()
            return out + self._delta_head + dumps(text) + b',"sequence_number":' + seq + b"}\n\n"
        if kind == "start":
            return self._open()
        if self._done:
            return None
        if kind == "tripwire":
            return self._refuse(refusal_text(chunk.payload))
        if kind == "finish":
            self._usage = (chunk.payload.get("output") or {}).get("usage")
            return self._finish(
                finish_reason((chunk.payload.get("stepResult") or {}).get("reason"))
            )
        if kind == "error":
            error = chunk.payload.get("error")
            message = error.get("message") if isinstance(error, dict) else str(error)
            return self._fail(str(message or "run failed"))
        if kind == "abort":
            return self._finish("stop")
        return None

    def _open(self) -> bytes:
        if self._opened:
            return b""
        self._opened = True
        created = self._shape.response("in_progress")
        return self._event("response.created", {"response": created}) + self._event(
            "response.in_progress", {"response": created}
        )

    def _open_text(self) -> bytes:
        self._texts = []
        item = self._shape.message([], "in_progress")
        return self._event("response.output_item.added", {"output_index": 0, "item": item}) + (
            self._event("response.content_part.added", self._item(0, part=_text_part("")))
        )

    def _close_text(self) -> bytes:
        if self._texts is None:
            return b""
        text = "".join(self._texts)
        part = _text_part(text)
        self._parts.append(part)
        index = len(self._parts) - 1
        return self._event(
            "response.output_text.done", self._item(index, text=text, logprobs=[])
        ) + self._event("response.content_part.done", self._item(index, part=part))

    def _refuse(self, reason: str) -> bytes:
        out = self._open() + self._close_text()
        if self._texts is None:
            item = self._shape.message([], "in_progress")
            out += self._event("response.output_item.added", {"output_index": 0, "item": item})
        index = len(self._parts)
        part = {"type": "refusal", "refusal": reason}
        out += self._event(
            "response.content_part.added", self._item(index, part={**part, "refusal": ""})
        )
        out += self._event("response.refusal.delta", self._item(index, delta=reason))
        out += self._event("response.refusal.done", self._item(index, refusal=reason))
        out += self._event("response.content_part.done", self._item(index, part=part))
        self._parts.append(part)
        self._texts = []  # the message item is open: closed by _finish
        return out + self._finish("content_filter", text_closed=True)

    def _finish(self, reason: str, *, text_closed: bool = False) -> bytes:
        out = self._open() + (b"" if text_closed else self._close_text())
        self._done = True
        if self._parts:
            item = self._shape.message(self._parts, "completed")
            out += self._event("response.output_item.done", {"output_index": 0, "item": item})
        status, incomplete = _end(reason)
        done = self._shape.response(
            status, self._parts, usage_of(self._usage), incomplete=incomplete
        )
        kind = "response.completed" if status == "completed" else "response.incomplete"
        return out + self._event(kind, {"response": done})

    def _fail(self, message: str) -> bytes:
        out = self._open()
        self._done = True
        failed = self._shape.response("failed", self._parts, error=message)
        return out + self._event("response.failed", {"response": failed})

    def close(self) -> bytes:
        """The last events: the end of a run that sent none."""
        return b"" if self._done else self._finish("stop")


def response_object(shape: ResponseShape, result: AgentResult) -> dict[str, Any]:
    """The ``response`` object of a finished run."""
    parts = [_text_part(result.text)] if result.text else []
    reason = finish_reason(result.finish_reason)
    if result.tripwire is not None:
        parts.append({"type": "refusal", "refusal": refusal_text(result.tripwire)})
        reason = "content_filter"
    status, incomplete = _end(reason)
    return shape.response(status, parts, result.usage, incomplete=incomplete)


@openai_endpoint
async def create_response(request: Request) -> Any:
    """``POST /v1/responses``: the agent named by ``model`` answers ``input``."""
    state, data = await request_json(request)
    body = parse_openai_body(ResponsesBody, data)
    messages = response_input(body.input)
    turn = prepare(
        state,
        request,
        body,
        messages,
        max_tokens=body.max_output_tokens,
        system=body.instructions,
    )
    hexa = turn.run_id.partition("_")[2] or turn.run_id
    shape = ResponseShape(f"resp_{hexa}", f"msg_{hexa}", int(time.time()), body)
    if body.stream:
        events = ResponseEvents(shape)
        return await respond_stream(state, turn, events.encode, events.close)
    result = await run_to_end(request, state, turn)
    if isinstance(result, Response):
        return result
    return Response(dumps(response_object(shape, result)), media_type="application/json")
