"""SSE comments on a quiet event stream, so proxies keep the connection open.

A run can stay silent for a long time after its ``start``: a reasoning model thinks before
its first token, a step is held until it is accepted (``release="step"``, D31), a tool call
waits for its approval. Proxies and load balancers close a response that sends nothing for
about a minute. :class:`KeepAliveSend` wraps an ASGI ``send`` of an event stream: once the
``200`` has gone out, a small task (one per response, never one per chunk) sends the comment
``: keep-alive`` after every ``interval`` seconds in which nothing else was sent. Clients
ignore comments (the SSE specification; Mastra's client reads only ``data:`` lines).

The wrapped ``send`` costs a chunk two attribute writes; a chunk that arrives while a comment
is being written waits for it, so two writes never interleave.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["DEFAULT_KEEP_ALIVE", "KEEP_ALIVE_COMMENT", "KeepAliveSend", "keep_alive_of"]

DEFAULT_KEEP_ALIVE = 15.0
"""Seconds of silence before a comment, unless ``ServerLimits.keep_alive`` says otherwise."""
KEEP_ALIVE_COMMENT = b": keep-alive\n\n"
"""The comment sent on a quiet stream."""

Send = Callable[[Any], Awaitable[None]]


def keep_alive_of(scope: Any) -> float:
    """The serving app's ``ServerLimits.keep_alive`` (the default outside a procession app)."""
    app = scope.get("app") if isinstance(scope, dict) else None
    served = getattr(getattr(app, "state", None), "procession", None)
    limits = getattr(served, "limits", None)
    value = getattr(limits, "keep_alive", DEFAULT_KEEP_ALIVE)
    return float(value)


class KeepAliveSend:
    """An ASGI ``send`` for an event stream that fills silences with SSE comments.

    Args:
        send: The server's ``send``.
        interval: Seconds of silence before a comment; ``0`` sends none.
    """

    __slots__ = ("_beat", "_interval", "_quiet", "_send", "_sending", "_writing")

    def __init__(self, send: Send, interval: float) -> None:
        self._send = send
        self._interval = interval
        self._quiet = False
        self._sending = False
        self._writing: asyncio.Future[None] | None = None
        self._beat: asyncio.Task[None] | None = None

    async def __call__(self, message: Any) -> None:
        """Send ``message``; a ``200`` start begins the beat, the last body ends it."""
        writing = self._writing
        if writing is not None:  # a comment is on its way: rare, wait for it
            await asyncio.shield(writing)
        self._quiet = False
        self._sending = True
        try:
            await self._send(message)
        finally:
            self._sending = False
        kind = message["type"]
        if kind == "http.response.start":
            if message.get("status") == 200 and self._interval > 0:
                self._beat = asyncio.ensure_future(self._beating())
        elif kind == "http.response.body" and not message.get("more_body", False):
            self.stop()

    def stop(self) -> None:
        """End the beat (the response ended, or the client left)."""
        beat, self._beat = self._beat, None
        if beat is not None:
            beat.cancel()

    async def _beating(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self._quiet = True
            await asyncio.sleep(self._interval)
            if not self._quiet or self._sending:
                continue
            writing = self._writing = loop.create_future()
            try:
                await self._send(
                    {"type": "http.response.body", "body": KEEP_ALIVE_COMMENT, "more_body": True}
                )
            except Exception:  # the client is gone: the response's own send will say so
                return
            finally:
                self._writing = None
                writing.set_result(None)
