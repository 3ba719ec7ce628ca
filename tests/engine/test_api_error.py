"""Provider errors and the error lane: D14, D21."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from procession import Agent, APICallError, Chunk, Message
from procession.models.base import ModelCallOptions, StreamResult
from procession.testing import RecordingProcessor, Reply, ScriptedModel, Trace

from .helpers import agent, collect


def rejected(message: str = "assistant prefill not supported") -> Reply:
    return Reply(error=APICallError(message, status_code=400, response_body='{"error": 1}'))


@pytest.mark.asyncio
async def test_unrecovered_error_ends_stream_with_error_chunk_and_generate_raises() -> None:
    model = ScriptedModel([rejected()])
    chunks = await collect(agent(model).stream("x"))
    assert chunks[-1].type == "error"  # D21
    with pytest.raises(APICallError, match="prefill"):
        await agent(ScriptedModel([rejected()])).generate("x")


@pytest.mark.asyncio
async def test_error_processor_retry_reruns_the_step_from_input_step() -> None:  # D14
    trace = Trace()

    def recover(**kw: Any) -> dict[str, bool] | None:
        if kw["retry_count"] > 0:
            return None
        kw["message_list"].add(Message.user("continue"), "context")
        return {"retry": True}

    handler = RecordingProcessor("prefill", trace=trace, process_api_error=recover)
    seen = RecordingProcessor("seen", ["process_input_step"], trace=trace)
    model = ScriptedModel([rejected(), Reply(text=["recovered"])])
    stream = agent(model, error_processors=[handler], input_processors=[seen]).stream("x")
    chunks = await collect(stream)
    result = await stream.result()
    assert result.text == "recovered"
    assert trace.hooks() == [
        "seen.process_input_step",
        "prefill.process_api_error",
        "seen.process_input_step",
    ]
    assert [c["step_number"] for c in trace.of("process_input_step")] == [0, 0]
    assert model.calls[1].prompt[-1]["content"][0]["text"] == "continue"
    retry_markers = [
        c
        for c in chunks
        if c.type == "step-finish" and c.payload["stepResult"]["reason"] == "retry"
    ]
    assert len(retry_markers) == 1


@pytest.mark.asyncio
async def test_first_retry_wins_and_exceptions_ask_the_next() -> None:  # D14, D10
    trace = Trace()

    def broken(**kw: Any) -> None:
        raise RuntimeError("handler bug")

    first = RecordingProcessor("broken", trace=trace, process_api_error=broken)
    second = RecordingProcessor(
        "retrier",
        trace=trace,
        process_api_error=lambda **kw: {"retry": True} if kw["retry_count"] == 0 else None,
    )
    third = RecordingProcessor("never", ["process_api_error"], trace=trace)
    model = ScriptedModel([rejected(), Reply(text=["ok"])])
    result = await agent(model, error_processors=[first, second, third]).generate("x")
    assert result.text == "ok"
    assert trace.hooks() == ["broken.process_api_error", "retrier.process_api_error"]


@pytest.mark.asyncio
async def test_api_error_retries_are_capped_by_the_budget() -> None:  # D4, D14
    always = RecordingProcessor("always", process_api_error=lambda **kw: {"retry": True})
    model = ScriptedModel([rejected()], repeat_last=True)
    with pytest.raises(APICallError):
        await agent(model, error_processors=[always], max_processor_retries=2).generate("x")
    assert len(model.calls) == 3


@pytest.mark.asyncio
async def test_api_error_retry_count_is_separate_from_processor_retries() -> None:  # D4, D5
    trace = Trace()
    handler = RecordingProcessor(
        "h",
        trace=trace,
        process_api_error=lambda **kw: {"retry": True},
    )
    guard = RecordingProcessor(
        "g",
        process_output_step=lambda **kw: (
            kw["abort"]("again", retry=True) if kw["retry_count"] == 0 else None
        ),
    )
    model = ScriptedModel([rejected(), Reply(text=["a"]), rejected(), Reply(text=["b"])])
    result = await agent(
        model, error_processors=[handler], output_processors=[guard], max_processor_retries=2
    ).generate("x")
    assert result.text == "b"
    assert [c["retry_count"] for c in trace.of("process_api_error")] == [0, 1]


@pytest.mark.asyncio
async def test_stream_error_mid_stream_goes_to_error_processors() -> None:  # D14
    handler = RecordingProcessor(
        "h", process_api_error=lambda **kw: {"retry": True} if kw["retry_count"] == 0 else None
    )
    model = ScriptedModel(
        [Reply(text=["part"], stream_error=APICallError("reset")), Reply(text=["whole"])]
    )
    stream = agent(model, error_processors=[handler]).stream("x")
    await collect(stream)
    result = await stream.result()
    assert result.text == "whole"
    assert result.messages[0].text == "whole"  # the broken attempt's text was rolled back


class _DropsThenFails:
    """A model whose connection drops after its first text delta (raised, not a chunk)."""

    provider = "test"
    model_id = "drops-then-fails"
    specification_version = "v2"
    supports_structured_output = False

    def __init__(self) -> None:
        self.calls = 0

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        self.calls += 1

        async def stream() -> AsyncIterator[Chunk]:
            yield Chunk("text-delta", {"id": "t", "text": "hello"})
            raise ConnectionResetError("the connection dropped")

        return StreamResult(stream=stream())


class _Dropper:
    id = "dropper"

    def process_output_stream(self, *, part: Chunk, **_: Any) -> None:
        return None  # drops every chunk: the slow way, naming this hook


@pytest.mark.asyncio
async def test_a_model_error_after_a_dropped_chunk_is_the_models() -> None:  # D14, D10
    asked: list[str] = []
    handler = RecordingProcessor(
        "h", process_api_error=lambda **kw: asked.append(type(kw["error"]).__name__)
    )
    model = _DropsThenFails()
    stream = Agent(
        id="test-agent",
        instructions="test",
        model=model,
        output_processors=[_Dropper()],
        error_processors=[handler],
    ).stream("x")
    chunks = await collect(stream)
    error = chunks[-1].to_dict()["payload"]["error"]
    assert error["name"] == "ConnectionResetError"  # not a ProcessorError naming the dropper
    assert "processorId" not in error
    assert asked == ["ConnectionResetError"]  # the error lane was asked, as for any model error


@pytest.mark.asyncio
async def test_tripwire_from_api_error_is_terminal() -> None:
    stopper = RecordingProcessor("stop", process_api_error=lambda **kw: kw["abort"]("give up"))
    result = await agent(ScriptedModel([rejected()]), error_processors=[stopper]).generate("x")
    assert result.tripwire is not None
    assert result.tripwire["reason"] == "give up"


@pytest.mark.asyncio
async def test_error_processors_only_come_from_the_error_lane() -> None:  # D14
    trace = Trace()

    class Both:
        id = "both"

        def process_output_step(self) -> None:
            return None

        def process_api_error(self) -> dict[str, bool]:
            trace.calls.append(None)  # type: ignore[arg-type]
            return {"retry": True}

    with pytest.raises(APICallError):
        await agent(ScriptedModel([rejected()]), output_processors=[Both()]).generate("x")
    assert trace.calls == []


@pytest.mark.asyncio
async def test_transient_errors_are_retried_before_error_processors() -> None:  # D14
    trace = Trace()
    seen = RecordingProcessor("seen", ["process_api_error"], trace=trace)
    busy = Reply(error=APICallError("busy", status_code=503, response_headers={"retry-after": "0"}))
    model = ScriptedModel([busy, busy, Reply(text=["ok"])])
    result = await agent(model, error_processors=[seen]).generate("x")
    assert result.text == "ok"
    assert len(model.calls) == 3
    assert trace.calls == []


@pytest.mark.asyncio
async def test_transient_errors_beyond_max_retries_reach_error_processors() -> None:  # D14
    trace = Trace()
    seen = RecordingProcessor("seen", ["process_api_error"], trace=trace)
    busy = Reply(error=APICallError("busy", status_code=429, response_headers={"retry-after": "0"}))
    model = ScriptedModel([busy, busy])
    with pytest.raises(APICallError, match="busy"):
        await agent(model, error_processors=[seen], max_retries=1).generate("x")
    assert len(model.calls) == 2
    assert [c["error"].status_code for c in trace.of("process_api_error")] == [429]
