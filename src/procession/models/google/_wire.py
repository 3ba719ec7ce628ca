"""Reading a Gemini ``streamGenerateContent`` response body, and its errors.

With ``alt=sse`` each response is a Server-Sent Event (``data: {...}`` lines ending at a blank
line). Errors do not always follow that framing: an error that happens mid-stream (or a
server that ignores ``alt=sse``) arrives as bare JSON, on one line or pretty-printed over many,
or as a JSON array of responses. :class:`EventReader` finds every JSON object either way;
text that never becomes a complete JSON value is an error, not silence.
"""

from __future__ import annotations

import json
from typing import Any

from procession.errors import APICallError
from procession.models.google._errors import (
    google_error_body,
    retry_delay_of,
    status_of_google_error,
)

__all__ = ["EventReader", "error_from_body"]

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


class EventReader:
    """Every JSON object in the body, fed one line at a time: SSE ``data:`` events and bare
    JSON alike. :meth:`feed` returns the objects a line completes, :meth:`finish` those left
    when the body has ended (and the error, if text never became a complete JSON value)."""

    __slots__ = ("_bare", "_data")

    def __init__(self) -> None:
        self._data: list[str] = []
        self._bare = _BareJson()

    def feed(self, line: str) -> list[dict[str, Any]] | None:
        """The objects complete after ``line`` (``None`` for none yet)."""
        if line.startswith("data:"):
            self._data.append(line[5:])
            return None
        if not line.strip():
            data = self._data
            if not data:
                return None
            self._data = []
            return _objects(_parse("\n".join(data)))
        if not self._bare.text and line.startswith(_SSE_FIELDS):
            return None
        return [item for value in self._bare.feed(line) for item in _objects(value)]

    def finish(self) -> tuple[list[dict[str, Any]], APICallError | None]:
        """The objects of a last event without its blank line, and the error of bare text
        that never became a complete JSON value (``None`` if there is none)."""
        data, self._data = self._data, []
        objects = _objects(_parse("\n".join(data))) if data else []
        dangling = self._bare.text
        return objects, _malformed(dangling) if dangling.strip() else None


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
