"""``MemoryJournal``: a durable run's checkpoints kept in memory, for tests of durable runs."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from procession.chunks import Chunk
from procession.journal import ToolOutcome

__all__ = ["MemoryJournal"]


class MemoryJournal:
    """A :class:`~procession.journal.Journal` that keeps checkpoints in dicts.

    Run a stream with ``journal=journal, run_id=...``, then run it again with the same run id
    (as a durable runner does after a crash): checkpointed model calls are replayed, tool calls
    return their recorded outcomes, and the commit is not repeated. ``forget(key)`` removes a
    checkpoint, to simulate a crash before it was taken.

    Attributes:
        models: Recorded model calls: key -> chunks in their wire form.
        tools: Recorded tool outcomes: key -> ``(ok, value)``.
        done: Keys of work done once (the commit).
        made: Keys of the calls this journal actually made (not replayed), in order.
    """

    def __init__(self) -> None:
        self.models: dict[str, list[dict[str, Any]]] = {}
        self.tools: dict[str, ToolOutcome] = {}
        self.done: set[str] = set()
        self.made: list[str] = []

    async def model_call(
        self, key: str, start: Callable[[], AsyncIterator[Chunk]]
    ) -> AsyncIterator[Chunk]:
        """Replay ``key``'s recorded chunks, or stream ``start()`` and record them."""
        recorded = self.models.get(key)
        if recorded is not None:
            for item in recorded:
                yield Chunk.from_dict(copy.deepcopy(item))
            return
        self.made.append(key)
        chunks: list[dict[str, Any]] = []
        async for chunk in start():
            chunks.append(copy.deepcopy(chunk.to_dict()))  # before processors touch it
            yield chunk
        self.models[key] = chunks  # only a stream that ended whole is a checkpoint

    async def tool_call(self, key: str, run: Callable[[], Awaitable[ToolOutcome]]) -> ToolOutcome:
        """The recorded outcome of ``key``, or ``run()``'s, recorded."""
        if key in self.tools:
            return self.tools[key]
        self.made.append(key)
        outcome = await run()
        self.tools[key] = outcome
        return outcome

    async def decision(self, key: str, ask: Callable[[], Awaitable[ToolOutcome]]) -> ToolOutcome:
        """The recorded decision of ``key``, or ``ask()``'s, recorded."""
        return await self.tool_call(key, ask)

    async def once(self, key: str, work: Callable[[], Awaitable[None]]) -> None:
        """``work()`` unless ``key`` was done."""
        if key in self.done:
            return
        self.made.append(key)
        await work()
        self.done.add(key)

    def forget(self, key: str) -> None:
        """Remove one checkpoint (a crash before it was taken)."""
        self.models.pop(key, None)
        self.tools.pop(key, None)
        self.done.discard(key)
