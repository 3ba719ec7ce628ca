"""Retries of transient model errors, for any :class:`~procession.models.LanguageModel` (D14).

Design: the core is :class:`RetriedCall`, a call in two steps, ``open`` (``do_stream``) and
``first`` (its first chunk); :func:`stream_with_retries` and :func:`start_with_retries` run
both before returning, the agent loop runs them apart so its ``step-start`` goes out between
them. An :class:`~procession.errors.APICallError` with
``is_retryable`` (429, 408/409, 5xx, connection failures, timeouts, or whatever the server's
``x-should-retry`` header says) raised by ``do_stream`` or before the first chunk is retried
with exponential back-off, honouring the provider's delay (:attr:`APICallError.retry_after`:
a delay from the body, ``retry-after-ms``, or ``Retry-After`` in seconds or as an HTTP date).
Once a chunk has been yielded the call is never repeated (the consumer has already seen
output): later errors are re-raised as they are. Other errors (400, 401, 404, 422, ...) raise
at once. :class:`RetryingModel` wraps a model so that every ``do_stream`` goes through it.

Provider SDKs are set to retry nothing themselves, so retries happen in one place. Each retry
is logged at INFO on the ``procession.models`` logger (its delay and cause); giving up is
logged at WARNING.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from procession.chunks import Chunk
from procession.errors import APICallError
from procession.models._abort import cancel_on_abort
from procession.models._chunk_stream import ChunkStream
from procession.models.base import LanguageModel, ModelCallOptions, StreamResult

__all__ = [
    "DEFAULT_MAX_RETRIES",
    "MAX_RETRY_AFTER",
    "RetriedCall",
    "RetryingModel",
    "retry_delay",
    "start_with_retries",
    "stream_with_retries",
]

DEFAULT_MAX_RETRIES = 2
"""Retries of a transient model error when ``max_retries`` is not set (D14)."""
MAX_RETRY_AFTER = 60.0
"""A ``Retry-After`` longer than this (seconds) is not waited for: the error is raised."""

Sleep = Callable[[float], Awaitable[Any]]

logger = logging.getLogger("procession.models")


def retry_delay(error: APICallError, attempt: int, *, base_delay: float, max_delay: float) -> float:
    """Seconds to wait before retry number ``attempt + 1``: the provider's ``Retry-After``
    when it gave one, else ``base_delay * 2**attempt`` capped at ``max_delay``."""
    after = error.retry_after
    if after is not None and after >= 0:
        return after
    return float(min(base_delay * 2**attempt, max_delay))


async def stream_with_retries(
    model: LanguageModel,
    options: ModelCallOptions,
    *,
    max_retries: int | None = None,
    base_delay: float = 0.5,
    max_delay: float = 8.0,
    sleep: Sleep = asyncio.sleep,
) -> StreamResult:
    """``model.do_stream(options)``, retrying transient failures before the first chunk.

    Args:
        model: Any model.
        options: The call; ``options.settings["max_retries"]`` is the default retry count
            and ``options.abort_signal`` also interrupts the back-off sleep.
        max_retries: Retries after the first attempt (default 2).
        base_delay: The first back-off delay in seconds; it doubles on each retry.
        max_delay: The longest back-off delay (a ``Retry-After`` is honoured beyond it, up
            to :data:`MAX_RETRY_AFTER`).
        sleep: The sleep function (tests pass a fake one).

    Returns:
        The :class:`StreamResult` of the attempt that produced a first chunk (or ended).

    Raises:
        APICallError: A non-retryable error, or the last error once retries are used up.
    """
    result, first = await start_with_retries(
        model,
        options,
        max_retries=max_retries,
        base_delay=base_delay,
        max_delay=max_delay,
        sleep=sleep,
    )
    if first is None:
        return result
    stream = result.stream
    if isinstance(stream, ChunkStream):  # the adapters' streams take it back: no wrapper
        stream.unread(first)
        return result
    return StreamResult(
        stream=_Prepended(first, result.stream),
        request=result.request,
        response=result.response,
        warnings=result.warnings,
    )


async def start_with_retries(
    model: LanguageModel,
    options: ModelCallOptions,
    *,
    max_retries: int | None = None,
    base_delay: float = 0.5,
    max_delay: float = 8.0,
    sleep: Sleep = asyncio.sleep,
) -> tuple[StreamResult, Chunk | None]:
    """Like :func:`stream_with_retries`, but hands back the first chunk apart.

    Returns the call's result and its first chunk (``None`` for an empty stream); the
    result's ``stream`` continues after that chunk.
    """
    call = RetriedCall(
        model,
        options,
        max_retries=max_retries,
        base_delay=base_delay,
        max_delay=max_delay,
        sleep=sleep,
    )
    started = await call.open()
    first = await call.first()
    return call.result or started, first


class RetriedCall:
    """One model call in the two steps a caller may want to tell apart, each retried (D14).

    :meth:`open` is ``do_stream``: the provider has taken the call (the agent loop sends its
    ``step-start`` then). :meth:`first` waits for the first chunk; a transient error before
    it closes the stream, waits, and opens the call again, so :attr:`result` may change. The
    abort signal interrupts every wait, the first chunk's included: a model that has not
    answered yet must not hold an aborted run (D32). Retries count across both steps.
    """

    __slots__ = ("_attempt", "_base", "_max", "_model", "_options", "_retries", "_sleep", "result")

    def __init__(
        self,
        model: LanguageModel,
        options: ModelCallOptions,
        *,
        max_retries: int | None = None,
        base_delay: float = 0.5,
        max_delay: float = 8.0,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        if max_retries is None:
            max_retries = options.settings.get("max_retries", DEFAULT_MAX_RETRIES)
        self._model, self._options, self._retries = model, options, max_retries
        self._base, self._max, self._sleep = base_delay, max_delay, sleep
        self._attempt = 0
        self.result: StreamResult | None = None

    async def open(self) -> StreamResult:
        """Start the call; raises the last error once retries are used up."""
        signal = self._options.abort_signal
        while True:
            try:
                with cancel_on_abort(signal):
                    self.result = result = await self._model.do_stream(self._options)
                return result
            except APICallError as error:
                await self._back_off(error)

    async def first(self) -> Chunk | None:
        """The call's first chunk (``None`` if the stream ended without one)."""
        signal = self._options.abort_signal
        while True:
            assert self.result is not None, "open() first"
            stream = self.result.stream
            try:
                with cancel_on_abort(signal):
                    return await stream.__anext__()
            except StopAsyncIteration:
                return None
            except APICallError as error:
                await _aclose(stream)
                await self._back_off(error)
                await self.open()
            except BaseException:
                await _aclose(stream)
                raise

    async def _back_off(self, error: APICallError) -> None:
        """Wait before the next try, or raise ``error`` when it may not be retried."""
        attempt = self._attempt
        delay = retry_delay(error, attempt, base_delay=self._base, max_delay=self._max)
        if not _may_retry(self._model, error, attempt, self._retries, delay):
            raise error
        logger.info(
            "%s: retry %d of %d in %.2f s after %s",
            _name(self._model),
            attempt + 1,
            self._retries,
            delay,
            _cause(error),
        )
        with cancel_on_abort(self._options.abort_signal):
            await self._sleep(delay)
        self._attempt = attempt + 1


