"""A whole JSON completion sent back to a streaming Chat Completions request.

Some compatible servers ignore ``"stream": true`` and answer ``application/json`` with the
complete ``chat.completion``. Read as an event stream it holds no event, which used to make
an empty, successful step with the finish reason ``unknown``. :func:`json_or_stream` reads
such an answer as the one stream event it amounts to (each choice's ``message`` as its
``delta``), and raises a clear :class:`~procession.errors.APICallError` for a JSON body that
is no completion.
"""

from __future__ import annotations

import json
from typing import Any

from procession.errors import APICallError

__all__ = ["json_or_stream"]


async def json_or_stream(sdk_stream: Any) -> Any:
    """``sdk_stream`` itself, or, for an ``application/json`` answer, a one-event stream."""
    response = sdk_stream.response
    kind = str(response.headers.get("content-type", "")).lower()
    if not kind.startswith("application/json"):
        return sdk_stream
    raw = await response.aread()
    await sdk_stream.close()
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list):
        text = raw[:300].decode("utf-8", "replace")
        raise APICallError(
            "the server answered a streaming chat completion with application/json that is "
            f"no chat completion: {text}",
            status_code=response.status_code,
            response_body=text,
            is_retryable=False,
        )
    return _OneEvent(response, _as_chunk(data, choices))


def _as_chunk(data: dict[str, Any], choices: list[Any]) -> dict[str, Any]:
    """The ``chat.completion.chunk`` a complete ``chat.completion`` amounts to."""
    deltas = []
    for position, choice in enumerate(choices):
        if not isinstance(choice, dict):
            continue
        message = dict(choice.get("message") or {})
        calls = message.get("tool_calls")
        if isinstance(calls, list):  # streamed tool calls carry their index
            message["tool_calls"] = [
                {**call, "index": index}
                for index, call in enumerate(calls)
                if isinstance(call, dict)
            ]
        deltas.append(
            {
                "index": choice.get("index", position),
                "delta": message,
                "finish_reason": choice.get("finish_reason"),
            }
        )
    return {**data, "object": "chat.completion.chunk", "choices": deltas}


class _OneEvent:
    """What the stream reader needs of an SDK stream, holding one event."""

    __slots__ = ("_event", "response")

    def __init__(self, response: Any, event: dict[str, Any]) -> None:
        self.response = response
        self._event: dict[str, Any] | None = event

    async def __anext__(self) -> dict[str, Any]:
        event, self._event = self._event, None
        if event is None:
            raise StopAsyncIteration
        return event

    async def close(self) -> None:
        self._event = None
