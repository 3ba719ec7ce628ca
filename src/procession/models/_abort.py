"""Tie an :class:`~procession.signals.AbortSignal` to the awaits of a model call.

Used by provider adapters (around the request and each chunk read) and by the retry layer
(around the back-off sleep): while the block runs, firing the signal cancels the current task,
so whatever it awaits (a socket read, a sleep) is interrupted at once and its cleanup runs.
The block then raises ``asyncio.CancelledError(signal.reason)`` with the task's cancellation
request withdrawn, exactly as :meth:`AbortSignal.raise_if_aborted` would.

It is a plain class, not ``@contextmanager``; without a signal entering and leaving costs two
attribute checks. For many awaits in a row (every chunk read of a stream) :class:`AbortGuard`
does the same with one listener for all of them.
"""

from __future__ import annotations

import asyncio
from types import TracebackType

from procession.signals import AbortSignal

__all__ = ["AbortGuard", "cancel_on_abort"]


class cancel_on_abort:  # noqa: N801 - used like a function: ``with cancel_on_abort(signal):``
    """Cancel the current task if ``signal`` fires while the block runs."""

    __slots__ = ("_fired", "_remove", "_signal", "_task")

    def __init__(self, signal: AbortSignal | None) -> None:
        self._signal = signal
        self._fired = False
        self._task: asyncio.Task[object] | None = None
        self._remove: object = None

    def __enter__(self) -> None:
        signal = self._signal
        if signal is None:
            return
        signal.raise_if_aborted()
        task = asyncio.current_task()
        if task is None:  # pragma: no cover - always inside a task under asyncio
            return
        self._task = task
        self._remove = signal.add_listener(self._on_abort)

    def _on_abort(self) -> None:
        self._fired = True
        if self._task is not None:
            self._task.cancel()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._signal is None:
            return
        remove = self._remove
        if callable(remove):
            remove()
        if self._fired and self._task is not None:
            self._task.uncancel()
            raise asyncio.CancelledError(self._signal.reason) from None


class AbortGuard:
    """:class:`cancel_on_abort` for many awaits in a row, with one listener on ``signal``.

    Around each guarded await::

        task = guard.start()  # raises CancelledError(reason) if the signal has fired
        try:
            value = await ...
        finally:
            guard.stop(task)  # raises CancelledError(reason) if it fired meanwhile

    The signal firing while an await is guarded cancels the task awaiting (and ``stop`` turns
    that into ``asyncio.CancelledError(signal.reason)``, the task's cancellation request
    withdrawn); firing between awaits makes the next ``start`` raise. :meth:`close` removes
    the listener.
    """

    __slots__ = ("_fired", "_remove", "_signal", "_task")

    def __init__(self, signal: AbortSignal) -> None:
        self._signal = signal
        self._fired = False
        self._task: asyncio.Task[object] | None = None
        self._remove = signal.add_listener(self._on_abort)

    def _on_abort(self) -> None:
        task = self._task
        if task is not None:
            self._fired = True
            task.cancel()

    def start(self) -> asyncio.Task[object] | None:
        """Begin a guarded await; returns the task to hand to :meth:`stop`."""
        signal = self._signal
        if signal.aborted:
            raise asyncio.CancelledError(signal.reason)
        self._task = task = asyncio.current_task()
        return task

    def stop(self, task: asyncio.Task[object] | None) -> None:
        """End a guarded await (call it in ``finally``)."""
        self._task = None
        if self._fired:
            self._fired = False
            if task is not None:
                task.uncancel()
            raise asyncio.CancelledError(self._signal.reason) from None

    def close(self) -> None:
        """Stop listening to the signal."""
        self._remove()
