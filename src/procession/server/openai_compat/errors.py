"""The OpenAI error shape on the OpenAI-compatible routes.

Every error these routes answer is ``{"error": {"message", "type", "param", "code"}}``, the
shape the ``openai`` SDKs read (``APIStatusError.body``, ``.code``, ``.param``). The routes'
own errors are raised as :class:`OpenAIError`; the ones the app's shared layers answer first
(the ``Host``/``Origin`` guard, the body limit, a path that does not exist) are rewritten by
:class:`OpenAIErrorShape` on the way out, so a client sees one shape whatever refused it. A
malformed body is 400 (OpenAI's status for it), naming the field in ``param``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from starlette.requests import Request

from procession.errors import ProcessionError
from procession.server.encoding import dumps
from procession.server.errors import HTTPError, error_body, status_of

__all__ = [
    "PREFIX",
    "OpenAIError",
    "OpenAIErrorShape",
    "error_body_for",
    "invalid",
    "openai_error",
    "openai_endpoint",
]

logger = logging.getLogger("procession.server")

PREFIX = "/v1/"
"""The path prefix of the OpenAI-compatible routes (relative to where the app is mounted)."""

_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "invalid_request_error",
    408: "timeout_error",
    409: "conflict_error",
    413: "invalid_request_error",
    415: "invalid_request_error",
    429: "rate_limit_error",
}
_CODES = {401: "invalid_api_key", 413: "request_too_large", 415: "unsupported_media_type"}


def openai_error(
    status: int, message: str, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """The body ``{"error": {"message", "type", "param", "code"}}`` of an error."""
    kind = _TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {
        "error": {
            "message": message,
            "type": kind,
            "param": param,
            "code": code if code is not None else _CODES.get(status),
        }
    }


class OpenAIError(HTTPError):
    """An error answered in the OpenAI shape.

    Attributes:
        param: The request field that was wrong (``messages[0].content``), if one was.
        code: OpenAI's error code (``model_not_found``, ``unsupported_parameter``), if any.
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(status, message, headers=headers)
        self.param = param
        self.code = code

    def body(self) -> dict[str, Any]:
        """The JSON body, OpenAI's shape."""
        return openai_error(self.status, self.message, self.param, self.code)

    @classmethod
    def of(cls, error: HTTPError) -> OpenAIError:
        """``error`` in this shape: a 422 becomes OpenAI's 400, naming its first field."""
        if isinstance(error, OpenAIError):
            return error
        param = error.issues[0]["field"] if error.issues else None
        status = 400 if error.status == 422 else error.status
        code = "model_not_found" if error.status == 404 and "Agent" in error.message else None
        return cls(status, error.message, param=param, code=code, headers=error.headers)


def invalid(param: str, message: str, code: str | None = None) -> OpenAIError:
    """A 400 naming the field ``param``."""
    return OpenAIError(400, f"Invalid request: {param}: {message}", param=param, code=code)


Endpoint = Callable[[Request], Awaitable[Any]]


def openai_endpoint(endpoint: Endpoint) -> Endpoint:
    """``endpoint`` with every error it raises answered in the OpenAI shape."""

    @functools.wraps(endpoint)
    async def wrapped(request: Request) -> Any:
        try:
            return await endpoint(request)
        except HTTPError as exc:
            raise OpenAIError.of(exc) from None
        except ProcessionError as exc:
            raise OpenAIError.of(status_of(exc)) from None

    return wrapped


ASGIApp = Any


class OpenAIErrorShape:
    """ASGI middleware: an error answered on a ``/v1/`` path by another layer (the guard,
    the body limit, a missing route) is rewritten in the OpenAI shape. Other paths and
    successful answers pass untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Pass the request on; reshape a JSON error answered on a ``/v1/`` path."""
        if scope["type"] != "http" or not _route_path(scope).startswith(PREFIX):
            await self.app(scope, receive, send)
            return
        held: list[Any] = []

        async def reshaping(message: Any) -> None:
            if held:  # an error's body: gathered, then sent reshaped
                held.append(message)
                if not message.get("more_body", False):
                    await _send_reshaped(send, held)
                return
            if message["type"] == "http.response.start" and message["status"] >= 400:
                held.append(message)
                return
            await send(message)

        await self.app(scope, receive, reshaping)


def error_body_for(scope: Any, status: int, message: str) -> dict[str, Any]:
    """The error body a layer in front of the app answers with: OpenAI's shape on a
    ``/v1/`` path, ``{"error": message}`` elsewhere."""
    if _route_path(scope).startswith(PREFIX):
        return openai_error(status, message)
    return error_body(message)


def _route_path(scope: Any) -> str:
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


async def _send_reshaped(send: Any, held: list[Any]) -> None:
    start, parts = held[0], held[1:]
    body = b"".join(m.get("body", b"") for m in parts)
    status = start["status"]
    try:
        data = orjson.loads(body) if body else {}
    except orjson.JSONDecodeError:
        data = {"error": body.decode("utf-8", "replace")}
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        issues = data.get("issues") if isinstance(data, dict) else None
        param = issues[0].get("field") if isinstance(issues, list) and issues else None
        message = str(error) if error is not None else f"HTTP {status}"
        if status == 422:
            status = 400
        body = dumps(openai_error(status, message, param))
    headers = [
        (k, v) for k, v in start.get("headers", []) if k not in (b"content-length", b"content-type")
    ]
    headers += [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
