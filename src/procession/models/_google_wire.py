"""Reading a Gemini ``streamGenerateContent`` response body, and its errors.

With ``alt=sse`` each response is a Server-Sent Event (``data: {...}`` lines ending at a blank
line). Errors do not always follow that framing: an error that happens mid-stream (or a
server that ignores ``alt=sse``) arrives as bare JSON, on one line or pretty-printed over many,
or as a JSON array of responses. :func:`read_events` yields every JSON object either way;
text that never becomes a complete JSON value is an error, not silence.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

from procession.errors import APICallError
from procession.models._google_errors import (
    google_error_body,
    retry_delay_of,
    status_of_google_error,
)

__all__ = ["error_from_body", "read_events"]

_DECODER = json.JSONDecoder()
_SSE_FIELDS = ("event:", "id:", "retry:", ":")


class _BareJson:
    """Bare JSON text collected line by line: complete values are taken off the front."""

    __slots__ = ("text",)

    def __init__(self) -> None:
        self.text = ""

    def feed(self, line: str) -> list[Any]:
        self.text += line + "\n"
        values: list[Any] = []
        while True:
            text = self.text.lstrip(" \t\r\n[,]")
            if not text:
                self.text = ""
                return values
            try:
                value, end = _DECODER.raw_decode(text)
            except ValueError:
                self.text = text  # incomplete so far: wait for more lines
                return values
            self.text = text[end:]
            values.append(value)


def _objects(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, list):
        return [item for item in value if isinstance(item, dict)]
    return [value] if isinstance(value, dict) else []


def _malformed(text: str) -> APICallError:
    return APICallError(
        f"Gemini stream: a response that is not valid JSON: {text[:200]!r}",
        response_body=text,
        is_retryable=False,
    )


async def read_events(response: Any) -> AsyncGenerator[dict[str, Any], None]:
    """Every JSON object in the body: SSE ``data:`` events and bare JSON alike."""
    data: list[str] = []
    bare = _BareJson()
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            data.append(line[5:])
            continue
        if not line.strip():
            if data:
                for item in _objects(_parse("\n".join(data))):
                    yield item
                data = []
            continue
        if not bare.text and line.startswith(_SSE_FIELDS):
            continue
        for value in bare.feed(line):
            for item in _objects(value):
                yield item
    if data:
        for item in _objects(_parse("\n".join(data))):
            yield item
    if bare.text.strip():
        raise _malformed(bare.text)


def _parse(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise _malformed(text) from None


def error_from_body(
    body: object,
    *,
    status: int | None,
    text: str,
    headers: dict[str, str],
    url: str | None,
    request_body: object,
) -> APICallError:
    """An :class:`APICallError` from a Google error body (an HTTP error or a stream event)."""
    error = google_error_body(body)
    if status is None or status < 400:  # an error inside a 200 stream names its own code
        status = status_of_google_error(error) or 500
    message = (error or {}).get("message") or f"Gemini API error {status}"
    return APICallError(
        str(message),
        status_code=status,
        response_body=text,
        response_headers=headers,
        url=url,
        request_body=request_body,
        data=body,
        retry_after=retry_delay_of(error),
    )
