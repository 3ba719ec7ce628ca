"""stream_with_retries / RetryingModel: through the OpenAI adapter and with plain models."""

from __future__ import annotations

import asyncio
import email.utils
import logging
import time
from collections.abc import AsyncIterator

import pytest
from openai import AsyncOpenAI

from procession.chunks import Chunk, finish_chunk
from procession.errors import APICallError
from procession.models.base import ModelCallOptions, StreamResult
from procession.models.openai import OpenAIChatModel
from procession.models.retry import RetryingModel, retry_delay, stream_with_retries
from procession.signals import AbortSignal
from procession.testing import check_model
from tests.models.helpers import HELLO, drain
from tests.models.openai_server import OpenAIServer, Reply, chat_chunk, chat_stream


class Sleeps:
    """A fake sleep that records its delays."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def _error(status: int | None, **headers: str) -> APICallError:
    return APICallError(f"status {status}", status_code=status, response_headers=headers)


class Flaky:
    """A model that fails with ``errors`` (one per call, before or after a chunk) then works."""

    provider = "test"
    model_id = "flaky"
    specification_version = "v2"
    supports_structured_output = False

    def __init__(self, *errors: APICallError, after_chunk: bool = False) -> None:
        self.errors = list(errors)
        self.after_chunk = after_chunk
        self.calls = 0
        self.closed = 0

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        self.calls += 1
        error = self.errors.pop(0) if self.errors else None
        if error is not None and not self.after_chunk:
            raise error
        return StreamResult(stream=self._chunks(error))

    async def _chunks(self, error: APICallError | None) -> AsyncIterator[Chunk]:
        try:
            yield Chunk("text-start", {"id": "t"})
            if error is not None:
                raise error
            yield Chunk("text-delta", {"id": "t", "text": "ok"})
            yield Chunk("text-end", {"id": "t"})
            yield finish_chunk("stop")
        finally:
            self.closed += 1


@pytest.mark.asyncio
async def test_429_with_retry_after_then_success_through_the_sdk(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    limited = {"error": {"message": "Rate limit", "type": "requests"}}
    server.reply(
        Reply(status=429, json=limited, headers={"retry-after": "2"}),
        Reply(status=500, json={"error": {"message": "oops"}}, headers={"retry-after-ms": "250"}),
        chat_stream(chat_chunk({"content": "made it"}), chat_chunk({}, "stop")),
    )
    sleeps = Sleeps()
    model = OpenAIChatModel("gpt-test", client=client)
    result = await stream_with_retries(model, ModelCallOptions(prompt=HELLO), sleep=sleeps)
    chunks = await drain(result)
    assert sleeps.delays == [2.0, 0.25]
    assert len(server.requests) == 3
    assert [c.payload["text"] for c in chunks if c.type == "text-delta"] == ["made it"]
    assert result.request["body"]["model"] == "gpt-test"


@pytest.mark.asyncio
async def test_400_is_not_retried(server: OpenAIServer, client: AsyncOpenAI) -> None:
    server.reply(Reply(status=400, json={"error": {"message": "bad"}}))
    sleeps = Sleeps()
    model = RetryingModel(OpenAIChatModel("gpt-test", client=client), sleep=sleeps)
    with pytest.raises(APICallError) as caught:
        await model.do_stream(ModelCallOptions(prompt=HELLO))
    assert caught.value.status_code == 400
    assert sleeps.delays == []
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_mid_stream_error_before_the_first_chunk_is_retried(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(
        chat_stream({"error": {"message": "overloaded", "type": "server_error"}}),
        chat_stream(chat_chunk({"content": "fine"}), chat_chunk({}, "stop")),
    )
    sleeps = Sleeps()
    model = OpenAIChatModel("gpt-test", client=client)
    chunks = await drain(
        await stream_with_retries(model, ModelCallOptions(prompt=HELLO), sleep=sleeps)
    )
    assert sleeps.delays == [0.5]
    assert chunks[-1].type == "finish"


@pytest.mark.asyncio
async def test_retrying_model_passes_the_contract(client: AsyncOpenAI) -> None:
    model = RetryingModel(OpenAIChatModel("gpt-test", client=client))
    assert (model.provider, model.model_id) == ("openai", "gpt-test")
    await check_model(model)


@pytest.mark.parametrize("status", [400, 401, 404, 422])
@pytest.mark.asyncio
async def test_non_retryable_statuses_raise_at_once(status: int) -> None:
    model, sleeps = Flaky(_error(status)), Sleeps()
    with pytest.raises(APICallError):
        await stream_with_retries(model, ModelCallOptions(prompt=HELLO), sleep=sleeps)
    assert (model.calls, sleeps.delays) == (1, [])


@pytest.mark.asyncio
async def test_exponential_backoff_until_retries_run_out() -> None:
    model, sleeps = Flaky(_error(503), _error(None), _error(502), _error(500)), Sleeps()
    with pytest.raises(APICallError) as caught:
        await stream_with_retries(
            model, ModelCallOptions(prompt=HELLO), max_retries=3, base_delay=1, sleep=sleeps
        )
    assert caught.value.status_code == 500
    assert model.calls == 4
    assert sleeps.delays == [1, 2, 4]


@pytest.mark.asyncio
async def test_default_is_two_retries_and_settings_can_change_it() -> None:
    model, sleeps = Flaky(*(_error(503) for _ in range(5))), Sleeps()
    with pytest.raises(APICallError):
        await stream_with_retries(model, ModelCallOptions(prompt=HELLO), sleep=sleeps)
    assert model.calls == 3
    model = Flaky(*(_error(503) for _ in range(5)))
    with pytest.raises(APICallError):
        await stream_with_retries(
            model, ModelCallOptions(prompt=HELLO, settings={"max_retries": 0}), sleep=sleeps
        )
    assert model.calls == 1


@pytest.mark.asyncio
async def test_an_error_after_a_chunk_is_not_retried() -> None:
    model, sleeps = Flaky(_error(503), after_chunk=True), Sleeps()
    result = await stream_with_retries(model, ModelCallOptions(prompt=HELLO), sleep=sleeps)
    seen: list[str] = []

    async def consume() -> None:
        async for chunk in result.stream:
            seen.append(chunk.type)

    with pytest.raises(APICallError):
        await consume()
    assert seen == ["text-start"]
    assert (model.calls, sleeps.delays) == (1, [])


def test_delay_rules() -> None:
    assert retry_delay(_error(429), 0, base_delay=0.5, max_delay=8) == 0.5
    assert retry_delay(_error(429), 5, base_delay=0.5, max_delay=8) == 8
    assert retry_delay(_error(429, **{"Retry-After": "20"}), 0, base_delay=0.5, max_delay=8) == 20


@pytest.mark.asyncio
async def test_a_very_long_retry_after_is_not_waited_for() -> None:
    model, sleeps = Flaky(_error(429, **{"retry-after": "3600"})), Sleeps()
    with pytest.raises(APICallError):
        await stream_with_retries(model, ModelCallOptions(prompt=HELLO), sleep=sleeps)
    assert sleeps.delays == []


@pytest.mark.asyncio
async def test_abort_during_the_backoff_sleep() -> None:
    signal = AbortSignal()
    model = Flaky(_error(503))
    options = ModelCallOptions(prompt=HELLO, abort_signal=signal)
    loop = asyncio.get_running_loop()
    loop.call_later(0.01, signal.abort, "stop")
    started = loop.time()
    with pytest.raises(asyncio.CancelledError):
        await stream_with_retries(model, options, base_delay=30)
    assert loop.time() - started < 5
    assert model.calls == 1


@pytest.mark.asyncio
async def test_task_cancellation_during_the_backoff_sleep() -> None:
    model = Flaky(_error(503))
    task = asyncio.ensure_future(
        stream_with_retries(model, ModelCallOptions(prompt=HELLO), base_delay=30)
    )
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert model.calls == 1


@pytest.mark.asyncio
async def test_aclose_reaches_the_wrapped_stream() -> None:
    model = Flaky()
    result = await stream_with_retries(model, ModelCallOptions(prompt=HELLO))
    assert (await result.stream.__anext__()).type == "text-start"
    await result.stream.aclose()  # type: ignore[attr-defined]
    assert model.closed == 1


def _http_date(seconds_from_now: float) -> str:
    return email.utils.formatdate(time.time() + seconds_from_now, usegmt=True)


def test_retry_after_as_an_http_date() -> None:
    later = _error(503, **{"Retry-After": _http_date(30)}).retry_after
    assert later is not None
    assert 27 <= later <= 30
    assert _error(503, **{"retry-after": _http_date(-60)}).retry_after == 0.0
    assert _error(503, **{"retry-after": "soon"}).retry_after is None
    assert _error(503, **{"retry-after": "-5"}).retry_after is None
    assert _error(503, **{"retry-after-ms": "nan", "retry-after": "3"}).retry_after == 3.0


def test_an_explicit_retry_after_wins_over_headers() -> None:
    error = APICallError(
        "x", status_code=429, response_headers={"retry-after": "9"}, retry_after=1.5
    )
    assert error.retry_after == 1.5
    assert retry_delay(error, 3, base_delay=0.5, max_delay=8) == 1.5
    assert APICallError("x", status_code=429, retry_after=None).retry_after is None


@pytest.mark.parametrize(
    ("status", "header", "retryable"),
    [(400, "true", True), (503, "false", False), (429, "FALSE", False), (409, None, True)],
)
def test_x_should_retry_overrides_the_status(
    status: int, header: str | None, retryable: bool
) -> None:
    headers = {"X-Should-Retry": header} if header is not None else {}
    assert _error(status, **headers).is_retryable is retryable
    explicit = APICallError("x", status_code=status, response_headers=headers, is_retryable=False)
    assert explicit.is_retryable is False  # the adapter's own decision wins


@pytest.mark.asyncio
async def test_http_date_and_should_retry_through_the_sdk(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(
        Reply(
            status=400, json={"error": {"message": "try again"}}, headers={"x-should-retry": "true"}
        ),
        Reply(
            status=503, json={"error": {"message": "busy"}}, headers={"retry-after": _http_date(20)}
        ),
        chat_stream(chat_chunk({"content": "ok"}), chat_chunk({}, "stop")),
    )
    sleeps = Sleeps()
    model = OpenAIChatModel("gpt-test", client=client)
    await drain(await stream_with_retries(model, ModelCallOptions(prompt=HELLO), sleep=sleeps))
    assert len(server.requests) == 3
    assert sleeps.delays[0] == 0.5
    assert 17 <= sleeps.delays[1] <= 20


@pytest.mark.asyncio
async def test_x_should_retry_false_is_not_retried(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(
        Reply(status=500, json={"error": {"message": "no"}}, headers={"x-should-retry": "false"})
    )
    sleeps = Sleeps()
    with pytest.raises(APICallError) as caught:
        await stream_with_retries(
            OpenAIChatModel("gpt-test", client=client), ModelCallOptions(prompt=HELLO), sleep=sleeps
        )
    assert (caught.value.status_code, caught.value.is_retryable) == (500, False)
    assert (len(server.requests), sleeps.delays) == (1, [])


@pytest.mark.asyncio
async def test_openrouter_502_before_the_first_chunk_is_retried(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    error = {"error": {"code": 502, "message": "Provider returned error"}}
    server.reply(
        chat_stream(error),
        chat_stream(chat_chunk({"content": "fine"}), chat_chunk({}, "stop")),
    )
    sleeps = Sleeps()
    model = OpenAIChatModel("m", client=client, provider="openrouter")
    chunks = await drain(
        await stream_with_retries(model, ModelCallOptions(prompt=HELLO), sleep=sleeps)
    )
    assert sleeps.delays == [0.5]
    assert [c.payload["text"] for c in chunks if c.type == "text-delta"] == ["fine"]


@pytest.mark.asyncio
async def test_retries_and_giving_up_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    model, sleeps = (
        Flaky(_error(503, **{"retry-after": "1.25"}), _error(500), _error(502)),
        Sleeps(),
    )
    with caplog.at_level(logging.INFO, logger="procession.models"), pytest.raises(APICallError):
        await stream_with_retries(model, ModelCallOptions(prompt=HELLO), sleep=sleeps)
    records = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "procession.models"]
    assert records == [
        (logging.INFO, "test/flaky: retry 1 of 2 in 1.25 s after HTTP 503: status 503"),
        (logging.INFO, "test/flaky: retry 2 of 2 in 1.00 s after HTTP 500: status 500"),
        (logging.WARNING, "test/flaky: giving up after 2 retries: HTTP 502: status 502"),
    ]


@pytest.mark.asyncio
async def test_a_long_retry_after_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    model = Flaky(_error(429, **{"retry-after": "3600"}))
    with caplog.at_level(logging.INFO, logger="procession.models"), pytest.raises(APICallError):
        await stream_with_retries(model, ModelCallOptions(prompt=HELLO), sleep=Sleeps())
    (record,) = [r for r in caplog.records if r.name == "procession.models"]
    assert record.levelno == logging.WARNING
    assert "3600 s" in record.getMessage()


@pytest.mark.asyncio
async def test_non_retryable_errors_log_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="procession.models"), pytest.raises(APICallError):
        await stream_with_retries(
            Flaky(_error(400)), ModelCallOptions(prompt=HELLO), sleep=Sleeps()
        )
    assert [r for r in caplog.records if r.name == "procession.models"] == []
