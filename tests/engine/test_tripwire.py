"""Tripwires: D8, D11, D12."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Chunk, ProcessorViolation, tool
from procession.testing import RecordingProcessor, Reply, ScriptedModel, Trace

from .helpers import agent, collect, tool_call, types


@tool
def act(n: int) -> int:
    """Act."""
    return n


@pytest.mark.asyncio
async def test_tripwire_chunk_shape_and_generate_result() -> None:  # D12
    guard = RecordingProcessor(
        "guard",
        process_input=lambda **kw: kw["abort"]("Blocked", metadata={"category": "pii"}),
    )
    model = ScriptedModel([])
    stream = agent(model, input_processors=[guard]).stream("secret")
    chunks = await collect(stream)
    assert types(chunks) == ["tripwire"]
    assert chunks[0].to_dict() == {
        "type": "tripwire",
        "runId": stream.run_id,
        "from": "AGENT",
        "payload": {
            "reason": "Blocked",
            "retry": False,
            "metadata": {"category": "pii"},
            "processorId": "guard",
        },
    }
    result = await stream.result()
    assert result.finish_reason == "other"
    assert result.text == ""
    assert result.tripwire == chunks[0].payload


@pytest.mark.asyncio
async def test_default_reasons() -> None:  # D12
    guard = RecordingProcessor("guard", process_input=lambda **kw: kw["abort"]())
    result = await agent(ScriptedModel([]), input_processors=[guard]).generate("x")
    assert result.tripwire is not None
    assert result.tripwire["reason"] == "Tripwire triggered by guard"

    def block(**kw: Any) -> Chunk:
        if kw["part"].type == "text-delta":
            kw["abort"]()
        part: Chunk = kw["part"]
        return part

    stream_guard = RecordingProcessor("filter", process_output_stream=block)
    model = ScriptedModel([Reply(text=["x"])])
    result = await agent(model, output_processors=[stream_guard]).generate("x")
    assert result.tripwire is not None
    assert result.tripwire["reason"] == "Stream part blocked by filter"


@pytest.mark.asyncio
async def test_blocked_run_result_has_no_text_even_after_accepted_steps() -> None:  # D12
    guard = RecordingProcessor(
        "guard",
        process_output_step=lambda **kw: kw["abort"]("nope") if kw["step_number"] == 1 else None,
    )
    model = ScriptedModel(
        [
            Reply(text=["step zero "], tool_calls=tool_call("act", {"n": 1}).tool_calls),
            Reply(text=["blocked text"]),
        ]
    )
    result = await agent(model, tools=[act], output_processors=[guard]).generate("Go")
    assert result.text == ""
    assert result.finish_reason == "other"
    assert len(result.steps) == 1  # earlier steps stay (D11)
    stored = result.messages[0].text
    assert "blocked text" not in stored
    assert "step zero" in stored


@pytest.mark.asyncio
async def test_output_step_abort_runs_no_tools_and_no_output_result() -> None:  # D11
    ran: list[int] = []

    @tool
    def side_effect(n: int) -> int:
        """Has side effects."""
        ran.append(n)
        return n

    trace = Trace()
    guard = RecordingProcessor(
        "guard",
        ["process_output_result"],
        trace=trace,
        process_output_step=lambda **kw: kw["abort"]("stop here"),
    )
    model = ScriptedModel([tool_call("side_effect", {"n": 1})])
    stream = agent(model, tools=[side_effect], output_processors=[guard]).stream("Go")
    chunks = await collect(stream)
    assert ran == []
    assert trace.hooks("guard") == ["process_output_step"]
    assert chunks[-1].type == "tripwire"
    assert len(model.calls) == 1


@pytest.mark.asyncio
async def test_stream_abort_ends_the_stream_at_once() -> None:  # D11, D12
    trace = Trace()

    def block(**kw: Any) -> Chunk:
        if kw["part"].type == "text-delta" and "bad" in kw["part"].payload["text"]:
            kw["abort"]("bad word")
        part: Chunk = kw["part"]
        return part

    first = RecordingProcessor("filter", trace=trace, process_output_stream=block)
    later = RecordingProcessor(
        "later",
        ["process_output_stream", "process_output_step", "process_output_result"],
        trace=trace,
    )
    model = ScriptedModel([Reply(text=["good ", "bad ", "more"])])
    chunks = await collect(agent(model, output_processors=[first, later]).stream("x"))
    assert types(chunks)[-1] == "tripwire"
    assert [c.payload["text"] for c in chunks if c.type == "text-delta"] == ["good "]
    later_parts = [
        c["part"].payload.get("text") for c in trace.of("process_output_stream", "later")
    ]
    assert "bad " not in later_parts
    assert trace.of("process_output_step") == []
    assert trace.of("process_output_result") == []


@pytest.mark.asyncio
async def test_tool_result_abort_stops_before_the_next_model_call() -> None:  # D11
    guard = RecordingProcessor(
        "scan",
        process_tool_result=lambda **kw: kw["abort"]("blocked by scan-tool-result"),
    )
    model = ScriptedModel([tool_call("act", {"n": 1})])
    stream = agent(model, tools=[act], output_processors=[guard]).stream("Go")
    chunks = await collect(stream)
    assert chunks[-1].type == "tripwire"
    assert not any(c.type == "tool-result" for c in chunks)
    assert len(model.calls) == 1
    result = await stream.result()
    assert result.messages == []  # the blocked step left the message list


@pytest.mark.parametrize(
    "hook",
    [
        "process_input",
        "process_input_step",
        "process_llm_request",
        "process_llm_response",
        "process_output_stream",
        "process_output_step",
        "process_tool_result",
        "process_output_result",
    ],
)
@pytest.mark.asyncio
async def test_on_violation_fires_for_every_abort(hook: str) -> None:  # D8
    def behaviour(**kw: Any) -> Any:
        kw["abort"]("why", metadata={"k": 1})

    guard = RecordingProcessor("guard", behaviours={hook: behaviour})
    lane = (
        "input_processors"
        if hook
        in ("process_input", "process_input_step", "process_llm_request", "process_llm_response")
        else "output_processors"
    )
    model = ScriptedModel([tool_call("act", {"n": 1}), Reply(text=["done"])])
    result = await agent(model, tools=[act], **{lane: [guard]}).generate("Go")
    assert result.tripwire is not None
    assert guard.violations == [
        ProcessorViolation(processor_id="guard", message="why", detail={"k": 1}, retry=False)
    ]


@pytest.mark.asyncio
async def test_on_violation_fires_for_retried_aborts_and_may_be_async() -> None:  # D8
    seen: list[str] = []

    async def on_violation(violation: ProcessorViolation[Any]) -> None:
        seen.append(f"{violation.message}:{violation.retry}")

    guard = RecordingProcessor(
        "guard",
        on_violation=on_violation,
        process_output_step=lambda **kw: (
            kw["abort"]("again", retry=True) if kw["retry_count"] == 0 else None
        ),
    )
    model = ScriptedModel([Reply(text=["a"]), Reply(text=["b"])])
    await agent(model, output_processors=[guard], max_processor_retries=1).generate("x")
    assert seen == ["again:True"]


@pytest.mark.asyncio
async def test_on_violation_exceptions_are_swallowed() -> None:  # D8
    def broken(violation: ProcessorViolation[Any]) -> None:
        raise RuntimeError("callback failed")

    guard = RecordingProcessor(
        "guard", on_violation=broken, process_input=lambda **kw: kw["abort"]("no")
    )
    result = await agent(ScriptedModel([]), input_processors=[guard]).generate("x")
    assert result.tripwire is not None
    assert result.tripwire["reason"] == "no"


@pytest.mark.asyncio
async def test_raising_tripwire_directly_fills_processor_id() -> None:  # D12
    from procession import TripWire

    def behaviour(**kw: Any) -> None:
        raise TripWire("direct")

    guard = RecordingProcessor("direct-guard", process_input=behaviour)
    result = await agent(ScriptedModel([]), input_processors=[guard]).generate("x")
    assert result.tripwire is not None
    assert result.tripwire["processorId"] == "direct-guard"
