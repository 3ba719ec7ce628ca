"""``anthropic`` SDK and transport exceptions to :class:`~procession.errors.APICallError`.

The same mapping serves the Anthropic API, Bedrock and Vertex, whose error bodies differ:

* Anthropic: ``{"type": "error", "error": {"type": "overloaded_error", "message": ...}}``,
  also sent mid-stream as an ``error`` event inside a 200 response;
* Bedrock: ``{"message": ...}`` on HTTP errors, and event-stream exception frames that the
  SDK turns into ``{"type": "error", "error": {"type": "throttlingException", ...}}``;
* Vertex: Google's ``{"error": {"code": 429, "message": ..., "details": [...]}}`` (sometimes
  inside a list), whose ``RetryInfo.retryDelay`` becomes :attr:`APICallError.retry_after`.

A mid-stream error carries no HTTP status of its own, so the status is read from the error
type (``overloaded_error`` is 529, ``throttlingException`` 429, ...).
"""

from __future__ import annotations

import json
from typing import Any

from procession.errors import APICallError
from procession.models.google._errors import google_error_body, retry_delay_of

__all__ = ["is_transport_error", "status_of_type", "to_api_call_error"]

_STATUS_BY_TYPE = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
    # Bedrock's InvokeModelWithResponseStream exceptions, compared in lower case.
    "validationexception": 400,
    "accessdeniedexception": 403,
    "resourcenotfoundexception": 404,
    "modeltimeoutexception": 408,
    "modelerrorexception": 424,
    "modelstreamerrorexception": 424,
    "throttlingexception": 429,
    "modelnotreadyexception": 429,
    "servicequotaexceededexception": 429,
    "internalserverexception": 500,
    "serviceunavailableexception": 503,
}


def status_of_type(error_type: object) -> int | None:
    """The HTTP status an Anthropic error type or a Bedrock exception name stands for."""
    if not isinstance(error_type, str):
        return None
    return _STATUS_BY_TYPE.get(error_type) or _STATUS_BY_TYPE.get(error_type.lower())


def _error_object(body: object) -> dict[str, Any]:
    if isinstance(body, list) and body and isinstance(body[0], dict):
        body = body[0]
    if isinstance(body, dict):
        error = body.get("error")
        return error if isinstance(error, dict) else body
    return {}


def _message_of(body: object, fallback: str) -> str:
    message = _error_object(body).get("message")
    return str(message) if message else fallback


def _body_text(body: object) -> str | None:
    if body is None or isinstance(body, str):
        return body
    return json.dumps(body)


def to_api_call_error(exc: BaseException, request_body: object = None) -> APICallError:
    """Map an ``anthropic`` SDK, ``httpx2`` or stream-decoding exception to APICallError."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        response = exc.response
        body = exc.body
        status: int | None = response.status_code
        if status is None or status < 400:  # an error event inside a 200 stream
            status = status_of_type(_error_object(body).get("type")) or 500
        return APICallError(
            _message_of(body, str(exc)),
            status_code=status,
            response_body=_body_text(body),
            response_headers=dict(response.headers),
            url=str(response.request.url),
            request_body=request_body,
            data=body,
            retry_after=retry_delay_of(google_error_body(body)),
        )
    request = getattr(exc, "request", None)
    url = str(request.url) if request is not None else None
    retryable = is_transport_error(exc)
    kind = "transport" if retryable else "stream"
    return APICallError(
        f"Anthropic {kind} error: {exc!r}",
        url=url,
        request_body=request_body,
        is_retryable=retryable,
    )


def is_transport_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a connection-level failure (worth retrying)."""
    import anthropic
    import httpx2

    return isinstance(
        exc,
        anthropic.APIConnectionError | httpx2.TransportError | httpx2.StreamError,
    )
