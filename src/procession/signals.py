"""Cancellation: an ``AbortSignal`` a caller fires to stop a run.

A run given ``abort_signal=`` watches it: firing it cancels whatever the run is awaiting (the
model call, a tool, a processor hook) and the stream ends with an ``abort`` chunk.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

__all__ = ["AbortSignal"]


class AbortSignal:
    """A one-shot cancellation signal, like the web's ``AbortController``/``AbortSignal`` pair.

    Example:
        >>> signal = AbortSignal()
        >>> signal.aborted
        False
        >>> signal.abort("user left")
        >>> signal.aborted, signal.reason
        (True, 'user left')
    """

    __slots__ = ("_listeners", "aborted", "reason")

    def __init__(self) -> None:
        self.aborted = False
        self.reason: object = None
        self._listeners: list[Callable[[], object]] = []

    def abort(self, reason: object = "aborted") -> None:
        """Fire the signal (once; later calls do nothing)."""
        if self.aborted:
            return
        self.aborted = True
        self.reason = reason
        listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener()

    def add_listener(self, listener: Callable[[], object]) -> Callable[[], None]:
        """Call ``listener`` when the signal fires (at once if it already has).

        Returns a function that removes the listener.
        """
        if self.aborted:
            listener()
            return lambda: None
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    async def wait(self) -> None:
        """Wait until the signal fires."""
        if self.aborted:
            return
        event = asyncio.Event()
        remove = self.add_listener(event.set)
        try:
            await event.wait()
        finally:
            remove()

    def raise_if_aborted(self) -> None:
        """Raise ``asyncio.CancelledError`` if the signal has fired."""
        if self.aborted:
            raise asyncio.CancelledError(self.reason)
