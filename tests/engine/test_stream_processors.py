"""process_output_stream: drop, replace, abort, stream_parts, data chunks and writers (D9, D27)."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Chunk, DataPart, tool
from procession.testing import RecordingProcessor, Reply, ScriptedModel, Trace
from procession.tools import ToolContext

from .helpers import agent, collect, texts, tool_call


def upper(**kw: Any) -> Chunk:
    part: Chunk = kw["part"]
    if part.type == "text-delta":
        return part.copy(payload={**part.payload, "text": part.payload["text"].upper()})
    return part


@pytest.mark.asyncio
async def test_dropped_chunks_are_not_sent_nor_stored() -> None:
    def drop_foo(**kw: Any) -> Chunk | None:
        part: Chunk = kw["part"]
        if part.type == "text-delta" and "foo" in part.payload["text"]:
            return None
        return part

    trace = Trace()
    dropper = RecordingProcessor("dropper", trace=trace, process_output_stream=drop_foo)
    after = RecordingProcessor("after", ["process_output_stream"], trace=trace)
    model = ScriptedModel([Reply(text=["a ", "foo ", "b"])])
    stream = agent(model, output_processors=[dropper, after]).stream("x")
    chunks = await collect(stream)
    assert texts(chunks) == "a b"
    assert "foo " not in [
        c["part"].payload.get("text") for c in trace.of("process_output_stream", "after")
    ]
    result = await stream.result()
    assert result.text == "a b"
    assert result.messages[0].text == "a b"


@pytest.mark.asyncio
async def test_rewrites_chain_and_are_stored() -> None:
    def replace(**kw: Any) -> Chunk:
        part: Chunk = kw["part"]
        if part.type == "text-delta":
            part.payload["text"] = part.payload["text"].replace("HELLO", "HI")
        return part

    model = ScriptedModel([Reply(text=["hello ", "world"])])
    result = await agent(
        model,
        output_processors=[
            RecordingProcessor("upper", process_output_stream=upper),
            RecordingProcessor("replace", process_output_stream=replace),
        ],
    ).generate("x")
    assert result.text == "HI WORLD"
    assert result.messages[0].text == "HI WORLD"


@pytest.mark.asyncio
async def test_stream_parts_hold_what_the_processor_saw() -> None:
    lengths: list[int] = []

    class Window:
        id = "window"

        def process_output_stream(self, *, part: Chunk, stream_parts: list[Chunk]) -> Chunk:
            assert stream_parts[-1] is part
            lengths.append(len(stream_parts))
            return part

    model = ScriptedModel([Reply(text=["a", "b"])])
    await agent(model, output_processors=[Window()]).generate("x")
    assert lengths == list(range(1, len(lengths) + 1))
    assert len(lengths) >= 6  # step-start, metadata, text-start, 2 deltas, text-end, finish...


@pytest.mark.asyncio
async def test_processor_sees_step_start_metadata_and_finish_but_client_does_not() -> None:
    trace = Trace()
    seen = RecordingProcessor("seen", ["process_output_stream"], trace=trace)
    model = ScriptedModel([Reply(text=["a"])])
    chunks = await collect(agent(model, output_processors=[seen]).stream("x"))
    processed = [c["part"].type for c in trace.of("process_output_stream")]
    assert processed == [
        "step-start",
        "response-metadata",
        "text-start",
        "text-delta",
        "text-end",
        "finish",
        "step-finish",
    ]
    client = [c.type for c in chunks]
    assert "response-metadata" not in client
    assert client.count("finish") == 1
    assert client[-1] == "finish"


@pytest.mark.asyncio
async def test_data_chunks_reach_only_processors_that_opt_in() -> None:  # D9
    trace = Trace()

    def emit(**kw: Any) -> None:
        kw["writer"].custom({"type": "data-progress", "data": {"step": kw["step_number"]}})

    emitter = RecordingProcessor("emitter", trace=trace, process_input_step=emit)
    plain = RecordingProcessor("plain", ["process_output_stream"], trace=trace)
    opted = RecordingProcessor(
        "opted", ["process_output_stream"], trace=trace, process_data_parts=True
    )
    model = ScriptedModel([Reply(text=["a"])])
    chunks = await collect(
        agent(model, input_processors=[emitter], output_processors=[plain, opted]).stream("x")
    )
    assert any(c.type == "data-progress" for c in chunks)
    plain_types = [c["part"].type for c in trace.of("process_output_stream", "plain")]
    opted_types = [c["part"].type for c in trace.of("process_output_stream", "opted")]
    assert "data-progress" not in plain_types
    assert "data-progress" in opted_types


@pytest.mark.asyncio
async def test_data_chunks_are_stored_unless_transient() -> None:  # D27
    def emit(**kw: Any) -> None:
        kw["writer"].custom({"type": "data-kept", "data": 1})
        kw["writer"].custom({"type": "data-gone", "data": 2, "transient": True})

    model = ScriptedModel([Reply(text=["a"])])
    stream = agent(
        model, output_processors=[RecordingProcessor("e", process_output_step=emit)]
    ).stream("x")
    chunks = await collect(stream)
    assert [c.type for c in chunks if c.type.startswith("data-")] == ["data-kept", "data-gone"]
    result = await stream.result()
    stored = [p.type for p in result.messages[0].content.parts]
    assert "data-kept" in stored
    assert "data-gone" not in stored


@pytest.mark.asyncio
async def test_writer_in_every_hook_but_process_input() -> None:  # D27
    emitted: list[str] = []

    def make(hook: str) -> Any:
        def behaviour(**kw: Any) -> Any:
            writer = kw.get("writer")
            if writer is not None:
                writer.custom({"type": f"data-{hook}", "data": None, "transient": True})
                emitted.append(hook)
            return kw.get("part")

        return behaviour

    input_hooks = [
        "process_input",
        "process_input_step",
        "process_llm_request",
        "process_llm_response",
    ]
    output_hooks = [
        "process_output_stream",
        "process_output_step",
        "process_tool_result",
        "process_output_result",
    ]

    @tool
    def act() -> int:
        """Act."""
        return 1

    inp = RecordingProcessor("in", **{h: make(h) for h in input_hooks})
    out = RecordingProcessor("out", **{h: make(h) for h in output_hooks})
    model = ScriptedModel([tool_call("act", {}), Reply(text=["done"])])
    chunks = await collect(
        agent(model, tools=[act], input_processors=[inp], output_processors=[out]).stream("x")
    )
    assert "process_input" not in emitted
    assert set(emitted) == set(input_hooks[1:] + output_hooks)
    assert {c.type for c in chunks if c.type.startswith("data-")} == {
        f"data-{h}" for h in input_hooks[1:] + output_hooks
    }


@pytest.mark.asyncio
async def test_writer_rejects_non_data_chunks() -> None:  # D27
    def emit(**kw: Any) -> None:
        kw["writer"].custom({"type": "text-delta", "data": 1})

    model = ScriptedModel([Reply(text=["a"])])
    stream = agent(
        model, output_processors=[RecordingProcessor("e", process_output_step=emit)]
    ).stream("x")
    chunks = await collect(stream)
    assert chunks[-1].type == "error"
    assert "must start with 'data-'" in str(chunks[-1].payload["error"])


@pytest.mark.asyncio
async def test_async_hook_can_await_writer() -> None:  # D27
    class Async:
        id = "async"

        async def process_output_step(self, *, writer: Any) -> None:
            await writer.custom({"type": "data-note", "data": "hi"})

    model = ScriptedModel([Reply(text=["a"])])
    chunks = await collect(agent(model, output_processors=[Async()]).stream("x"))
    assert [c.data for c in chunks if c.type == "data-note"] == ["hi"]


@pytest.mark.asyncio
async def test_tool_writer_streams_data_chunks() -> None:  # D27
    @tool
    async def slow_job(context: ToolContext) -> str:
        """Reports progress."""
        await context.writer.custom({"type": "data-progress", "data": 50, "transient": True})
        return "done"

    model = ScriptedModel([tool_call("slow_job", {}), Reply(text=["ok"])])
    chunks = await collect(agent(model, tools=[slow_job]).stream("x"))
    kinds = [c.type for c in chunks]
    assert kinds.index("data-progress") < kinds.index("tool-result")


@pytest.mark.asyncio
async def test_stream_hook_writer_skips_the_output_lane() -> None:  # D27, C14
    trace = Trace()

    def emit(**kw: Any) -> Chunk:
        if kw["part"].type == "text-delta":
            kw["writer"].custom({"type": "data-echo", "data": kw["part"].payload["text"]})
        part: Chunk = kw["part"]
        return part

    emitter = RecordingProcessor(
        "emitter", trace=trace, process_output_stream=emit, process_data_parts=True
    )
    model = ScriptedModel([Reply(text=["a"])])
    chunks = await collect(agent(model, output_processors=[emitter]).stream("x"))
    assert [c.data for c in chunks if c.type == "data-echo"] == ["a"]
    assert "data-echo" not in [c["part"].type for c in trace.of("process_output_stream")]


@pytest.mark.asyncio
async def test_returning_a_non_chunk_is_a_processor_error() -> None:  # D16
    bad = RecordingProcessor("bad", process_output_stream=lambda **kw: 42)
    model = ScriptedModel([Reply(text=["a"])])
    chunks = await collect(agent(model, output_processors=[bad]).stream("x"))
    assert chunks[-1].type == "error"
    assert "expected a Chunk" in str(chunks[-1].payload["error"])


@pytest.mark.asyncio
async def test_dropping_a_tool_call_prevents_its_execution() -> None:
    ran: list[str] = []

    @tool
    def act() -> str:
        """Act."""
        ran.append("act")
        return "x"

    drop = RecordingProcessor(
        "drop",
        process_output_stream=lambda **kw: None if kw["part"].type == "tool-call" else kw["part"],
    )
    model = ScriptedModel([tool_call("act", {})])
    await agent(model, tools=[act], output_processors=[drop]).generate("x")
    assert ran == []


@pytest.mark.asyncio
async def test_data_chunks_from_every_hook_and_step_are_stored() -> None:  # D27, seed
    def make(hook: str) -> Any:
        def behaviour(**kw: Any) -> Any:
            part = kw.get("part")
            if part is None or part.type == "text-start":
                kw["writer"].custom({"type": "data-hook", "data": hook})
            return part

        return behaviour

    input_hooks = ["process_input_step", "process_llm_request", "process_llm_response"]
    output_hooks = ["process_output_stream", "process_output_step", "process_tool_result"]

    @tool
    def act() -> int:
        """Act."""
        return 1

    inp = RecordingProcessor("in", behaviours={h: make(h) for h in input_hooks})
    out = RecordingProcessor("out", behaviours={h: make(h) for h in output_hooks})
    model = ScriptedModel([tool_call("act", {}), Reply(text=["done"])])
    stream = agent(model, tools=[act], input_processors=[inp], output_processors=[out]).stream("x")
    await collect(stream)
    result = await stream.result()
    stored = [p.data for p in result.messages[0].content.parts if isinstance(p, DataPart)]
    step_one = stored[stored.index("process_tool_result") + 1 :]
    assert set(step_one) == {
        "process_input_step",
        "process_llm_request",
        "process_output_stream",
        "process_llm_response",
        "process_output_step",
    }


@pytest.mark.asyncio
async def test_display_redacted_tool_args_still_reach_the_tool() -> None:
    seen: list[Any] = []

    @tool
    def lookup(card: str) -> str:
        """Look a card up."""
        seen.append(card)
        return "ok"

    def hide_args(**kw: Any) -> Chunk:
        part: Chunk = kw["part"]
        if part.type == "tool-call":
            shown = part.copy(payload={**part.payload, "args": {"card": "[REDACTED]"}})
            shown.execution_args = part.payload["args"]
            return shown
        return part

    redactor = RecordingProcessor("hide", process_output_stream=hide_args)
    model = ScriptedModel([tool_call("lookup", {"card": "4111"}), Reply(text="done")])
    result = await agent(model, tools=[lookup], output_processors=[redactor]).generate("x")
    assert seen == ["4111"]  # the tool ran with the model's real arguments
    assert result.tool_calls[0].args == {"card": "[REDACTED]"}
    stored = [str(m.content.parts) for m in result.messages]
    assert "4111" not in "".join(stored)


@pytest.mark.asyncio
async def test_notify_violation_awaits_async_callbacks_and_swallows_errors() -> None:  # D8
    from procession import ProcessorViolation, notify_violation

    got: list[str] = []

    class Reporter:
        id = "reporter"

        async def on_violation(self, violation: ProcessorViolation[Any]) -> None:
            got.append(violation.message)
            raise RuntimeError("a broken callback must not change the run")

    await notify_violation(Reporter(), ProcessorViolation("reporter", "found a card"))
    assert got == ["found a card"]
