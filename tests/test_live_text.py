"""``text_stream``, ``result()`` and ``live_text()``: errors raised, live text when nothing can
reject a step, retractions marked (issue 24, docs/decisions/0341)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from procession import Agent, Chunk, ModelSetupError, ProcessorError, Retracted, finish_chunk
from procession.models.base import ModelCallOptions, StreamResult
from procession.testing import Reply, ScriptedModel


class WatchingModel:
    """Streams ``parts`` and notes, each time it resumes after a delta, what the consumer had
    received by then: text the consumer saw mid-step was streamed live, not held."""

    specification_version = "v2"
    supports_structured_output = False
    provider = "watching"
    model_id = "watching-model"

    def __init__(self, parts: list[str], seen: list[str]) -> None:
        self.parts = parts
        self.seen = seen
        self.snapshots: list[list[str]] = []

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """One text answer, delta by delta."""
        return StreamResult(stream=self._stream())

    async def _stream(self) -> AsyncIterator[Chunk]:
        yield Chunk("text-start", {"id": "t"})
        for part in self.parts:
            yield Chunk("text-delta", {"id": "t", "text": part})
            self.snapshots.append(list(self.seen))  # resumed: what had the consumer got?
        yield Chunk("text-end", {"id": "t"})
        yield finish_chunk("stop", None)


class Picky:
    """Rejects the first attempt of every run (``process_output_step``, retry=True)."""

    id = "picky"

    def process_output_step(self, *, abort: Any, retry_count: int, **_: Any) -> None:
        if retry_count == 0:
            abort("too short", retry=True)


class Blocker:
    """Blocks the run after its first step."""

    id = "blocker"

    def process_output_step(self, *, abort: Any, **_: Any) -> None:
        abort("not allowed")


def _keyless(monkeypatch: pytest.MonkeyPatch) -> Agent:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return Agent(id="a", model="openai/gpt-5-mini")


@pytest.mark.asyncio
async def test_text_stream_raises_the_runs_error(monkeypatch: pytest.MonkeyPatch) -> None:  # D21
    stream = _keyless(monkeypatch).stream("hi")
    received: list[str] = []

    async def read() -> None:
        async for text in stream.text_stream:
            received.append(text)

    with pytest.raises(ModelSetupError, match="OPENAI_API_KEY"):
        await read()
    assert received == []


@pytest.mark.asyncio
async def test_result_raises_like_generate_and_the_stream_still_ends_with_error(  # D21
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = _keyless(monkeypatch)
    with pytest.raises(ModelSetupError):
        await agent.stream("hi").result()
    with pytest.raises(ModelSetupError):
        await agent.stream("hi").text()
    stream = agent.stream("hi")
    chunks = [chunk async for chunk in stream]
    assert chunks[-1].type == "error"  # the stream itself does not raise (D21)
    kept = await stream.result(raise_error=False)
    assert isinstance(kept.error, ModelSetupError)
    assert kept.finish_reason == "error"


@pytest.mark.asyncio
async def test_a_processors_error_reaches_text_stream() -> None:  # D10, D21
    class Crashy:
        id = "crashy"

        def process_output_step(self, **_: Any) -> None:
            raise ValueError("guardrail crashed")

    agent = Agent(id="a", model=ScriptedModel(["secret"]), output_processors=[Crashy()])
    with pytest.raises(ProcessorError, match="crashy"):
        _ = [text async for text in agent.stream("hi").text_stream]


@pytest.mark.asyncio
async def test_text_streams_as_it_comes_when_nothing_can_reject_the_step() -> None:  # D31
    seen: list[str] = []
    model = WatchingModel(["Hel", "lo", "!"], seen)
    stream = Agent(id="a", model=model).stream("hi")
    async for text in stream.text_stream:
        seen.append(text)
    assert seen == ["Hel", "lo", "!"]
    assert model.snapshots == [["Hel"], ["Hel", "lo"], ["Hel", "lo", "!"]]


@pytest.mark.asyncio
async def test_text_waits_for_the_verdict_when_a_processor_can_reject_the_step() -> None:  # D31
    seen: list[str] = []
    model = WatchingModel(["Hel", "lo"], seen)
    agent = Agent(id="a", model=model, output_processors=[Blocker()])
    stream = agent.stream("hi")
    async for text in stream.text_stream:
        seen.append(text)
    assert seen == []  # blocked: the step's text never counted as accepted (D12)
    assert model.snapshots == [[], []]
    assert (await stream.result()).tripwire is not None


@pytest.mark.asyncio
async def test_an_api_error_retry_budget_makes_text_wait() -> None:  # D4, D14
    class RetryApiErrors:
        id = "retry-api"

        def process_api_error(self, **_: Any) -> dict[str, Any]:
            return {"retry": True}

    seen: list[str] = []
    model = WatchingModel(["a", "b"], seen)
    waiting = Agent(id="a", model=model, error_processors=[RetryApiErrors()])
    async for text in waiting.stream("hi").text_stream:
        seen.append(text)
    assert model.snapshots == [[], []]
    seen.clear()
    model.snapshots.clear()
    no_budget = Agent(
        id="b", model=model, error_processors=[RetryApiErrors()], max_processor_retries=0
    )
    async for text in no_budget.stream("hi").text_stream:
        seen.append(text)
    assert model.snapshots == [["a"], ["a", "b"]]


@pytest.mark.asyncio
async def test_live_text_marks_a_rejected_attempt_as_retracted() -> None:  # D2, D31
    model = ScriptedModel([Reply(text=["first ", "try"]), Reply(text=["second"])])
    agent = Agent(id="a", model=model, output_processors=[Picky()], max_processor_retries=1)
    items = [item async for item in agent.stream("hi").live_text()]
    assert items == ["first ", "try", Retracted("first try", "too short", "picky"), "second"]
    accepted = Agent(
        id="b",
        model=ScriptedModel([Reply(text=["first ", "try"]), Reply(text=["second"])]),
        output_processors=[Picky()],
        max_processor_retries=1,
    )
    assert [t async for t in accepted.stream("hi").text_stream] == ["second"]


@pytest.mark.asyncio
async def test_live_text_retracts_a_blocked_step_and_raises_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # D12, D21
    agent = Agent(id="a", model=ScriptedModel(["no way"]), output_processors=[Blocker()])
    items = [item async for item in agent.stream("hi").live_text()]
    assert items == ["no way", Retracted("no way", "not allowed", "blocker")]
    with pytest.raises(ModelSetupError):
        _ = [item async for item in _keyless(monkeypatch).stream("hi").live_text()]


@pytest.mark.asyncio
async def test_step_mode_text_is_accepted_already() -> None:  # D31
    model = ScriptedModel([Reply(text=["first"]), Reply(text=["second"])])
    agent = Agent(id="a", model=model, output_processors=[Picky()], max_processor_retries=1)
    stream = agent.stream("hi", release="step")
    assert [item async for item in stream.live_text()] == ["second"]
