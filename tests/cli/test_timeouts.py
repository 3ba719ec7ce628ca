"""``BoundedModel``: bounded waits for any model, retried like any transport failure (D14)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from procession import Agent
from procession.chunks import Chunk, finish_chunk
from procession.cli.errors import describe_failure
from procession.cli.timeouts import BoundedModel, ModelTimeoutError, endpoint_of
from procession.errors import ConfigurationError
from procession.models.base import ModelCallOptions, StreamResult
from procession.testing import Reply, ScriptedModel


class Slow:
    """Answers after ``start`` seconds; waits ``gaps[i]`` before its i-th text chunk."""

    specification_version = "v2"
    provider = "test"
    model_id = "slow"
    supports_structured_output = False
    base_url = "http://127.0.0.1:9/v1"

    def __init__(self, start: float = 0.0, gaps: tuple[float, ...] = ()) -> None:
        self.start = start
        self.gaps = gaps
        self.calls = 0
        self.closed = False

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        self.calls += 1
        await asyncio.sleep(self.start)
        return StreamResult(stream=self._chunks())

    async def _chunks(self) -> AsyncIterator[Chunk]:
        try:
            yield Chunk("text-start", {"id": "t"})
            for index, gap in enumerate(self.gaps):
                await asyncio.sleep(gap)
                yield Chunk("text-delta", {"id": "t", "text": f"{index} "})
            yield Chunk("text-end", {"id": "t"})
            yield finish_chunk("stop")
        finally:
            self.closed = True


def options() -> ModelCallOptions:
    return ModelCallOptions(prompt=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}])


@pytest.mark.asyncio
async def test_a_call_that_does_not_start_in_time_fails() -> None:
    model = BoundedModel(Slow(start=5), connect_timeout=0.1, read_timeout=5)
    started = time.monotonic()
    with pytest.raises(ModelTimeoutError) as caught:
        await model.do_stream(options())
    assert time.monotonic() - started < 2
    assert caught.value.phase == "connect"
    assert caught.value.is_retryable
    assert caught.value.url == "http://127.0.0.1:9/v1"
    assert str(caught.value) == "no answer within 0.1 s"


@pytest.mark.asyncio
async def test_a_silent_stream_fails_and_is_closed() -> None:
    inner = Slow(gaps=(0.0, 5.0))
    model = BoundedModel(inner, connect_timeout=5, read_timeout=0.2)
    result = await model.do_stream(options())
    seen = [await anext(result.stream), await anext(result.stream)]
    assert seen[1].payload["text"] == "0 "
    with pytest.raises(ModelTimeoutError, match=r"^no data for 0\.2 s$"):
        await anext(result.stream)
    assert inner.closed


@pytest.mark.asyncio
async def test_a_slow_reader_is_not_a_silent_stream() -> None:
    # only the time spent waiting for a chunk counts, not the time the consumer takes
    model = BoundedModel(Slow(gaps=(0.05, 0.05, 0.05)), connect_timeout=5, read_timeout=0.2)
    result = await model.do_stream(options())
    texts = []
    async for chunk in result.stream:
        await asyncio.sleep(0.3)
        texts.append(chunk.payload.get("text"))
    assert texts == [None, "0 ", "1 ", "2 ", None, None]


@pytest.mark.asyncio
async def test_a_steady_stream_longer_than_the_limit_is_fine() -> None:
    model = BoundedModel(Slow(gaps=(0.1,) * 6), connect_timeout=5, read_timeout=0.3)
    result = await model.do_stream(options())
    chunks = [chunk async for chunk in result.stream]
    assert chunks[-1].type == "finish"


@pytest.mark.asyncio
async def test_cancelling_the_reader_is_not_a_timeout() -> None:
    model = BoundedModel(Slow(gaps=(5.0,)), connect_timeout=5, read_timeout=0.5)
    result = await model.do_stream(options())
    await anext(result.stream)

    async def read() -> Chunk:
        return await anext(result.stream)

    reader = asyncio.create_task(read())
    await asyncio.sleep(0.05)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    await asyncio.sleep(0.6)  # the timer must not fire into a task that is gone
    assert reader.cancelled()


@pytest.mark.asyncio
async def test_timeouts_are_retried_by_the_model_layer() -> None:  # D14
    inner = Slow(start=5)
    agent = Agent(id="a", model=BoundedModel(inner, connect_timeout=0.05, read_timeout=1))
    started = time.monotonic()
    result = await agent.stream("hi", max_retries=1).result(raise_error=False)
    assert inner.calls == 2
    assert isinstance(result.error, ModelTimeoutError)
    failure = describe_failure(
        result.error,
        model_label="test/slow",
        key_variable=None,
        elapsed=time.monotonic() - started,
        attempts=inner.calls,
    )
    assert failure.message.startswith("could not reach 127.0.0.1:9 (no answer within 0.05 s)")
    assert failure.message.endswith(" s and 2 attempts")


@pytest.mark.asyncio
async def test_the_wrapper_passes_answers_through() -> None:
    model = BoundedModel(ScriptedModel(["hello"]), connect_timeout=1, read_timeout=1)
    assert model.provider == "scripted"
    result = await Agent(id="a", model=model).generate("hi")
    assert result.text == "hello"
    assert model.attempts == 1
    assert endpoint_of(ScriptedModel([Reply(text=["x"])])) is None


@pytest.mark.parametrize(
    ("name", "value"), [("connect_timeout", 0), ("read_timeout", -1.0), ("read_timeout", True)]
)
def test_bad_limits_are_configuration_errors(name: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match=f"BoundedModel: {name} must be"):
        BoundedModel(ScriptedModel([]), **{name: value})  # type: ignore[arg-type]
