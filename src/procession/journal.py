"""Durable runs: what a run checkpoints so that a run resumed elsewhere repeats nothing done.

A :class:`Journal` is handed to ``stream()``/``generate()`` (``journal=``) by a durable runner
(DBOS, for one). The loop asks it for three kinds of work, each under a key that is the same
when the run is executed again with the same ``run_id``:

- a **model call**: the journal runs it once and keeps its chunks; run again, it replays them
  (processors see them as they saw the live ones, as for a cached response, D7);
- a **tool call**: run once; run again, its recorded outcome (result or error) is returned;
- the **commit** of a completed run to memory: done exactly once (D13);
- a **decision** on a tool that requires approval (``procession.approvals``): asked once.

Everything else the run does (processor hooks, the prompt) is recomputed when the run is
executed again, so processors must behave the same given the same chunks. A tool whose call
was interrupted before its checkpoint may run again: tools receive a stable idempotency key,
``ToolContext.idempotency_key`` (the run id and the tool call id).

:class:`procession.testing.MemoryJournal` keeps checkpoints in memory, for tests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

from procession.chunks import Chunk

__all__ = ["Journal", "ToolOutcome"]

ToolOutcome = tuple[bool, Any]
"""A tool call's outcome: ``(True, result)`` or ``(False, error text)``."""


@runtime_checkable
class Journal(Protocol):
    """Checkpoints of a durable run (see the module docstring)."""

    def model_call(
        self, key: str, start: Callable[[], AsyncIterator[Chunk]]
    ) -> AsyncIterator[Chunk]:
        """The chunks of the model call ``key``: live from ``start()`` the first time (and
        recorded once the stream ended whole), replayed from the record afterwards. A call
        that failed is not recorded: it is made again."""
        ...

    def tool_call(
        self, key: str, run: Callable[[], Awaitable[ToolOutcome]]
    ) -> Awaitable[ToolOutcome]:
        """The outcome of tool call ``key``: ``run()`` the first time, the record afterwards."""
        ...

    def once(self, key: str, work: Callable[[], Awaitable[None]]) -> Awaitable[None]:
        """Do ``work()`` unless work under ``key`` already completed (the commit, D13)."""
        ...

    def decision(
        self, key: str, ask: Callable[[], Awaitable[ToolOutcome]]
    ) -> Awaitable[ToolOutcome]:
        """A tool-approval decision ``(approved, reason)``: ``ask()`` the first time, the
        record afterwards (a journal whose broker waits durably may just ``ask()``)."""
        ...
