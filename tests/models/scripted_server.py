"""A small HTTP/1.1 server on 127.0.0.1 that replays scripted replies and records requests.

Tests start one per test (``async with ScriptedServer() as server``), queue :class:`Reply`
objects, point a real SDK client at ``server.url`` and then look at ``server.requests``.
Replies are either JSON (any status), a Server-Sent Events stream whose events may be spaced
out by ``delay``, or recorded wire bytes (``raw``: written piece by piece, as they were framed,
with any content type); ``server.disconnected`` is set when a client hangs up before a stream
ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["Received", "Reply", "ScriptedServer", "SseEvent"]

_REASONS = {
    200: "OK",
    400: "Bad Request",
    403: "Forbidden",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
    529: "Overloaded",
}


@dataclass(slots=True)
class SseEvent:
    """One Server-Sent Event: an optional ``event:`` name and a JSON ``data:`` payload."""

    data: Any
    event: str | None = None

    def encode(self) -> bytes:
        lines = [f"event: {self.event}"] if self.event else []
        lines.append(f"data: {json.dumps(self.data)}")
        return ("\n".join(lines) + "\n\n").encode()


@dataclass(slots=True)
class Reply:
    """One scripted response: ``events`` make an SSE stream, otherwise ``body`` is JSON."""

    status: int = 200
    events: list[SseEvent] = field(default_factory=list)
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before each event."""
    raw: list[bytes] = field(default_factory=list)
    """Recorded wire bytes, written in these pieces (instead of ``events`` or ``body``)."""
    content_type: str = "text/event-stream"
    """The content type of a ``raw`` reply."""


@dataclass(slots=True)
class Received:
    """A request the server received."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    """The JSON body (``None`` when there was none), else the form fields of a form body."""
    raw_body: bytes = b""


class ScriptedServer:
    """Replays queued :class:`Reply` objects in order, one per request."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Received] = []
        self.disconnected = asyncio.Event()
        self.url = ""
        self._server: asyncio.Server | None = None

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next requests."""
        self.replies.extend(replies)

    async def __aenter__(self) -> ScriptedServer:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._serve(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            self.disconnected.set()
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        request_line, *header_lines = head.strip("\r\n").split("\r\n")
        method, target, _ = request_line.split(" ", 2)
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        url = urlsplit(target)
        body: Any = None
        if raw:
            form = "x-www-form-urlencoded" in headers.get("content-type", "")
            body = parse_qs(raw.decode()) if form else json.loads(raw)
        self.requests.append(Received(method, url.path, parse_qs(url.query), headers, body, raw))
        reply = self.replies.popleft() if self.replies else Reply(404, body={"error": "no reply"})
        if reply.events or reply.raw:
            await self._stream(reply, reader, writer)
        else:
            self._write_json(reply, writer)
            await writer.drain()

    @staticmethod
    def _status_line(reply: Reply, content_type: str, extra: str = "") -> bytes:
        reason = _REASONS.get(reply.status, "Status")
        lines = [f"HTTP/1.1 {reply.status} {reason}", f"content-type: {content_type}"]
        lines += [f"{k}: {v}" for k, v in reply.headers.items()]
        lines += ["connection: close"]
        if extra:
            lines.append(extra)
        return ("\r\n".join(lines) + "\r\n\r\n").encode()

    def _write_json(self, reply: Reply, writer: asyncio.StreamWriter) -> None:
        payload = json.dumps(reply.body).encode()
        writer.write(
            self._status_line(reply, "application/json", f"content-length: {len(payload)}")
        )
        writer.write(payload)

    async def _stream(
        self, reply: Reply, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        watcher = asyncio.ensure_future(reader.read(1))
        content_type = reply.content_type if reply.raw else "text/event-stream"
        writer.write(self._status_line(reply, content_type))
        await writer.drain()
        pieces = reply.raw or [event.encode() for event in reply.events]
        try:
            for piece in pieces:
                if reply.delay:
                    await asyncio.wait((watcher,), timeout=reply.delay)
                if watcher.done():
                    self.disconnected.set()
                    return
                writer.write(piece)
                await writer.drain()
        finally:
            watcher.cancel()
