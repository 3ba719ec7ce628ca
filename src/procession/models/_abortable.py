"""Await provider I/O so that an :class:`~procession.signals.AbortSignal` can interrupt it.

Provider adapters read their SDK's stream through :class:`AbortWatch`: without a signal an
await is a plain await; with one, each await races the signal, and a fired signal cancels the
pending read and raises :class:`asyncio.CancelledError`, after which the adapter closes the
HTTP response in its ``finally``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from procession.signals import AbortSignal

__all__ = ["AbortWatch"]

T = TypeVar("T")


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class AbortWatch:
    """Races awaits against an optional abort signal; call :meth:`close` when done."""

    __slots__ = ("_fired", "_remove", "_signal")

    def __init__(self, signal: AbortSignal | None) -> None:
        self._signal = signal
        self._fired: asyncio.Future[None] | None = None
        self._remove: Callable[[], None] | None = None
        if signal is not None:
            fired: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._fired = fired
            self._remove = signal.add_listener(lambda: _settle(fired))

    async def run(self, awaitable: Awaitable[T]) -> T:
        """Await ``awaitable``, or cancel it and raise ``CancelledError`` if the signal fires."""
        if self._fired is None or self._signal is None:
            return await awaitable
        self._signal.raise_if_aborted()
        task = asyncio.ensure_future(awaitable)
        await asyncio.wait((task, self._fired), return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        raise asyncio.CancelledError(self._signal.reason)

    async def next(self, iterator: AsyncIterator[T]) -> T:
        """The next item of ``iterator`` (``StopAsyncIteration`` at its end)."""
        return await self.run(iterator.__anext__())

    def close(self) -> None:
        """Stop listening to the signal."""
        if self._remove is not None:
            self._remove()
            self._remove = None
