"""SDK exceptions and in-stream error events to :class:`~procession.errors.APICallError`.

An error that arrives inside a stream (the HTTP status was 200) carries a code instead of a
status. OpenRouter's codes are HTTP statuses (``{"code": 502}``); OpenAI and most compatible
servers use names (``"rate_limit_exceeded"``, ``"server_error"``). Either way the error gets
the status its code stands for, so error processors and retries treat a mid-stream 429 like a
refused one; a code nobody knows keeps the stream's own status, 200, and is not retried.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from procession.errors import APICallError

__all__ = ["ERROR_CODE_STATUS", "RETRYABLE_ERROR_CODES", "stream_error", "to_api_call_error"]

ERROR_CODE_STATUS: Mapping[str, int] = {
    "bad_request": 400,
    "invalid_request_error": 400,
    "invalid_prompt": 400,
    "context_length_exceeded": 400,
    "string_above_max_length": 400,
    "content_filter": 400,
    "authentication_error": 401,
    "invalid_api_key": 401,
    "insufficient_credits": 402,
    "payment_required": 402,
    "permission_error": 403,
    "permission_denied": 403,
    "not_found_error": 404,
    "model_not_found": 404,
    "timeout": 408,
    "request_timeout": 408,
    "conflict": 409,
    "rate_limit_exceeded": 429,
    "rate_limit_error": 429,
    "too_many_requests": 429,
    "insufficient_quota": 429,
    "tokens": 429,
    "requests": 429,
    "server_error": 500,
    "internal_server_error": 500,
    "internal_error": 500,
    "api_error": 500,
    "bad_gateway": 502,
    "service_unavailable": 503,
    "server_overloaded": 503,
    "overloaded": 503,
    "overloaded_error": 503,
    "model_overloaded": 503,
    "gateway_timeout": 504,
}
"""The HTTP status each in-stream error ``code`` (or ``type``) stands for."""

NOT_RETRYABLE_CODES = frozenset(("insufficient_quota",))
"""Codes whose status would be retried but which no retry can fix (the quota is spent)."""

RETRYABLE_ERROR_CODES = (
    frozenset(
        code
        for code, status in ERROR_CODE_STATUS.items()
        if status in (408, 409, 429) or status >= 500
    )
    - NOT_RETRYABLE_CODES
)
"""In-stream error codes worth another try."""

_STREAM_STATUS = 200


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
    # An error event inside a 200 stream: the SDK raises it with the event's ``error`` object.
    return stream_error(exc.message, exc.body, url=url, request_body=request_body)


def stream_error(
    message: str | None, body: object, *, url: str | None = None, request_body: object = None
) -> APICallError:
    """An error reported inside a stream, from its error object (nested or not).

    ``body`` may be the error object itself (``{"code", "message", "type", ...}``) or an
    event holding it under ``error`` (``{"type": "error", "error": {...}}``).
    """
    fields = _error_object(body)
    text = message or _text(fields.get("message")) or "error event in the stream"
    status, retryable = error_code_status(fields)
    return APICallError(
        text,
        status_code=status,
        response_body=json.dumps(body) if body is not None else None,
        is_retryable=retryable,
        url=url,
        request_body=request_body,
        data=body,
    )


def error_code_status(fields: Mapping[str, Any]) -> tuple[int, bool]:
    """The status an error object's ``code`` (else ``status``, else ``type``) stands for,
    and whether it is worth a retry."""
    for key in ("code", "status", "type"):
        value = fields.get(key)
        status = _status_of(value)
        if status is not None:
            retryable = status in (408, 409, 429) or status >= 500
            if isinstance(value, str) and value.lower() in NOT_RETRYABLE_CODES:
                retryable = False
            return status, retryable
    return _STREAM_STATUS, False


def _status_of(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 400 <= value <= 599 else None
    if isinstance(value, str):
        if value.isdigit():
            return _status_of(int(value))
        return ERROR_CODE_STATUS.get(value.lower())
    return None


def _error_object(body: object) -> Mapping[str, Any]:
    if not isinstance(body, Mapping):
        return {}
    inner = body.get("error")
    if isinstance(inner, Mapping):
        return inner
    return body


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _body_text(body: object, response: Any) -> str | None:
    try:
        text = response.text
    except Exception:  # the body of a streamed response may be unread
        text = None
    if isinstance(text, str) and text:
        return text
    return None if body is None else json.dumps(body)
