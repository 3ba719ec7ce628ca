"""Answering with a run: the stream response, and cancelling the run when the client leaves.

A run is driven by the request's own task, and a small watcher task waits for the client's
``http.disconnect``: when it comes, the watcher cancels the request's task, which cancels the
run at once — the model call and any running tool, wherever the run was waiting (D32) — and
nothing is stored (D13). The cancellation is then absorbed: the client is gone, the server
goes on. A cancellation from outside (the server shutting down after its grace period)
propagates as usual.

The first chunk is read before the response starts: a run that fails before it began (a
malformed message, a thread of another resource, a bad option) answers with the status of
its error and a JSON body instead of a ``200`` stream that holds nothing but an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeVar

from procession.chunks import Chunk
from procession.server.encoding import dumps
from procession.server.errors import HTTPError, status_of
from procession.server.keep_alive import KeepAliveSend, keep_alive_of

__all__ = ["ClientGone", "RunStream", "StreamResponse", "json_response", "until_disconnect"]

logger = logging.getLogger("procession.server")

T = TypeVar("T")
Send = Callable[[Any], Awaitable[None]]
Receive = Callable[[], Awaitable[Any]]


class RunStream(Protocol):
    """What a stream response reads: an :class:`~procession.agent.AgentStream`, or a durable
    run's (:class:`~procession.server.durable.DurableStream`)."""

    @property
    def run_id(self) -> str:
        """The run's id."""
        ...

    def __aiter__(self) -> AsyncIterator[Chunk]:
        """The run's chunks."""
        ...

    async def result(self, *, raise_error: bool = True) -> Any:
        """The run's result (read after its chunks): its ``error`` is looked at, so it is
        called with ``raise_error=False``."""
        ...

    async def aclose(self) -> None:
        """The client is gone or the response ended."""
        ...


class ClientGone(Exception):  # noqa: N818 - an event, not an error
    """The client disconnected before the answer was complete."""


async def _watch(receive: Receive, task: asyncio.Task[Any], gone: asyncio.Event) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            gone.set()
            task.cancel()
            return


@contextlib.asynccontextmanager
async def _disconnect_cancels(receive: Receive) -> AsyncIterator[asyncio.Event]:
    """Cancel the current task when the client disconnects; raise :class:`ClientGone` then."""
    task = asyncio.current_task()
    assert task is not None
    gone = asyncio.Event()
    watcher = asyncio.create_task(_watch(receive, task, gone))
    try:
        yield gone
    except asyncio.CancelledError:
        if not gone.is_set():
            raise
        task.uncancel()
        raise ClientGone from None
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher


async def until_disconnect(receive: Receive, work: Awaitable[T]) -> T:
    """Await ``work``; cancel it and raise :class:`ClientGone` if the client leaves first."""
    async with _disconnect_cancels(receive):
        return await work


async def json_response(
    send: Send, status: int, body: Any, headers: Mapping[str, str] | None = None
) -> None:
    """Send a complete JSON response."""
    data = dumps(body)
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data, "more_body": False})


class StreamResponse:
    """An ASGI response streaming an :class:`AgentStream` through an encoder.

    Args:
        stream: The run.
        encode: The per-chunk encoder: bytes to send, or ``None`` to send nothing.
        close: The stream's last bytes, once the run ended.
        headers: The response headers.
        finish: Awaited once the run ended (the thread's lock is released there).
    """

    __slots__ = ("close", "encode", "finish", "headers", "stream")

    def __init__(
        self,
        stream: RunStream,
        encode: Callable[[Chunk], bytes | None],
        close: Callable[[], bytes],
        headers: Mapping[str, str],
        finish: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.finish = finish
        self.stream = stream
        self.encode = encode
        self.close = close
        self.headers = [(k.encode(), v.encode()) for k, v in headers.items()]

    async def __call__(self, scope: Any, receive: Receive, send: Send) -> None:
        """Run the stream until it ends or the client leaves."""
        quiet = KeepAliveSend(send, keep_alive_of(scope))
        try:
            async with _disconnect_cancels(receive):
                await self._respond(quiet)
        except ClientGone:
            logger.debug("client left; run %s cancelled", self.stream.run_id)
        finally:
            quiet.stop()
            try:
                await self.stream.aclose()
            finally:
                if self.finish is not None:
                    await self.finish()

    async def _respond(self, send: Send) -> None:
        chunks = aiter(self.stream)
        first = await anext(chunks, None)
        if first is not None and first.type == "error":
            error = (await self.stream.result(raise_error=False)).error
            failure = status_of(error) if error is not None else HTTPError(500, "run failed")
            await json_response(send, failure.status, failure.body(), failure.headers)
            return
        await send({"type": "http.response.start", "status": 200, "headers": self.headers})
        encode = self.encode
        if first is not None:
            await self._send(send, encode(first))
        try:
            async for chunk in chunks:
                data = encode(chunk)
                if data is not None:
                    await send({"type": "http.response.body", "body": data, "more_body": True})
        except Exception:  # an encoder bug must end the stream cleanly, not hang the client
            logger.exception("stream of run %s failed", self.stream.run_id)
        await send({"type": "http.response.body", "body": self.close(), "more_body": False})

    @staticmethod
    async def _send(send: Send, data: bytes | None) -> None:
        if data is not None:
            await send({"type": "http.response.body", "body": data, "more_body": True})
