"""``StreamErrorRetry``: retry a step whose model stream broke with a transient error.

The model layer already retries a call that fails before its first chunk (429, 5xx,
connection errors, D14). An error *inside* a stream (an OpenAI Responses ``server_error``
event, Anthropic's ``overloaded_error`` mid-answer, a dropped connection) reaches the error
lane instead. This error processor asks for the step to run again when the error matches:

1. your ``matchers``, in order (a predicate, or a :class:`RetryMatcher` with its own
   ``max_retries``, ``delay_ms`` and ``on_retry``); the first match decides;
2. the built-in matchers: in-stream error codes known to be transient
   (:data:`TRANSIENT_STREAM_CODES`) and messages that say to retry;
3. the provider's own verdict (``APICallError.is_retryable``);
4. with ``retry_unknown_errors=True``, any error that is not about authorization.

It retries while ``retry_count`` (the API-error retries so far, D5) is below ``max_retries``
(default 1), after waiting ``delay_ms`` or the provider's ``Retry-After`` (capped at
``max_retry_after_ms``), whichever is longer. The wait ends early, without a retry, when the
caller's abort signal fires. Put it in ``error_processors``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from procession.guardrails._common.options import check_bool, check_int, check_number, option_error
from procession.processors.base import Processor
from procession.signals import AbortSignal

__all__ = [
    "TRANSIENT_STREAM_CODES",
    "RetryMatcher",
    "StreamErrorRetry",
    "is_transient_stream_error",
]

TRANSIENT_STREAM_CODES = frozenset(
    (
        "server_error",
        "internal_error",
        "rate_limit_exceeded",
        "overloaded_error",
        "server_is_overloaded",
        "service_unavailable",
        "temporarily_unavailable",
        "api_error",
    )
)
"""Error codes of in-stream error events that are worth another try."""

_RETRY_TEXT = re.compile(
    r"you can retry your request|please retry|try again later|overloaded|"
    r"stream (?:ended|closed|was closed) (?:unexpectedly|prematurely)|"
    r"connection (?:reset|closed|aborted)|incomplete chunked read|server disconnected",
    re.IGNORECASE,
)
_AUTHORIZATION = frozenset((401, 403, 407))


@dataclass(frozen=True, slots=True)
class RetryMatcher:
    """A matcher with its own retry policy.

    Attributes:
        match: ``error -> bool``.
        max_retries: Retries for errors it matches (default: the processor's).
        delay_ms: The wait before each retry (default: the processor's).
        on_retry: Called (sync or async) with ``(error, attempt)`` before each retry.
    """

    match: Callable[[BaseException], bool]
    max_retries: int | None = None
    delay_ms: float | None = None
    on_retry: Callable[[BaseException, int], Any] | None = None


class StreamErrorRetry(Processor):
    """Retries steps whose stream failed with a transient error (Mastra's
    ``StreamErrorRetryProcessor``).

    Args:
        matchers: Predicates or :class:`RetryMatcher` objects, tried first, in order.
        max_retries: Retries per run for matched errors (default 1).
        delay_ms: Milliseconds to wait before a retry (default 0).
        max_retry_after_ms: The longest ``Retry-After`` honoured (default 30 000).
        retry_unknown_errors: Also retry errors nothing matched, unless they are about
            authorization (401, 403, 407).
        builtin_matchers: Use the built-in matchers (default true).
    """

    id = "stream-error-retry-processor"

    def __init__(
        self,
        *,
        matchers: Sequence[RetryMatcher | Callable[[BaseException], bool]] = (),
        max_retries: int = 1,
        delay_ms: float = 0,
        max_retry_after_ms: float = 30_000,
        retry_unknown_errors: bool = False,
        builtin_matchers: bool = True,
    ) -> None:
        owner = "StreamErrorRetry"
        if not isinstance(matchers, list | tuple):
            raise option_error(owner, "matchers", matchers, "a list of predicates or matchers")
        policies: list[RetryMatcher] = []
        for index, matcher in enumerate(matchers):
            if isinstance(matcher, RetryMatcher):
                policies.append(_checked(owner, index, matcher))
            elif callable(matcher):
                policies.append(RetryMatcher(matcher))
            else:
                raise option_error(
                    owner, f"matchers[{index}]", matcher, "a predicate or a RetryMatcher"
                )
        self.matchers = tuple(policies)
        self.max_retries = check_int(owner, "max_retries", max_retries, 0)
        self.delay_ms = check_number(owner, "delay_ms", delay_ms, 0)
        self.max_retry_after_ms = check_number(owner, "max_retry_after_ms", max_retry_after_ms, 0)
        self.retry_unknown_errors = check_bool(owner, "retry_unknown_errors", retry_unknown_errors)
        self.builtin_matchers = check_bool(owner, "builtin_matchers", builtin_matchers)

    async def process_api_error(
        self,
        *,
        error: BaseException,
        retry_count: int,
        abort_signal: AbortSignal | None = None,
        **_: Any,
    ) -> dict[str, bool] | None:
        """``{"retry": True}`` for a matched error with retries left, after the wait."""
        policy = self.policy_for(error)
        if policy is None:
            return None
        limit = self.max_retries if policy.max_retries is None else policy.max_retries
        if retry_count >= limit:
            return None
        delay = self.delay_ms if policy.delay_ms is None else policy.delay_ms
        retry_after = getattr(error, "retry_after", None)
        if isinstance(retry_after, int | float) and retry_after > 0:
            delay = max(delay, min(retry_after * 1000, self.max_retry_after_ms))
        if delay > 0 and not await _wait(delay / 1000, abort_signal):
            return None
        if policy.on_retry is not None:
            outcome = policy.on_retry(error, retry_count + 1)
            if inspect.isawaitable(outcome):
                await outcome
        return {"retry": True}

    def policy_for(self, error: BaseException) -> RetryMatcher | None:
        """The policy that retries ``error``, or ``None`` when nothing matches."""
        for policy in self.matchers:
            if policy.match(error):
                return policy
        if self.builtin_matchers and is_transient_stream_error(error):
            return _DEFAULT
        if getattr(error, "is_retryable", False) is True:
            return _DEFAULT
        status = getattr(error, "status_code", None)
        if self.retry_unknown_errors and status not in _AUTHORIZATION:
            return _DEFAULT
        return None


_DEFAULT = RetryMatcher(lambda _: True)


def is_transient_stream_error(error: BaseException) -> bool:
    """Whether an error looks like a transient failure of the stream itself."""
    data = getattr(error, "data", None)
    if not isinstance(data, dict):
        body = getattr(error, "response_body", None)
        try:
            data = json.loads(body) if isinstance(body, str) else None
        except ValueError:
            data = None
    if isinstance(data, dict):
        nested = data.get("error")
        inner: dict[str, Any] = nested if isinstance(nested, dict) else data
        code = inner.get("code") or inner.get("type")
        if isinstance(code, str) and code in TRANSIENT_STREAM_CODES:
            return True
    if getattr(error, "status_code", None) in _AUTHORIZATION:
        return False
    return bool(_RETRY_TEXT.search(str(error)))


def _checked(owner: str, index: int, matcher: RetryMatcher) -> RetryMatcher:
    if not callable(matcher.match):
        raise option_error(owner, f"matchers[{index}].match", matcher.match, "a predicate")
    if matcher.max_retries is not None:
        check_int(owner, f"matchers[{index}].max_retries", matcher.max_retries, 0)
    if matcher.delay_ms is not None:
        check_number(owner, f"matchers[{index}].delay_ms", matcher.delay_ms, 0)
    if matcher.on_retry is not None and not callable(matcher.on_retry):
        raise option_error(owner, f"matchers[{index}].on_retry", matcher.on_retry, "a callable")
    return matcher


async def _wait(seconds: float, signal: AbortSignal | None) -> bool:
    """Sleep; ``False`` when the abort signal fired first."""
    if signal is None:
        await asyncio.sleep(seconds)
        return True
    if signal.aborted:
        return False
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({waiter}, timeout=seconds)
    finally:
        waiter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiter
    return not signal.aborted
