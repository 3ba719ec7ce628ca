"""Tie an :class:`~procession.signals.AbortSignal` to the awaits of a model call.

Used by provider adapters (around the request and each chunk read) and by the retry layer
(around the back-off sleep): while the block runs, firing the signal cancels the current task,
so whatever it awaits (a socket read, a sleep) is interrupted at once and its cleanup runs.
The block then raises ``asyncio.CancelledError(signal.reason)`` with the task's cancellation
request withdrawn, exactly as :meth:`AbortSignal.raise_if_aborted` would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

from procession.signals import AbortSignal

__all__ = ["cancel_on_abort"]


@contextmanager
def cancel_on_abort(signal: AbortSignal | None) -> Iterator[None]:
    """Cancel the current task if ``signal`` fires while the block runs."""
    if signal is None:
        yield
        return
    signal.raise_if_aborted()
    task = asyncio.current_task()
    if task is None:  # pragma: no cover - always inside a task under asyncio
        yield
        return
    fired = False

    def on_abort() -> None:
        nonlocal fired
        fired = True
        task.cancel()

    remove = signal.add_listener(on_abort)
    try:
        yield
    except asyncio.CancelledError:
        if fired:
            task.uncancel()
            raise asyncio.CancelledError(signal.reason) from None
        raise
    finally:
        remove()
