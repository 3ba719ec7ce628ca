"""StreamErrorRetry: transient in-stream errors retry the step; everything else fails."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from procession import AbortSignal, Agent, APICallError, ConfigurationError
from procession.guardrails import RetryMatcher, StreamErrorRetry, stream_error_retry
from procession.testing import Reply, ScriptedModel


def _broken(code: str = "server_error", **extra: Any) -> Reply:
    body = {"type": "error", "code": code, "message": "The server had an error"}
    error = APICallError(
        "The server had an error while processing your request",
        response_body=json.dumps(body),
        is_retryable=False,
        **extra,
    )
    return Reply(text=["Hal"], stream_error=error)


@pytest.mark.asyncio
async def test_a_transient_stream_error_retries_the_step() -> None:
    model = ScriptedModel([_broken(), Reply(text=["Hello"])])
    agent = Agent(id="a", model=model, error_processors=[StreamErrorRetry()])
    chunks = [c async for c in agent.stream("hi")]
    result = await agent.generate("hi", model=ScriptedModel([_broken(), "Hello"]))
    assert result.text == "Hello"
    assert len(model.calls) == 2
    markers = [c for c in chunks if c.type == "step-finish"]
    assert markers[0].payload["stepResult"]["reason"] == "retry"  # D2: the client drops "Hal"


@pytest.mark.asyncio
async def test_other_errors_and_exhausted_retries_fail_the_run() -> None:
    invalid = Reply(error=APICallError("Invalid 'messages'", status_code=400))
    agent = Agent(id="a", model=ScriptedModel([invalid]), error_processors=[StreamErrorRetry()])
    with pytest.raises(APICallError, match="Invalid"):
        await agent.generate("hi")
    twice = ScriptedModel([_broken(), _broken(), "never"])
    agent = Agent(id="a", model=twice, error_processors=[StreamErrorRetry(max_retries=1)])
    with pytest.raises(APICallError, match="server had an error"):
        await agent.generate("hi")
    assert len(twice.calls) == 2


@pytest.mark.asyncio
async def test_a_matcher_with_its_own_policy_comes_first() -> None:
    attempts: list[int] = []

    async def on_retry(error: BaseException, attempt: int) -> None:
        attempts.append(attempt)

    matcher = RetryMatcher(
        lambda e: "flaky" in str(e), max_retries=3, delay_ms=1, on_retry=on_retry
    )
    flaky = Reply(text=["x"], stream_error=APICallError("flaky upstream", is_retryable=False))
    model = ScriptedModel([flaky, flaky, flaky, "made it"])
    agent = Agent(id="a", model=model, error_processors=[StreamErrorRetry(matchers=[matcher])])
    assert (await agent.generate("hi")).text == "made it"
    assert attempts == [1, 2, 3]


@pytest.mark.asyncio
async def test_unknown_errors_only_when_asked_and_never_authorization() -> None:
    odd = APICallError("something odd", status_code=418, is_retryable=False)
    denied = APICallError("Invalid API key", status_code=401, is_retryable=False)
    retry = StreamErrorRetry(retry_unknown_errors=True)
    assert retry.policy_for(odd) is not None
    assert retry.policy_for(denied) is None
    assert StreamErrorRetry().policy_for(odd) is None
    assert StreamErrorRetry().policy_for(APICallError("x", status_code=503)) is not None
    overloaded = APICallError("Overloaded", is_retryable=False, data={"type": "overloaded_error"})
    assert StreamErrorRetry().policy_for(overloaded) is not None
    assert StreamErrorRetry(builtin_matchers=False).policy_for(overloaded) is None


@pytest.mark.asyncio
async def test_the_wait_honours_retry_after_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    async def fake_wait(seconds: float, signal: AbortSignal | None) -> bool:
        waits.append(seconds)
        return True

    monkeypatch.setattr(stream_error_retry, "_wait", fake_wait)
    retry = StreamErrorRetry(delay_ms=100, max_retry_after_ms=5_000)
    soon = APICallError("overloaded", response_headers={"retry-after-ms": "2500"})
    late = APICallError("overloaded", response_headers={"retry-after": "120"})
    assert await retry.process_api_error(error=soon, retry_count=0) == {"retry": True}
    assert await retry.process_api_error(error=late, retry_count=0) == {"retry": True}
    assert await retry.process_api_error(error=APICallError("overloaded"), retry_count=0)
    assert waits == [2.5, 5.0, 0.1]


@pytest.mark.asyncio
async def test_the_abort_signal_ends_the_wait_without_a_retry() -> None:
    signal = AbortSignal()
    retry = StreamErrorRetry(delay_ms=60_000)
    loop = asyncio.get_running_loop()
    loop.call_later(0.01, signal.abort)
    answer = await retry.process_api_error(
        error=APICallError("overloaded"), retry_count=0, abort_signal=signal
    )
    assert answer is None
    assert signal.aborted


def test_options_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="max_retries"):
        StreamErrorRetry(max_retries=-1)
    with pytest.raises(ConfigurationError, match=r"matchers\[0\]"):
        StreamErrorRetry(matchers=["server_error"])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match=r"matchers\[0\].max_retries"):
        StreamErrorRetry(matchers=[RetryMatcher(lambda e: True, max_retries=True)])
    with pytest.raises(ConfigurationError, match="retry_unknown_errors"):
        StreamErrorRetry(retry_unknown_errors=1)  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_a_temporarily_unavailable_code_retries_the_step() -> None:
    model = ScriptedModel([_broken("temporarily_unavailable"), Reply(text=["Hello"])])
    agent = Agent(id="a", model=model, error_processors=[StreamErrorRetry()])
    result = await agent.generate("hi")
    assert result.text == "Hello"
    assert len(model.calls) == 2
