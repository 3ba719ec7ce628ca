"""Fail-closed errors, state, lanes, signatures and indexes: D10, D15, D19, D20, D25, D28."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from procession import (
    AbortSignal,
    Chunk,
    ConfigurationError,
    Processor,
    ProcessorError,
    RequestContext,
    tool,
)
from procession.testing import RecordingProcessor, Reply, ScriptedModel, Trace

from .helpers import agent, collect, texts, tool_call


@pytest.mark.parametrize(
    ("lane", "hook"),
    [
        ("input", "process_input"),
        ("input", "process_input_step"),
        ("input", "process_llm_request"),
        ("input", "process_llm_response"),
        ("output", "process_output_stream"),
        ("output", "process_output_step"),
        ("output", "process_tool_result"),
        ("output", "process_output_result"),
    ],
)
@pytest.mark.asyncio
async def test_a_raising_processor_fails_the_run_closed(lane: str, hook: str) -> None:  # D10
    @tool
    def act() -> str:
        """Act."""
        return "x"

    def boom(**kw: Any) -> None:
        raise ValueError("guardrail crashed")

    bad = RecordingProcessor("crashy", behaviours={hook: boom})
    model = ScriptedModel([tool_call("act", {}), Reply(text=["secret text"])])
    stream = agent(model, tools=[act], **{f"{lane}_processors": [bad]}).stream("x")
    chunks = await collect(stream)
    assert chunks[-1].type == "error"
    if hook != "process_output_result":  # that one runs after the text was streamed
        assert "secret text" not in texts(chunks)
    detail = chunks[-1].payload["error"]  # D33: data, not the exception object
    assert detail["processorId"] == "crashy"
    assert detail["hook"] == hook
    json.dumps(chunks[-1].to_dict())
    error = (await stream.result(raise_error=False)).error
    assert isinstance(error, ProcessorError)
    assert error.processor_id == "crashy"
    assert error.hook == hook
    assert "crashy" in str(error)
    assert hook in str(error)
    fresh = ScriptedModel([tool_call("act", {}), Reply(text=["secret text"])])
    bot = agent(fresh, tools=[act], **{f"{lane}_processors": [bad]})
    with pytest.raises(ProcessorError):
        await bot.generate("x")


@pytest.mark.asyncio
async def test_stream_processor_crash_never_passes_the_unprocessed_chunk() -> None:  # D10
    def crash_on_card(**kw: Any) -> Chunk:
        part: Chunk = kw["part"]
        if part.type == "text-delta" and "4111" in part.payload["text"]:
            raise RuntimeError("redactor bug")
        return part

    model = ScriptedModel([Reply(text=["card: ", "4111 1111"])])
    chunks = await collect(
        agent(
            model, output_processors=[RecordingProcessor("r", process_output_stream=crash_on_card)]
        ).stream("x")
    )
    assert "4111" not in texts(chunks)
    assert chunks[-1].type == "error"


@pytest.mark.asyncio
async def test_state_is_per_processor_id_shared_across_hooks_and_lanes() -> None:  # D15
    trace = Trace()
    counts: list[int] = []

    def count(**kw: Any) -> Any:
        kw["state"]["n"] = kw["state"].get("n", 0) + 1
        counts.append(kw["state"]["n"])
        return kw.get("part")

    same = RecordingProcessor(
        "same",
        trace=trace,
        process_input=count,
        process_output_stream=count,
    )
    other = RecordingProcessor("other", trace=trace, process_output_step=count)
    model = ScriptedModel([Reply(text=["a"])])
    bot = agent(model, input_processors=[same], output_processors=[same, other])
    await bot.generate("x")
    states = {c.processor_id: c["state"] for c in trace.calls}
    assert states["same"] is not states["other"]
    assert states["same"]["n"] == len(trace.of("process_input")) + len(
        trace.of("process_output_stream")
    )
    assert states["other"] == {"n": 1}
    model.replies.append(Reply(text=["b"]))
    first_state = states["same"]
    trace.calls.clear()
    counts.clear()
    await bot.generate("again")
    assert trace.calls[0]["state"] is not first_state  # a fresh state per call
    assert counts[0] == 1


@pytest.mark.asyncio
async def test_sync_and_async_hooks_with_declared_keywords() -> None:  # D19
    class Sync(Processor):
        id = "sync"

        def process_output_stream(self, *, part: Chunk) -> Chunk:
            return part

    class Async(Processor):
        id = "async"

        async def process_output_stream(self, *, part: Chunk, state: dict[str, Any]) -> Chunk:
            await asyncio.sleep(0)
            state["seen"] = True
            return part

    model = ScriptedModel([Reply(text=["ok"])])
    result = await agent(model, output_processors=[Sync(), Async()]).generate("x")
    assert result.text == "ok"


def test_declaring_an_argument_the_hook_does_not_receive_is_an_error() -> None:  # D19
    class Typo:
        id = "typo"

        def process_input(self, *, mesages: Any) -> None:
            return None

    with pytest.raises(ConfigurationError, match="'mesages'"):
        asyncio.run(agent(ScriptedModel([]), input_processors=[Typo()]).generate("x"))


def test_processor_without_lane_hooks_is_rejected_when_built() -> None:  # D25
    class OutputOnly:
        id = "output-only"

        def process_output_stream(self, *, part: Chunk) -> Chunk:
            return part

    with pytest.raises(ConfigurationError, match="implements none of the input lane's hooks"):
        agent(ScriptedModel([]), input_processors=[OutputOnly()])
    with pytest.raises(ConfigurationError, match="non-empty string id"):
        agent(ScriptedModel([]), output_processors=[object()])


@pytest.mark.asyncio
async def test_tool_result_processor_belongs_to_the_output_lane() -> None:  # D25
    class Redact:
        id = "redact"

        def process_tool_result(self) -> None:
            return None

    agent(ScriptedModel([]), output_processors=[Redact()])
    with pytest.raises(ConfigurationError):
        agent(ScriptedModel([]), input_processors=[Redact()])


@pytest.mark.asyncio
async def test_lane_factories_and_call_time_replacement() -> None:  # D20
    trace = Trace()

    def factory(context: RequestContext) -> list[Any]:
        return [RecordingProcessor(context.get("pid", "default"), ["process_input"], trace=trace)]

    async def async_factory(context: RequestContext) -> list[Any]:
        return [RecordingProcessor("from-async", ["process_output_step"], trace=trace)]

    model = ScriptedModel([Reply(text=["a"])], repeat_last=True)
    bot = agent(model, input_processors=factory, output_processors=async_factory)
    await bot.generate("x", request_context=RequestContext(pid="chosen"))
    assert trace.hooks() == ["chosen.process_input", "from-async.process_output_step"]
    trace.calls.clear()
    replacement = RecordingProcessor("call-time", ["process_input"], trace=trace)
    await bot.generate("x", input_processors=[replacement])
    assert trace.hooks() == ["call-time.process_input", "from-async.process_output_step"]


@pytest.mark.asyncio
async def test_processor_index_is_the_position_in_the_resolved_lane() -> None:  # D28
    first = RecordingProcessor("a", ["process_input"])
    second = RecordingProcessor("b", ["process_input"])
    await agent(ScriptedModel([Reply(text=["x"])]), input_processors=[first, second]).generate("x")
    assert (first.processor_index, second.processor_index) == (0, 1)


def test_processor_name_defaults_to_id() -> None:
    class Named(Processor):
        id = "named"

    processor = Named()
    assert processor.name == "named"
    processor.name = "Pretty"
    assert processor.name == "Pretty"


@pytest.mark.asyncio
async def test_abort_signal_stops_a_slow_stream() -> None:
    signal = AbortSignal()
    model = ScriptedModel([Reply(text=["a"] * 50, delay=0.01)])
    stream = agent(model).stream("x", abort_signal=signal)
    seen: list[str] = []
    async for chunk in stream:
        seen.append(chunk.type)
        if seen.count("text-delta") == 3:
            signal.abort("user left")
    assert seen[-1] == "abort"
    assert seen.count("text-delta") < 10
    assert (await stream.result()).finish_reason == "abort"


@pytest.mark.asyncio
async def test_abort_signal_cancels_running_tools() -> None:
    signal = AbortSignal()
    finished: list[bool] = []

    @tool
    async def forever() -> str:
        """Never ends."""
        await asyncio.sleep(30)
        finished.append(True)
        return "late"

    model = ScriptedModel([tool_call("forever", {})])
    stream = agent(model, tools=[forever]).stream("x", abort_signal=signal)
    asyncio.get_running_loop().call_later(0.05, signal.abort)
    chunks = await asyncio.wait_for(collect(stream), 5)
    assert chunks[-1].type == "abort"
    assert finished == []


@pytest.mark.asyncio
async def test_prepare_step_runs_after_input_processors() -> None:
    trace = Trace()
    seen_choice: list[Any] = []

    def prepare_step(**kw: Any) -> dict[str, Any]:
        seen_choice.append(kw["tool_choice"])
        return {"tool_choice": "none"}

    first = RecordingProcessor(
        "first", trace=trace, process_input_step=lambda **kw: {"tool_choice": "required"}
    )
    model = ScriptedModel([Reply(text=["ok"])])
    await agent(model, input_processors=[first]).generate("x", prepare_step=prepare_step)
    assert seen_choice == ["required"]  # hooks see the seed's form
    assert model.calls[0].tool_choice == {"type": "none"}


@pytest.mark.asyncio
async def test_a_model_that_raises_cancelled_on_abort_ends_with_an_abort_chunk() -> None:
    from procession.models.base import ModelCallOptions, StreamResult

    class AbortAware:
        provider = "test"
        model_id = "abort-aware"
        specification_version = "v2"
        supports_structured_output = False

        async def do_stream(self, options: ModelCallOptions) -> StreamResult:
            async def stream() -> Any:
                yield Chunk("text-start", {"id": "t"})
                assert options.abort_signal is not None
                await options.abort_signal.wait()
                raise asyncio.CancelledError(options.abort_signal.reason)

            return StreamResult(stream=stream())

    signal = AbortSignal()
    asyncio.get_running_loop().call_later(0.02, signal.abort)
    chunks = await collect(agent(AbortAware()).stream("x", abort_signal=signal))  # type: ignore[arg-type]
    assert chunks[-1].type == "abort"


@pytest.mark.asyncio
async def test_a_hook_gets_exactly_the_names_it_declares() -> None:  # D19
    seen: dict[str, Any] = {}

    class Named:
        id = "named"

        def process_output_stream(self, *, part: Chunk, **rest: Any) -> Chunk:
            seen.setdefault("rest", rest)
            return part

    class CatchAll:
        id = "catch-all"

        def process_output_stream(self, **everything: Any) -> Any:
            seen.setdefault("everything", sorted(everything))
            return everything["part"]

    await agent(
        ScriptedModel([Reply(text=["a"])]), output_processors=[Named(), CatchAll()]
    ).generate("x")
    assert seen["rest"] == {}
    assert "stream_parts" in seen["everything"]
    assert "state" in seen["everything"]


@pytest.mark.asyncio
async def test_abort_signal_interrupts_a_hanging_processor() -> None:
    signal = AbortSignal()

    async def hang(**kw: Any) -> None:
        await asyncio.sleep(30)

    slow = RecordingProcessor("slow", process_output_step=hang)
    stream = agent(ScriptedModel([Reply(text=["a"])]), output_processors=[slow]).stream(
        "x", abort_signal=signal
    )
    asyncio.get_running_loop().call_later(0.05, signal.abort)
    chunks = await asyncio.wait_for(collect(stream), 5)
    assert chunks[-1].type == "abort"
