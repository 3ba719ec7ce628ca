"""The request body limits, enforced while the body arrives.

A declared ``Content-Length`` over the limit is refused before any of the body is read; a
chunked body is counted as it streams in and refused the moment it passes the limit. Either
way the answer is 413 with a JSON error, and the endpoint never sees the body. A body that
has not arrived in full ``timeout`` seconds after the app began reading it is 408 (a client
dripping its body holds no connection and task for longer).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from procession.server.encoding import dumps
from procession.server.errors import HTTPError, error_body

__all__ = ["BodyLimit"]

ASGIApp = Any


class BodyLimit:
    """ASGI middleware: request bodies of at most ``max_bytes``."""

    def __init__(self, app: ASGIApp, *, max_bytes: int, timeout: float = 30.0) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout = timeout

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Refuse a declared oversize body, count the rest."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await _too_large(send, self.max_bytes)
            return
        seen = 0
        limit, timeout = self.max_bytes, self.timeout
        deadline: float | None = None
        complete = False

        async def counted() -> Any:
            nonlocal seen, deadline, complete
            if complete:  # after the body: waiting for the disconnect, unbounded
                return await receive()
            now = time.monotonic()
            deadline = now + timeout if deadline is None else deadline
            try:
                message = await asyncio.wait_for(receive(), max(deadline - now, 0))
            except TimeoutError:
                raise HTTPError(408, f"Request body did not arrive within {timeout:g} s") from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise HTTPError(413, _message(limit))
                complete = not message.get("more_body", False)
            else:
                complete = True
            return message

        await self.app(scope, counted, send)


def _content_length(scope: Any) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _message(limit: int) -> str:
    return f"Request body is larger than the limit of {limit} bytes"


async def _too_large(send: Any, limit: int) -> None:
    body = dumps(error_body(_message(limit)))
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
