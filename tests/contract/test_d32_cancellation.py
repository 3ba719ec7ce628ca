"""D32: leaving a stream early cancels the model call and running tools at once, leaves no
task behind and persists nothing; the abort signal ends the run with an ``abort`` chunk; a hook
raising ``CancelledError`` on its own is a processor error."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
import pytest_asyncio

from procession import AbortSignal, Agent, Memory, ProcessorError, ToolContext, tool
from procession.memory import SQLiteStorage
from procession.testing import Reply, ScriptedModel, ToolCallScript

from .kit import (
    ALL_HOOKS,
    MODES,
    HangingModel,
    TrackedModel,
    bounded,
    in_lane,
    processor,
    run,
    script_for,
    settle_tasks,
    tool_agent,
)


class SlowTool:
    """A tool that writes a progress chunk, then waits until cancelled (or ``seconds``)."""

    def __init__(self, seconds: float = 3600.0) -> None:
        self.events: list[str] = []
        self.started = asyncio.Event()
        events, started = self.events, self.started

        @tool
        async def slow(context: ToolContext) -> str:
            """Take a long time."""
            events.append("start")
            started.set()
            await context.writer.custom({"type": "data-progress", "data": "working"})
            try:
                await asyncio.sleep(seconds)
            except asyncio.CancelledError:
                events.append("cancelled")
                raise
            events.append("done")
            return "finished"

        self.tool = slow


def _tool_model() -> TrackedModel:
    return TrackedModel(
        ScriptedModel(
            [
                Reply(text=["Working on it."], tool_calls=[ToolCallScript("slow", {}, "c1")]),
                Reply(text=["All done."]),
            ]
        )
    )


async def _stored(memory: Memory) -> int:
    return len(await memory.storage.list_messages("t", resource_id="r"))


@pytest_asyncio.fixture
async def memory() -> Any:
    store = Memory(SQLiteStorage(":memory:"))
    yield store
    await store.storage.close()


CLOSE_AT_ONCE = pytest.mark.skip(
    reason="needs loop: aclose() (and an `async with` exit) after the start chunk, or in live "
    "mode after a step-start chunk, must close the model stream before it returns (D32); the "
    "model call starts before those chunks are yielded, and attempt.stream is closed only by "
    "the per-chunk loop's finally, so today the stream stays open until garbage collection"
)


@pytest.mark.parametrize("how", ["aclose", "async-with"])
@pytest.mark.asyncio
async def test_closing_the_stream_cancels_a_running_tool(how: str, memory: Memory) -> None:  # D32
    slow = SlowTool()
    model = _tool_model()
    agent = Agent(id="a", model=model, tools=[slow.tool], memory=memory)
    stream = agent.stream("go", thread_id="t", resource_id="r")
    if how == "aclose":
        async for chunk in stream:
            if chunk.type == "data-progress":
                break
        await bounded(stream.aclose())
    else:
        async with agent.stream("go", thread_id="t", resource_id="r") as stream:
            async for chunk in stream:
                if chunk.type == "data-progress":
                    break
    assert slow.events == ["start", "cancelled"]
    assert await settle_tasks() == set()
    assert model.open == 0
    assert await _stored(memory) == 0


@pytest.mark.skip(
    reason="needs loop: breaking out of `async for chunk in stream` without aclose() must "
    "cancel the running tools at once (D32), also while the caller still holds the stream. "
    "Python does not close an async iterator on `break`: AgentStream.__aiter__ returns the "
    "run's generator itself, which the held stream keeps alive, so today the tool runs to "
    "completion. AgentStream.__aiter__ could return a per-iteration wrapper that only the "
    "`async for` holds, whose release at the break (CPython frees it at once) closes the run"
)
@pytest.mark.asyncio
async def test_breaking_out_cancels_a_running_tool() -> None:  # D32
    slow = SlowTool(seconds=0.5)
    agent = Agent(id="a", model=_tool_model(), tools=[slow.tool])
    stream = agent.stream("go")
    async for chunk in stream:
        if chunk.type == "data-progress":
            break
    await asyncio.sleep(1.0)
    assert slow.events == ["start", "cancelled"]
    assert stream.run_id  # the caller still holds the stream


@pytest.mark.asyncio
async def test_cancelling_the_callers_task_cancels_tools_and_model(memory: Memory) -> None:  # D32
    slow = SlowTool()
    model = _tool_model()
    agent = Agent(id="a", model=model, tools=[slow.tool], memory=memory)
    chunks: list[str] = []

    async def consume() -> None:
        async for chunk in agent.stream("go", thread_id="t", resource_id="r"):
            chunks.append(chunk.type)

    task = asyncio.ensure_future(consume())
    await bounded(slow.started.wait())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await bounded(task)
    assert slow.events == ["start", "cancelled"]
    assert await settle_tasks() == set()
    assert model.open == 0
    assert await _stored(memory) == 0


@pytest.mark.asyncio
async def test_cancelling_the_caller_while_the_model_hangs_closes_the_stream() -> None:  # D32
    model = HangingModel()
    agent = Agent(id="a", model=model)

    async def consume() -> None:
        async for _ in agent.stream("go"):
            pass

    task = asyncio.ensure_future(consume())
    await bounded(model.waiting.wait())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await bounded(task)
    assert model.closed == 1
    assert await settle_tasks() == set()


@pytest.mark.parametrize("how", ["live", "step", "generate"])
@pytest.mark.asyncio
async def test_the_abort_signal_interrupts_a_model_waiting_for_its_next_chunk(
    how: str, memory: Memory
) -> None:  # D32
    model = HangingModel()
    signal = AbortSignal()
    agent = Agent(id="a", model=model, memory=memory)

    async def fire() -> None:
        await model.waiting.wait()
        signal.abort("user left")

    firing = asyncio.ensure_future(fire())
    done = await bounded(run(agent, how, "go", abort_signal=signal, thread_id="t", resource_id="r"))
    await firing
    assert done.raised is None  # generate() returns the aborted result
    assert done.result.finish_reason == "abort"
    assert done.result.text == ""
    if how != "generate":
        assert done.types[-1] == "abort"
    assert model.closed == 1
    assert await settle_tasks() == set()
    assert await _stored(memory) == 0


@pytest.mark.asyncio
async def test_the_abort_signal_cancels_a_running_tool(memory: Memory) -> None:  # D32
    slow = SlowTool()
    signal = AbortSignal()
    agent = Agent(id="a", model=_tool_model(), tools=[slow.tool], memory=memory)

    async def fire() -> None:
        await slow.started.wait()
        signal.abort()

    firing = asyncio.ensure_future(fire())
    done = await bounded(
        run(agent, "live", "go", abort_signal=signal, thread_id="t", resource_id="r")
    )
    await firing
    assert done.types[-1] == "abort"
    assert slow.events == ["start", "cancelled"]
    assert await settle_tasks() == set()
    assert await _stored(memory) == 0


STREAM_HOOK_SIGNAL = pytest.mark.skip(
    reason="needs loop: firing the abort signal while an async process_output_stream hook "
    "awaits must interrupt it and end the run with the abort chunk (D32), as it does for "
    "every other hook (runner.call wraps them in cancel_on_abort); today the per-chunk path "
    "awaits stream hooks unguarded, so the run waits for the hook"
)
SIGNAL_HOOKS = [
    pytest.param(h, marks=STREAM_HOOK_SIGNAL) if h == "process_output_stream" else h
    for h in ALL_HOOKS
]


@pytest.mark.parametrize("hook", SIGNAL_HOOKS)
@pytest.mark.asyncio
async def test_the_abort_signal_interrupts_an_async_hook(hook: str) -> None:  # D32
    signal = AbortSignal()
    entered = asyncio.Event()

    async def hang(**kwargs: Any) -> Any:
        if hook == "process_output_stream" and kwargs["part"].type != "text-delta":
            return kwargs["part"]
        entered.set()
        await asyncio.sleep(3600)
        return None

    async def fire() -> None:
        await entered.wait()
        signal.abort()

    bot = tool_agent(
        script_for(hook),
        **in_lane(hook, processor("hangs", "async", {hook: hang})),
    )
    firing = asyncio.ensure_future(fire())
    done = await bounded(run(bot, "live", abort_signal=signal))
    await firing
    assert done.types[-1] == "abort"
    assert done.result.finish_reason == "abort"
    assert await settle_tasks() == set()


@pytest.mark.parametrize("how", ["live", "step", "generate"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", ALL_HOOKS)
@pytest.mark.asyncio
async def test_a_hook_raising_cancelled_error_is_a_processor_error(
    hook: str, mode: str, how: str
) -> None:  # D32, D10
    def cancel(**kwargs: Any) -> Any:
        if hook == "process_output_stream" and kwargs["part"].type != "text-delta":
            return kwargs["part"]
        raise asyncio.CancelledError

    bot = tool_agent(
        script_for(hook),
        **in_lane(hook, processor("canceller", mode, {hook: cancel})),
    )
    done = await run(bot, how)
    if hook == "process_api_error":  # D10's exception: logged, the model's error ends the run
        assert done.result.error is not None
        assert not isinstance(done.result.error, ProcessorError)
        return
    error = done.result.error
    assert isinstance(error, ProcessorError), error
    assert (error.processor_id, error.hook) == ("canceller", hook)
    assert "CancelledError" in str(error)
    if how != "generate":
        assert done.types[-1] == "error"


@pytest.mark.asyncio
async def test_an_abandoned_stream_is_closed_when_collected() -> None:  # D32
    slow = SlowTool()
    model = _tool_model()
    agent = Agent(id="a", model=model, tools=[slow.tool])
    stream = agent.stream("go")
    iterator = aiter(stream)
    while (await anext(iterator)).type != "data-progress":
        pass
    del stream, iterator
    gc.collect()
    for _ in range(20):
        if slow.events[-1:] == ["cancelled"]:
            break
        await asyncio.sleep(0.01)
    assert slow.events == ["start", "cancelled"]
    assert await settle_tasks() == set()


@CLOSE_AT_ONCE
@pytest.mark.asyncio
async def test_an_agent_stream_is_an_async_context_manager() -> None:  # D32
    model = TrackedModel(ScriptedModel([Reply(text=["a", "b", "c"])]))
    async with Agent(id="a", model=model).stream("x") as stream:
        first = await anext(aiter(stream))
    assert first.type == "start"
    assert model.open == 0
    with pytest.raises(RuntimeError, match="iterated once"):
        aiter(stream)


@pytest.mark.parametrize("mode", ["aclose", "async-with"])
@pytest.mark.asyncio
async def test_closing_while_the_model_streams_closes_its_stream(mode: str) -> None:  # D32
    model = TrackedModel(ScriptedModel([Reply(text=["a", "b", "c"])]))
    agent = Agent(id="a", model=model)
    if mode == "aclose":
        stream = agent.stream("x")
        async for chunk in stream:
            if chunk.type == "text-delta":
                break
        await stream.aclose()
    else:
        async with agent.stream("x") as stream:
            async for chunk in stream:
                if chunk.type == "text-delta":
                    break
    assert model.opened == 1
    assert model.open == 0
    assert await settle_tasks() == set()


@pytest.mark.skip(
    reason="needs loop: when a run that ran tools has ended, none of its tasks may still be "
    "pending (D32: no task left behind); today the tool stage cancels its wake-up waiter "
    "(ensure_future(wake.wait())) without awaiting it, so the caller gets the last chunk while "
    "that task is still cancelling (it ends on the next loop turn)"
)
@pytest.mark.asyncio
async def test_no_task_is_pending_when_a_tool_run_ends() -> None:  # D32
    @tool
    def quick() -> str:
        """Answer at once."""
        return "ok"

    model = ScriptedModel([Reply(tool_calls=[ToolCallScript("quick", {})]), Reply(text=["done"])])
    chunks = [c.type async for c in Agent(id="a", model=model, tools=[quick]).stream("go")]
    assert chunks[-1] == "finish"
    assert {t for t in asyncio.all_tasks() if t is not asyncio.current_task()} == set()
