"""Google API error bodies (Gemini API, Vertex AI): status, message and retry delay.

An error is ``{"error": {"code": 429, "message": ..., "status": "RESOURCE_EXHAUSTED",
"details": [...]}}``, sometimes wrapped in a list (``streamGenerateContent`` answers with a
JSON array when it does not stream). A ``google.rpc.RetryInfo`` detail names how long to wait
(``"retryDelay": "34.4s"``, a protobuf ``Duration`` in its JSON form); that delay becomes
:attr:`~procession.errors.APICallError.retry_after`.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["google_error_body", "parse_duration", "retry_delay_of", "status_of_google_error"]

_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"
_DURATION = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*s\s*$")
_STATUS_BY_NAME = {
    "INVALID_ARGUMENT": 400,
    "FAILED_PRECONDITION": 400,
    "OUT_OF_RANGE": 400,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "ABORTED": 409,
    "ALREADY_EXISTS": 409,
    "RESOURCE_EXHAUSTED": 429,
    "CANCELLED": 499,
    "UNKNOWN": 500,
    "INTERNAL": 500,
    "DATA_LOSS": 500,
    "UNIMPLEMENTED": 501,
    "UNAVAILABLE": 503,
    "DEADLINE_EXCEEDED": 504,
}


def google_error_body(body: object) -> dict[str, Any] | None:
    """The ``error`` object of a Google error body (a dict, or a list holding one)."""
    if isinstance(body, list) and body:
        body = body[0]
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            return error
    return None


def status_of_google_error(error: dict[str, Any] | None) -> int | None:
    """The HTTP status of an error object: its ``code``, else what its ``status`` names."""
    if error is None:
        return None
    code = error.get("code")
    if isinstance(code, int) and not isinstance(code, bool) and code >= 400:
        return code
    return _STATUS_BY_NAME.get(str(error.get("status")))


def parse_duration(value: object) -> float | None:
    """Seconds in a protobuf ``Duration``: ``"34.4s"`` or ``{"seconds": 34, "nanos": ...}``."""
    if isinstance(value, str):
        match = _DURATION.match(value)
        return float(match.group(1)) if match else None
    if isinstance(value, dict):
        seconds = value.get("seconds", 0)
        nanos = value.get("nanos", 0)
        try:
            return float(seconds) + float(nanos) / 1e9
        except (TypeError, ValueError):
            return None
    return None


def retry_delay_of(error: dict[str, Any] | None) -> float | None:
    """The ``RetryInfo.retryDelay`` of an error object, in seconds, if it names one."""
    if error is None:
        return None
    for detail in error.get("details") or ():
        if isinstance(detail, dict) and detail.get("@type") == _RETRY_INFO:
            delay = parse_duration(detail.get("retryDelay"))
            if delay is not None and delay >= 0:
                return delay
    return None
