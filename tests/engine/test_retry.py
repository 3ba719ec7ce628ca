"""Retries with feedback: D1-D6."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Chunk, ToolResultInfo, tool
from procession.testing import RecordingProcessor, Reply, ScriptedModel, Trace

from .helpers import agent, collect, tool_call

FEEDBACK = (
    "[Processor Feedback] Your previous response was not accepted: {}. "
    "Please try again with the feedback in mind."
)


def reject_once(hook: str, reason: str = "too short") -> RecordingProcessor:
    """A processor whose ``hook`` aborts with retry the first time only."""
    calls = {"n": 0}

    def behaviour(**kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            kwargs["abort"](reason, retry=True, metadata={"n": 1})
        return kwargs.get("part")

    return RecordingProcessor("guard", behaviours={hook: behaviour})


@tool
def ping() -> str:
    """Ping."""
    return "pong"


@pytest.mark.parametrize(
    ("lane", "hook"),
    [
        ("input", "process_input_step"),
        ("input", "process_llm_request"),
        ("output", "process_output_stream"),
        ("input", "process_llm_response"),
        ("output", "process_output_step"),
    ],
)
@pytest.mark.asyncio
async def test_every_in_loop_hook_can_retry(lane: str, hook: str) -> None:  # D1
    model = ScriptedModel([Reply(text=["first"]), Reply(text=["second"])])
    lanes = {f"{lane}_processors": [reject_once(hook)]}
    result = await agent(model, max_processor_retries=2, **lanes).generate("Hi")
    assert result.tripwire is None
    if hook in ("process_input_step", "process_llm_request"):
        assert len(model.calls) == 1  # the retry happened before the first model call
        assert result.text == "first"
    else:
        assert len(model.calls) == 2
        assert result.text == "second"


@pytest.mark.asyncio
async def test_process_tool_result_can_retry_and_discards_tool_results() -> None:  # D1
    ran: list[str] = []

    @tool
    def lookup(key: str) -> str:
        """Look up."""
        ran.append(key)
        return f"value-{key}"

    model = ScriptedModel(
        [tool_call("lookup", {"key": "a"}), tool_call("lookup", {"key": "b"}), Reply(text=["ok"])]
    )
    guard = reject_once("process_tool_result", "bad tool output")
    result = await agent(
        model, tools=[lookup], output_processors=[guard], max_processor_retries=1
    ).generate("Go")
    assert ran == ["a", "b"]  # side effects cannot be undone
    assert result.text == "ok"
    assert [r.result for r in result.tool_results] == ["value-b"]
    invocations = [p for p in result.messages[0].content.parts if p.type == "tool-invocation"]
    assert len(invocations) == 1  # the rejected step's call left the message list


@pytest.mark.asyncio
async def test_retried_step_keeps_its_step_number_and_is_not_a_step() -> None:  # D6
    trace = Trace()
    seen = RecordingProcessor("seen", ["process_input_step"], trace=trace)
    guard = RecordingProcessor(
        "guard",
        trace=trace,
        process_output_step=lambda **kw: (
            kw["abort"]("again", retry=True) if kw["retry_count"] == 0 else None
        ),
    )
    model = ScriptedModel([Reply(text=["a"]), Reply(text=["b"])])
    result = await agent(
        model, input_processors=[seen], output_processors=[guard], max_processor_retries=3
    ).generate("Hi")
    assert [c["step_number"] for c in trace.of("process_input_step")] == [0, 0]
    assert [c["step_number"] for c in trace.of("process_output_step")] == [0, 0]
    assert [len(c["steps"]) for c in trace.of("process_output_step")] == [1, 1]  # D6: current
    assert [s.step_number for s in result.steps] == [0]
    assert result.text == "b"


@pytest.mark.asyncio
async def test_retry_feedback_reaches_the_model_as_a_tagged_system_message() -> None:  # D3
    model = ScriptedModel([Reply(text=["rude"]), Reply(text=["polite"])])
    guard = reject_once("process_output_step", "be polite")
    stream = agent(model, output_processors=[guard], max_processor_retries=1).stream("Hi")
    await collect(stream)
    second = model.calls[1].prompt
    assert second[0] == {"role": "system", "content": "You are a test agent."}
    assert second[1] == {"role": "system", "content": FEEDBACK.format("be polite")}
    assert all("rude" not in str(m) for m in second)  # the rejected answer left the list
    result = await stream.result()
    assert [m.role for m in result.messages] == ["assistant"]
    assert result.messages[0].text == "polite"


@pytest.mark.asyncio
async def test_streamed_retry_is_marked_by_a_retry_step_finish() -> None:  # D2
    model = ScriptedModel([Reply(text=["rude"]), Reply(text=["polite"])])
    guard = reject_once("process_output_step", "be polite")
    chunks = await collect(
        agent(model, output_processors=[guard], max_processor_retries=1).stream("Hi")
    )
    markers = [c for c in chunks if c.type == "step-finish"]
    assert markers[0].payload["stepResult"]["reason"] == "retry"
    assert markers[0].payload["stepResult"]["retryReason"] == "be polite"
    assert markers[0].payload["stepResult"]["retryProcessorId"] == "guard"
    assert markers[1].payload["stepResult"]["reason"] == "stop"
    assert not any(c.type == "tripwire" for c in chunks)


@pytest.mark.asyncio
async def test_retry_without_budget_is_a_terminal_tripwire() -> None:  # D4
    model = ScriptedModel([Reply(text=["rude"])])
    guard = reject_once("process_output_step", "be polite")
    result = await agent(model, output_processors=[guard]).generate("Hi")
    assert result.tripwire == {
        "reason": "be polite",
        "retry": True,
        "metadata": {"n": 1},
        "processorId": "guard",
    }
    assert len(model.calls) == 1


@pytest.mark.asyncio
async def test_budget_is_exhausted_then_tripwire() -> None:  # D4
    model = ScriptedModel([Reply(text=["no"])], repeat_last=True)
    guard = RecordingProcessor(
        "guard", process_output_step=lambda **kw: kw["abort"]("still bad", retry=True)
    )
    result = await agent(model, output_processors=[guard], max_processor_retries=2).generate("Hi")
    assert len(model.calls) == 3
    assert result.tripwire is not None
    assert result.tripwire["reason"] == "still bad"
    assert result.finish_reason == "other"


@pytest.mark.asyncio
async def test_error_processors_give_a_default_budget_of_ten() -> None:  # D4
    class Noop:
        id = "noop"

        def process_api_error(self) -> None:
            return None

    model = ScriptedModel([Reply(text=["no"])], repeat_last=True)
    guard = RecordingProcessor(
        "guard", process_output_step=lambda **kw: kw["abort"]("bad", retry=True)
    )
    await agent(model, output_processors=[guard], error_processors=[Noop()]).generate("Hi")
    assert len(model.calls) == 11


@pytest.mark.asyncio
async def test_call_option_overrides_agent_budget() -> None:  # D4
    model = ScriptedModel([Reply(text=["no"])], repeat_last=True)
    guard = RecordingProcessor(
        "guard", process_output_step=lambda **kw: kw["abort"]("bad", retry=True)
    )
    bot = agent(model, output_processors=[guard], max_processor_retries=5)
    await bot.generate("Hi", max_processor_retries=1)
    assert len(model.calls) == 2


@pytest.mark.asyncio
async def test_retries_do_not_count_against_max_steps() -> None:  # D4
    model = ScriptedModel([Reply(text=["no"]), Reply(text=["no"]), Reply(text=["yes"])])
    guard = RecordingProcessor(
        "guard",
        process_output_step=lambda **kw: (
            kw["abort"]("bad", retry=True) if kw["text"] == "no" else None
        ),
    )
    result = await agent(
        model, output_processors=[guard], max_processor_retries=5, max_steps=1
    ).generate("Hi")
    assert result.text == "yes"


@pytest.mark.asyncio
async def test_retry_count_is_cumulative_in_every_hook() -> None:  # D5
    trace = Trace()
    seen_in = RecordingProcessor(
        "in", ["process_input_step", "process_llm_request", "process_llm_response"], trace=trace
    )
    seen_out = RecordingProcessor(
        "out",
        ["process_output_stream", "process_tool_result", "process_output_result"],
        trace=trace,
    )
    guard = RecordingProcessor(
        "guard",
        trace=trace,
        process_output_step=lambda **kw: (
            kw["abort"]("x", retry=True) if kw["retry_count"] < 2 and not kw["tool_calls"] else None
        ),
    )
    model = ScriptedModel(
        [tool_call("ping", {}), Reply(text=["a"]), Reply(text=["b"]), Reply(text=["c"])]
    )
    await agent(
        model,
        tools=[ping],
        input_processors=[seen_in],
        output_processors=[seen_out, guard],
        max_processor_retries=5,
    ).generate("Hi")
    counts = {
        hook: [c["retry_count"] for c in trace.of(hook)]
        for hook in ("process_input_step", "process_llm_request", "process_output_result")
    }
    assert counts["process_input_step"] == [0, 0, 1, 2]
    assert counts["process_llm_request"] == [0, 0, 1, 2]
    assert counts["process_output_result"] == [2]
    stream_counts = [c["retry_count"] for c in trace.of("process_output_stream")]
    assert stream_counts[0] == 0
    assert stream_counts[-1] == 2
    assert [c["retry_count"] for c in trace.of("process_tool_result")] == [0]


@pytest.mark.asyncio
async def test_tool_calls_of_a_rejected_step_do_not_run() -> None:  # D1
    ran: list[int] = []

    @tool
    def act(n: int) -> int:
        """Act."""
        ran.append(n)
        return n

    model = ScriptedModel([tool_call("act", {"n": 1}), Reply(text=["fine"])])
    guard = RecordingProcessor(
        "guard",
        process_output_step=lambda **kw: (
            kw["abort"]("no tools", retry=True) if kw["tool_calls"] else None
        ),
    )
    result = await agent(
        model, tools=[act], output_processors=[guard], max_processor_retries=1
    ).generate("Go")
    assert ran == []
    assert result.text == "fine"
    assert result.tool_results == [] or isinstance(result.tool_results[0], ToolResultInfo)


@pytest.mark.asyncio
async def test_retry_from_process_input_is_terminal_with_retry_true() -> None:  # D1
    model = ScriptedModel([])
    guard = RecordingProcessor("guard", process_input=lambda **kw: kw["abort"]("no", retry=True))
    result = await agent(model, input_processors=[guard], max_processor_retries=3).generate("Hi")
    assert result.tripwire is not None
    assert result.tripwire["retry"] is True
    assert model.calls == []


@pytest.mark.asyncio
async def test_retry_from_process_output_result_is_terminal() -> None:  # D1
    model = ScriptedModel([Reply(text=["answer"])])
    guard = RecordingProcessor(
        "guard", process_output_result=lambda **kw: kw["abort"]("late", retry=True)
    )
    result = await agent(model, output_processors=[guard], max_processor_retries=3).generate("Hi")
    assert result.tripwire is not None
    assert result.tripwire["reason"] == "late"
    assert result.text == ""
    assert len(model.calls) == 1


@pytest.mark.asyncio
async def test_stream_retry_rolls_back_output_already_sent() -> None:  # D1, D2
    def block_bad(**kw: Any) -> Chunk:
        part: Chunk = kw["part"]
        if part.type == "text-delta" and part.payload["text"] == "bad":
            kw["abort"]("no bad words", retry=True)
        return part

    model = ScriptedModel([Reply(text=["ok ", "bad"]), Reply(text=["good"])])
    guard = RecordingProcessor("guard", process_output_stream=block_bad)
    stream = agent(model, output_processors=[guard], max_processor_retries=1).stream("Hi")
    chunks = await collect(stream)
    deltas = [c.payload["text"] for c in chunks if c.type == "text-delta"]
    assert deltas == ["ok ", "good"]
    result = await stream.result()
    assert result.text == "good"
    assert result.messages[0].text == "good"
