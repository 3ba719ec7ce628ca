"""Cancellation at every await point of a tool-using run with memory.

Every await the run makes in processors, tools and the model stream is a checkpoint; the run
is interrupted at each one in turn (the caller's task cancelled, or the abort signal fired),
and the stream is closed after each chunk. Nothing may be half-written (the store holds the
whole turn or nothing), and the guard allows no pending task, open model stream or running
tool call. The event-loop-turn sweep (storage awaits included) is ``bench/soak_cancel.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from procession import AbortSignal, Agent, Chunk, ModelCallOptions, StreamResult
from procession.processors import HOOKS as ALL_HOOKS
from procession.testing import ScriptedModel

from ..contract.kit import settle_tasks
from .harness import Guard, Release, Tools, sqlite_memory, stored, tool_replies

HOOKS = tuple(hook for hook in ALL_HOOKS if hook != "process_api_error")


@dataclass
class Checkpoints:
    """Numbered await points; at number ``at`` the run is interrupted (``how``)."""

    at: int | None = None
    how: str = "cancel"
    names: list[str] = field(default_factory=list)
    task: asyncio.Future[Any] | None = None
    signal: AbortSignal = field(default_factory=AbortSignal)

    async def point(self, name: str) -> None:
        """An await point: interrupt here if it is the chosen one, then yield to the loop."""
        if len(self.names) == self.at:
            if self.how == "cancel":
                assert self.task is not None
                self.task.cancel()
            else:
                self.signal.abort("stop")
        self.names.append(name)
        await asyncio.sleep(0)


def _slow(points: Checkpoints) -> Any:
    """A processor with every hook async, each an await point."""

    class Slow:
        id = "slow"

    def hook(name: str) -> Any:
        async def call(self: Any, **kwargs: Any) -> Any:
            part = kwargs.get("part")
            await points.point(name if part is None else f"{name}:{part.type}")
            return part

        return call

    for name in HOOKS:
        setattr(Slow, name, hook(name))
    return Slow()


class CheckpointModel:
    """A scripted model whose stream awaits a checkpoint before each chunk."""

    specification_version = "v2"
    supports_structured_output = False
    provider = "scripted"
    model_id = "checkpoints"

    def __init__(self, points: Checkpoints) -> None:
        self.inner = ScriptedModel(tool_replies(3))
        self.points = points
        self.calls: list[ModelCallOptions] = []

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """The scripted call, with an await point before each chunk."""
        self.calls.append(options)
        result: StreamResult = await self.inner.do_stream(options)
        result.stream = self._paced(result.stream)
        return result

    async def _paced(self, stream: AsyncIterator[Chunk]) -> AsyncIterator[Chunk]:
        async for chunk in stream:
            await self.points.point(f"model:{chunk.type}")
            yield chunk


class CheckpointTools(Tools):
    """The harness tools, with the ``wait`` tool's awaits as checkpoints."""

    def __init__(self, points: Checkpoints) -> None:
        super().__init__()
        self.points = points

    async def pause(self) -> None:
        """Each pause of the ``wait`` tool is a checkpoint."""
        await self.points.point("tool:wait")


@dataclass
class Outcome:
    """What one interrupted run left."""

    chunks: list[str]
    stored: int
    names: list[str]
    cancelled: bool


async def interrupted(guard: Guard, release: Release, at: int | None, how: str) -> Outcome:
    """One run, interrupted at checkpoint ``at`` (``None``: never)."""
    points = Checkpoints(at=at, how=how)
    tools = guard.track(CheckpointTools(points))
    memory = sqlite_memory()
    slow = _slow(points)
    agent = Agent(
        id="a",
        model=guard.model(CheckpointModel(points)),
        tools=tools.all(),
        memory=memory,
        input_processors=[slow],
        output_processors=[slow],
    )
    seen: list[str] = []

    async def consume() -> None:
        stream = agent.stream(
            "go", release=release, thread_id="t", resource_id="r", abort_signal=points.signal
        )
        async for chunk in stream:
            seen.append(chunk.type)

    points.task = task = asyncio.ensure_future(consume())
    try:
        await asyncio.gather(task, return_exceptions=True)
        return Outcome(seen, len(await stored(memory)), points.names, task.cancelled())
    finally:
        await memory.storage.close()


def _whole(guard: Guard, release: Release) -> Outcome:
    whole = guard.run(lambda: interrupted(guard, release, None, "cancel"))
    assert whole.chunks[-1] == "finish"
    assert whole.stored > 0
    return whole


def _step_start(name: str) -> bool:
    return name == "process_output_stream:step-start"


