"""What an abort signal costs a streaming run: listeners registered on the signal."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from procession import Agent
from procession.chunks import Chunk, Usage, finish_chunk
from procession.models.base import ModelCallOptions, StreamResult
from procession.signals import AbortSignal

DELTAS = 200


class CountingSignal(AbortSignal):
    """An abort signal that counts the listeners registered on it."""

    def __init__(self) -> None:
        super().__init__()
        self.added = 0

    def add_listener(self, listener: Callable[[], object]) -> Callable[[], None]:
        self.added += 1
        return super().add_listener(listener)


class TextModel:
    """Streams ``DELTAS`` text deltas (its stream does not look at the signal itself)."""

    provider = "test"
    model_id = "text"
    specification_version = "v2"
    supports_structured_output = False

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        async def chunks() -> AsyncIterator[Chunk]:
            yield Chunk("text-start", {"id": "t"})
            for _ in range(DELTAS):
                yield Chunk("text-delta", {"id": "t", "text": "x"})
            yield Chunk("text-end", {"id": "t"})
            yield finish_chunk("stop", Usage())

        return StreamResult(stream=chunks())


@pytest.mark.asyncio
async def test_an_abort_signal_costs_a_run_a_few_listeners_not_one_per_chunk() -> None:
    signal = CountingSignal()
    agent = Agent(id="a", instructions="Answer.", model=TextModel())
    deltas = [c async for c in agent.stream("go", abort_signal=signal) if c.type == "text-delta"]
    assert len(deltas) == DELTAS
    assert signal.added <= 10
