"""The stream every provider adapter hands out: wire events in, procession chunks out.

:class:`ChunkStream` is the ``StreamResult.stream`` of the OpenAI, Anthropic and Gemini
adapters. It is a plain class, not an async generator: per event it awaits the source's
``__anext__`` once and calls the adapter's ``feed`` once, so the chunk the caller awaits is
one coroutine away from the SDK's own read. ``feed`` returns one :class:`Chunk` (the common
case, a text delta, needs no list), a list of chunks, or nothing for an event that makes
none; the chunks of a list are handed out one by one from a buffer. Each chunk passes
:func:`~procession.models.unicode.valid_chunk` first: lone surrogates become U+FFFD (D34).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from procession.chunks import Chunk
from procession.models._abort import AbortGuard
from procession.models.unicode import valid_chunk
from procession.signals import AbortSignal

__all__ = ["ChunkStream", "ChunksThenError", "Fed", "Feed"]

Fed = Chunk | list[Chunk] | None
"""What an adapter's ``feed`` makes of one event: one chunk, several, or none."""

Feed = Callable[[Any], Fed]
"""Turns one wire event into chunks (may raise the adapter's error for an error event)."""


class ChunksThenError(Exception):
    """Raised by ``feed`` or ``finish`` when an event ends the stream in an error after a few
    last chunks: :class:`ChunkStream` hands out ``chunks``, then raises ``error``."""

    def __init__(self, chunks: list[Chunk], error: BaseException) -> None:
        super().__init__(error)
        self.chunks = chunks
        self.error = error


class ChunkStream:
    """The chunks ``feed`` makes of ``next_event``'s events, then ``finish``'s closing chunks.

    Args:
        next_event: The source's ``__anext__`` (raises ``StopAsyncIteration`` at the end).
        feed: Makes the chunks of one event (it raises :class:`ChunksThenError` to end
            with an error after some).
        finish: Makes the closing chunks once the source has ended (it raises
            :class:`ChunksThenError` to end with an error after them).
        close: Closes the source (the HTTP response); awaited once, on :meth:`aclose`, at the
            end of the stream and on any error.
        abort_signal: Firing it interrupts the read in progress at once: the read raises
            ``asyncio.CancelledError(signal.reason)``, as under
            :class:`~procession.models._abort.cancel_on_abort`, with one listener for every read
            (:class:`~procession.models._abort.AbortGuard`).
        on_error: Maps an exception raised while *reading* the source to the error to raise
            instead (``None``: raise it as it is). What ``feed`` raises passes unchanged.
    """

    __slots__ = (
        "_close",
        "_closed",
        "_error",
        "_feed",
        "_finish",
        "_guard",
        "_next",
        "_on_error",
        "_pending",
    )

    def __init__(
        self,
        next_event: Callable[[], Awaitable[Any]],
        feed: Feed,
        finish: Callable[[], list[Chunk]],
        close: Callable[[], Awaitable[object]],
        *,
        abort_signal: AbortSignal | None,
        on_error: Callable[[BaseException], BaseException | None],
    ) -> None:
        self._next = next_event
        self._feed = feed
        self._finish = finish
        self._close = close
        self._on_error = on_error
        self._pending: list[Chunk] = []  # reversed: the next chunk is last
        self._closed = False
        self._error: BaseException | None = None  # raised once the last chunks are out
        self._guard = None if abort_signal is None else AbortGuard(abort_signal)

    @property
    def interrupts_on_abort(self) -> bool:
        """Whether firing the abort signal interrupts a read in progress (so the agent loop
        does not guard the reads a second time)."""
        return self._guard is not None

    def __aiter__(self) -> ChunkStream:
        return self

    async def __anext__(self) -> Chunk:
        pending = self._pending
        if pending:
            return pending.pop()
        if self._closed:
            error, self._error = self._error, None
            if error is not None:
                raise error
            raise StopAsyncIteration
        feed = self._feed
        while True:
            try:
                guard = self._guard
                if guard is None:
                    event = await self._next()
                else:
                    task = guard.start()
                    try:
                        event = await self._next()
                    finally:
                        guard.stop(task)
            except StopAsyncIteration:
                break
            except BaseException as exc:
                await self.aclose()
                mapped = self._on_error(exc)
                if mapped is None:
                    raise
                raise mapped from exc
            try:
                fed = feed(event)
            except ChunksThenError as end:
                await self.aclose()
                return self._then_raise(end)
            except BaseException:
                await self.aclose()
                raise
            if fed is None:
                continue
            if isinstance(fed, Chunk):
                return valid_chunk(fed)  # no lone surrogate reaches a hook (D34)
            if fed:
                return self._buffer(fed)
        return await self._end()

    def _buffer(self, chunks: list[Chunk]) -> Chunk:
        for chunk in chunks:
            valid_chunk(chunk)
        if len(chunks) > 1:
            chunks.reverse()
            self._pending = chunks
            return chunks.pop()
        return chunks[0]

    async def _end(self) -> Chunk:
        try:
            chunks = self._finish()
        except ChunksThenError as end:
            await self.aclose()
            return self._then_raise(end)
        except BaseException:
            await self.aclose()
            raise
        await self.aclose()
        if not chunks:
            raise StopAsyncIteration
        return self._buffer(chunks)

    def _then_raise(self, end: ChunksThenError) -> Chunk:
        """The first of ``end.chunks``; its error is raised once they are out (closed)."""
        if not end.chunks:
            raise end.error from end.error.__cause__
        self._error = end.error
        return self._buffer(end.chunks)

    def unread(self, chunk: Chunk) -> None:
        """Hand ``chunk`` out again before anything else (a chunk read ahead, such as the
        first one the retry layer waits for)."""
        self._pending.append(chunk)

    async def aclose(self) -> None:
        """Stop the stream and close the source (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._pending = []
        self._error = None
        if self._guard is not None:
            self._guard.close()
        await self._close()