def _check(outcome: Outcome, whole: Outcome, how: str, at: int) -> None:
    where = f"at checkpoint {at} ({whole.names[at]})"
    if how == "cancel":
        assert outcome.cancelled, where
    else:
        assert outcome.chunks[-1] == "abort", where
    assert "finish" not in outcome.chunks, where
    assert outcome.stored == 0, f"stored {outcome.stored} messages {where}"  # D32: nothing


@pytest.mark.parametrize("how", ["cancel", "signal"])
@pytest.mark.parametrize("release", ["live", "step"])
def test_interrupted_at_every_await_point(guard: Guard, release: Release, how: str) -> None:
    whole = _whole(guard, release)
    tried = 0
    for at, name in enumerate(whole.names):
        if how == "cancel" and _step_start(name):
            continue  # test_cancelled_while_the_step_start_chunk_is_processed
        try:
            outcome = guard.run(lambda a=at: interrupted(guard, release, a, how))  # type: ignore[misc]
        except AssertionError as error:
            raise AssertionError(f"at checkpoint {at} ({name}): {error}") from error
        _check(outcome, whole, how, at)
        tried += 1
    assert tried > 60  # every hook, chunk and tool await of a three-step run


@pytest.mark.skip(
    reason="needs loop: the run must close the started model stream when the caller's task is "
    "cancelled (or a processor fails or blocks, test_faults.py) while the step-start chunk "
    "passes the output lane, an async process_output_stream hook awaiting on it (D32); "
    "today the model stream stays open"
)
@pytest.mark.parametrize("release", ["live", "step"])
def test_cancelled_while_the_step_start_chunk_is_processed(guard: Guard, release: Release) -> None:
    whole = _whole(guard, release)
    points = [at for at, name in enumerate(whole.names) if _step_start(name)]
    assert len(points) == 3
    for at in points:
        outcome = guard.run(lambda a=at: interrupted(guard, release, a, "cancel"))  # type: ignore[misc]
        _check(outcome, whole, "cancel", at)


async def closed_after(guard: Guard, release: Release, count: int) -> Outcome:
    """One run whose stream is closed (``aclose()``) after ``count`` chunks; checks at once
    that the model stream is closed and no tool call or task is left running."""
    points = Checkpoints()
    tools = guard.track(CheckpointTools(points))
    memory = sqlite_memory()
    model = guard.model(CheckpointModel(points))
    agent = Agent(id="a", model=model, tools=tools.all(), memory=memory)
    seen: list[str] = []
    try:
        stream = agent.stream("go", release=release, thread_id="t", resource_id="r")
        async for chunk in stream:
            seen.append(chunk.type)
            if len(seen) == count:
                break
        await stream.aclose()
        where = f"closed after {seen[-3:]}"
        assert model.open == 0, f"model stream still open, {where}"
        assert tools.running == 0, f"tool still running, {where}"
        assert await settle_tasks() == set(), where
        return Outcome(seen, len(await stored(memory)), points.names, cancelled=False)
    finally:
        await memory.storage.close()


def _closing_points(guard: Guard, release: Release) -> list[tuple[int, str]]:
    whole = guard.run(lambda: closed_after(guard, release, 10_000))
    return [(n, kind) for n, kind in enumerate(whole.chunks[:-1], start=1)]


def _closes_at_once_today(kind: str) -> bool:
    """Whether a close after this chunk kind is not one of the loop's known gaps."""
    return kind not in ("start", "step-start")


@pytest.mark.parametrize("release", ["live", "step"])
def test_closing_the_stream_after_every_chunk(guard: Guard, release: Release) -> None:
    tried = 0
    for count, kind in _closing_points(guard, release):
        if not _closes_at_once_today(kind):
            continue  # test_closing_the_stream_after_the_chunks_of_the_loops_gaps
        try:
            outcome = guard.run(lambda c=count: closed_after(guard, release, c))  # type: ignore[misc]
        except AssertionError as error:
            raise AssertionError(f"closed after chunk {count} ({kind}): {error}") from error
        assert outcome.stored == 0
        tried += 1
    assert tried > 20


@pytest.mark.skip(
    reason="needs loop: aclose() (or an `async with` exit) after any chunk must close the model "
    "stream before it returns (D32). Today a close after the start chunk (both modes) or a "
    "step-start chunk (live) leaves the model stream, started before those chunks are "
    "yielded, open until garbage collection"
)
@pytest.mark.parametrize("release", ["live", "step"])
def test_closing_the_stream_after_the_chunks_of_the_loops_gaps(
    guard: Guard, release: Release
) -> None:
    for count, kind in _closing_points(guard, release):
        if _closes_at_once_today(kind):
            continue
        try:
            outcome = guard.run(lambda c=count: closed_after(guard, release, c))  # type: ignore[misc]
        except AssertionError as error:
            raise AssertionError(f"closed after chunk {count} ({kind}): {error}") from error
        assert outcome.stored == 0
