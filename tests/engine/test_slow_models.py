"""A model that thinks before its first chunk: the run starts at once, the abort signal
interrupts the wait, a transient failure before the first chunk is retried (D14, D32)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from procession import AbortSignal, Agent
from procession.chunks import Chunk
from procession.errors import APICallError
from procession.models.base import ModelCallOptions, StreamResult
from procession.testing import Reply, ScriptedModel

HUNG = 10.0
"""Seconds after which a run that should have ended counts as hung (a liveness bound)."""


async def bounded(work: Any) -> Any:
    return await asyncio.wait_for(work, HUNG)


@pytest.mark.asyncio
async def test_start_and_step_start_come_before_the_models_first_chunk() -> None:  # D32
    signal = AbortSignal()
    agent = Agent(id="slow", model=ScriptedModel([Reply(text=["never"], first_delay=3600)]))
    run = agent.stream("hello", abort_signal=signal)
    types: list[str] = []

    async def read() -> None:
        async for chunk in run:
            types.append(chunk.type)
            if chunk.type == "step-start":  # the model has not answered yet
                signal.abort()

    await bounded(read())
    assert types[:2] == ["start", "step-start"]
    assert types[-1] == "abort"
    assert "text-delta" not in types
    assert (await run.result()).finish_reason == "abort"


@pytest.mark.asyncio
async def test_abort_interrupts_a_model_that_ignores_the_signal() -> None:  # D32
    signal = AbortSignal()
    agent = Agent(id="slow", model=ScriptedModel([Reply(text=["never"], first_delay=3600)]))
    asyncio.get_running_loop().call_later(0.2, signal.abort)
    result = await bounded(agent.generate("hello", abort_signal=signal))
    assert result.finish_reason == "abort"
    assert result.text == ""


class FailsBeforeFirstChunk:
    """A model whose first call opens, then fails before any chunk with a retryable error."""

    specification_version = "v2"
    provider = "flaky"
    model_id = "flaky-1"
    supports_structured_output = False

    def __init__(self) -> None:
        self.calls = 0
        self.inner = ScriptedModel([Reply(text=["second try"])])

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        self.calls += 1
        if self.calls == 1:
            return StreamResult(stream=self._broken(), request={"body": {"try": 1}})
        return await self.inner.do_stream(options)

    async def _broken(self) -> AsyncIterator[Chunk]:
        if self.calls:  # always: the first read fails before any chunk
            raise APICallError("overloaded", status_code=529, is_retryable=True)
        yield Chunk("text-delta", {})


@pytest.mark.asyncio
async def test_a_failure_before_the_first_chunk_is_retried_behind_one_step_start() -> None:  # D14
    model = FailsBeforeFirstChunk()
    agent = Agent(id="slow", model=model, model_settings={"max_retries": 1})
    chunks = [chunk async for chunk in agent.stream("hello")]
    types = [chunk.type for chunk in chunks]
    assert model.calls == 2
    assert types.count("step-start") == 1
    assert "error" not in types
    assert "".join(c.payload["text"] for c in chunks if c.type == "text-delta") == "second try"
