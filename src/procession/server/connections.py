"""Connection limits of :func:`~procession.server.serve`: header size, slow and idle
clients, and how many connections are held at once.

uvicorn bounds neither how long a client may take to send its headers nor (with
``httptools``) how large they may be, so a slowloris client holds a connection forever by
sending a header byte now and then. :func:`limited_protocol` returns uvicorn's HTTP
protocol with three checks added where the bytes arrive:

* the request's headers must be complete within ``header_timeout`` seconds of the
  connection opening (or of the previous response): else 408 and the connection closes;
* they must fit in ``max_header_bytes``: else 431 and the connection closes, before more
  is buffered;
* at most ``max_connections`` connections are open: a connection over the limit is closed
  at once (a request already admitted is answered 503 by uvicorn's ``limit_concurrency``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from procession._checks import check_int, wrong
from procession.server.encoding import dumps
from procession.server.errors import error_body

__all__ = ["ConnectionLimits", "limited_protocol"]

_END = (b"\r\n\r\n", b"\n\n")


@dataclass(frozen=True, slots=True, kw_only=True)
class ConnectionLimits:
    """What one client may hold of a server started by :func:`~procession.server.serve`.

    Attributes:
        max_header_bytes: The request line and headers, at most (431 past it; 16 KiB).
        header_timeout: Seconds a client has to send a request's headers (408 past it; 10).
        keep_alive_timeout: Seconds an idle keep-alive connection stays open (5).
        max_connections: Connections open at once; more are closed at once (1000).
        max_requests: Requests in progress at once; more get 503 (``None``: as many as
            ``max_connections``).
    """

    max_header_bytes: int = 16_384
    header_timeout: float = 10.0
    keep_alive_timeout: float = 5.0
    max_connections: int = 1000
    max_requests: int | None = None

    def __post_init__(self) -> None:
        check_int("ConnectionLimits.max_header_bytes", self.max_header_bytes, minimum=1024)
        check_int("ConnectionLimits.max_connections", self.max_connections, minimum=1)
        if self.max_requests is not None:
            check_int("ConnectionLimits.max_requests", self.max_requests, minimum=1)
        for name in ("header_timeout", "keep_alive_timeout"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise wrong(f"ConnectionLimits.{name}", value, "a positive number of seconds")

    def uvicorn_options(self) -> dict[str, Any]:
        """The options of ``uvicorn.Config`` these limits set."""
        return {
            "http": limited_protocol(self),
            "timeout_keep_alive": self.keep_alive_timeout,
            "limit_concurrency": self.max_requests or self.max_connections,
            "h11_max_incomplete_event_size": self.max_header_bytes,
        }


def _base() -> type[asyncio.Protocol]:
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        return HttpToolsProtocol
    except ImportError:  # pragma: no cover - httptools is not installed
        from uvicorn.protocols.http.h11_impl import H11Protocol

        return H11Protocol


def _answer(status: int, reason: str, message: str) -> bytes:
    body = dumps(error_body(message))
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


def limited_protocol(limits: ConnectionLimits) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class with ``limits`` enforced (module docs)."""
    base: Any = _base()
    too_large = _answer(
        431,
        "Request Header Fields Too Large",
        f"Request headers are larger than the limit of {limits.max_header_bytes} bytes",
    )
    too_slow = _answer(
        408,
        "Request Timeout",
        f"Request headers did not arrive within {limits.header_timeout:g} seconds",
    )

    class LimitedProtocol(base):  # type: ignore[misc]
        """uvicorn's protocol, with header size and time bounded."""

        refused = False
        waiting = True
        header_bytes = 0
        tail = b""
        deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            if len(self.connections) >= limits.max_connections:
                self.refused = True
                transport.abort()
                return
            super().connection_made(transport)
            self._expect_headers()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel()
            if not self.refused:
                super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self.waiting:
                seen = self.tail + data
                ends = [i for i in (seen.find(end) for end in _END) if i >= 0]
                used = (min(ends) if ends else len(seen)) - len(self.tail)
                self.header_bytes += max(used, 0)
                if self.header_bytes > limits.max_header_bytes:
                    self._close_with(too_large)
                    return
                if ends:
                    self.waiting = False
                    self._cancel()
                else:
                    self.tail = seen[-3:]
            super().data_received(data)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._expect_headers()

        def _expect_headers(self) -> None:
            self.waiting, self.header_bytes, self.tail = True, 0, b""
            self._cancel()
            self.deadline = self.loop.call_later(limits.header_timeout, self._too_slow)

        def _too_slow(self) -> None:
            self.deadline = None
            if self.waiting and not self.transport.is_closing():
                self._close_with(too_slow if self.header_bytes else b"")

        def _close_with(self, answer: bytes) -> None:
            self._cancel()
            self.waiting = False
            if answer:
                self.transport.write(answer)
            self.transport.close()

        def _cancel(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None

    return LimitedProtocol
