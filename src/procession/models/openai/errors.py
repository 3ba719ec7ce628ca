"""SDK exceptions to :class:`~procession.errors.APICallError`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from procession.errors import APICallError

__all__ = ["RETRYABLE_ERROR_CODES", "stream_error", "to_api_call_error"]

RETRYABLE_ERROR_CODES = frozenset(
    ("server_error", "rate_limit_exceeded", "overloaded_error", "service_unavailable")
)
"""Error ``type``/``code`` values of an in-stream error event worth another try."""


def to_api_call_error(exc: BaseException, *, request_body: object = None) -> APICallError | None:
    """The :class:`APICallError` for an ``openai`` SDK exception, or ``None`` for other ones."""
    import openai

    if not isinstance(exc, openai.APIError):
        return None
    url = str(exc.request.url)
    if isinstance(exc, openai.APIStatusError | openai.APIResponseValidationError):
        response = exc.response
        return APICallError(
            exc.message,
            status_code=exc.status_code,
            response_body=_body_text(exc.body, response),
            response_headers=dict(response.headers),
            url=url,
            request_body=request_body,
            data=exc.body,
            is_retryable=None if isinstance(exc, openai.APIStatusError) else False,
        )
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return APICallError(
            exc.message, is_retryable=True, url=url, request_body=request_body, data=None
        )
    return stream_error(exc.message, exc.body, url=url, request_body=request_body)


def stream_error(
    message: str, body: object, *, url: str | None = None, request_body: object = None
) -> APICallError:
    """An error reported inside a stream (HTTP 200): retryable only for server-side codes."""
    fields = body if isinstance(body, Mapping) else {}
    code = fields.get("code") or fields.get("type")
    return APICallError(
        message,
        response_body=json.dumps(body) if body is not None else None,
        is_retryable=code in RETRYABLE_ERROR_CODES,
        url=url,
        request_body=request_body,
        data=body,
    )


def _body_text(body: object, response: Any) -> str | None:
    try:
        text = response.text
    except Exception:  # the body of a streamed response may be unread
        text = None
    if isinstance(text, str) and text:
        return text
    return None if body is None else json.dumps(body)