def _may_retry(
    model: LanguageModel, error: APICallError, attempt: int, max_retries: int, delay: float
) -> bool:
    """Whether to retry; logs why not when a retryable error is given up on."""
    if not error.is_retryable:
        return False
    if attempt >= max_retries:
        if max_retries:
            logger.warning(
                "%s: giving up after %d retries: %s", _name(model), max_retries, _cause(error)
            )
        return False
    if delay > MAX_RETRY_AFTER:
        logger.warning(
            "%s: the provider asked to wait %.0f s (more than %.0f s): not retrying: %s",
            _name(model),
            delay,
            MAX_RETRY_AFTER,
            _cause(error),
        )
        return False
    return True


def _name(model: LanguageModel) -> str:
    return f"{model.provider}/{model.model_id}"


def _cause(error: APICallError) -> str:
    status = f"HTTP {error.status_code}" if error.status_code is not None else "no status"
    return f"{status}: {error.message}"


async def _aclose(stream: AsyncIterator[Chunk]) -> None:
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()


class _Prepended:
    """``first`` and then the rest of ``stream``; ``aclose`` closes ``stream``."""

    def __init__(self, first: Chunk, stream: AsyncIterator[Chunk]) -> None:
        self._first: Chunk | None = first
        self._stream = stream

    def __aiter__(self) -> _Prepended:
        return self

    async def __anext__(self) -> Chunk:
        first = self._first
        if first is not None:
            self._first = None
            return first
        return await self._stream.__anext__()

    async def aclose(self) -> None:
        self._first = None
        await _aclose(self._stream)


class RetryingModel:
    """A model whose ``do_stream`` is :func:`stream_with_retries` around ``model``.

    It reports the wrapped model's ``provider``, ``model_id`` and capabilities.
    """

    specification_version = "v2"

    def __init__(
        self,
        model: LanguageModel,
        *,
        max_retries: int | None = None,
        base_delay: float = 0.5,
        max_delay: float = 8.0,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.model = model
        self.provider = model.provider
        self.model_id = model.model_id
        self.supports_structured_output = model.supports_structured_output
        self._max_retries = max_retries
        self._base_delay = base_delay
        self._max_delay = max_delay
        self._sleep = sleep

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Start the call, retrying transient errors before the first chunk."""
        return await stream_with_retries(
            self.model,
            options,
            max_retries=self._max_retries,
            base_delay=self._base_delay,
            max_delay=self._max_delay,
            sleep=self._sleep,
        )

    def __repr__(self) -> str:
        return f"RetryingModel({self.model!r})"
