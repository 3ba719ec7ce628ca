"""Bounded waits on a model, so that a dead network fails in seconds, not minutes.

The provider SDKs wait up to ten minutes for a response by default. :class:`BoundedModel`
wraps any model and bounds two waits, whatever the provider:

* ``connect_timeout``: from the start of a call until the provider answers it (for the HTTP
  adapters: connection, request and response headers; a listener that never accepts, or
  never answers, is caught here);
* ``read_timeout``: how long the stream may stay silent between two chunks.

Either expiry raises :class:`ModelTimeoutError`, an :class:`~procession.errors.APICallError` that
is retryable, so the model layer's retries and back-off (D14) apply to it as to any transport
failure. The read limit costs the hot path one clock read and two attribute writes per
chunk: a single timer per stream checks the time of the last chunk, instead of one timer
per chunk.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from typing import Any

from procession.chunks import Chunk
from procession.errors import APICallError, ConfigurationError
from procession.models.base import LanguageModel, ModelCallOptions, StreamResult

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_READ_TIMEOUT",
    "BoundedModel",
    "ModelTimeoutError",
    "endpoint_of",
]

DEFAULT_CONNECT_TIMEOUT = 15.0
"""Seconds a provider has to answer a call (the command line's default)."""
DEFAULT_READ_TIMEOUT = 120.0
"""Seconds a stream may stay silent between chunks (generous: reasoning models think
before their first token)."""


class ModelTimeoutError(APICallError):
    """A bounded wait on a model expired.

    Attributes:
        phase: ``"connect"`` (no answer to the call) or ``"read"`` (a silent stream).
        seconds: The limit that expired.
    """

    def __init__(self, phase: str, seconds: float, url: str | None) -> None:
        what = (
            f"no answer within {seconds:g} s"
            if phase == "connect"
            else f"no data for {seconds:g} s"
        )
        super().__init__(what, is_retryable=True, url=url)
        self.phase = phase
        self.seconds = seconds


def endpoint_of(model: object) -> str | None:
    """The API root a model calls, when it says so (``base_url`` on the model or on its
    SDK client, as the built-in adapters have); ``None`` otherwise."""
    for owner in (model, _client(model)):
        url = getattr(owner, "base_url", None)
        if url:
            return str(url)
    return None


def _client(model: object) -> object:
    try:
        return getattr(model, "client", None)
    except Exception:  # a lazily made client whose SDK is missing: no endpoint to report
        return None


def _check_seconds(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigurationError(f"BoundedModel: {name} must be a number of seconds, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ConfigurationError(f"BoundedModel: {name} must be > 0 seconds, got {value!r}")
    return float(value)


class BoundedModel:
    """``model`` with its waits bounded (see the module docstring).

    Args:
        model: Any :class:`~procession.models.LanguageModel`.
        connect_timeout: Seconds the provider has to answer a call.
        read_timeout: Seconds the stream may stay silent between chunks.

    A call's stream is read by one task (as the agent loop reads it, in the run's own
    generator): the read limit cancels the task that was reading when the stream fell silent.

    Attributes:
        attempts: How many calls were started (the model layer's retries included); the
            command line resets it before each turn to report "gave up after N attempts".
        endpoint: The API root the model calls, when known (for error messages).
    """

    specification_version = "v2"

    def __init__(
        self,
        model: LanguageModel,
        *,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
    ) -> None:
        self.model = model
        self.provider = model.provider
        self.model_id = model.model_id
        self.supports_structured_output = model.supports_structured_output
        self.connect_timeout = _check_seconds("connect_timeout", connect_timeout)
        self.read_timeout = _check_seconds("read_timeout", read_timeout)
        self.endpoint = endpoint_of(model)
        self.attempts = 0

    def __repr__(self) -> str:
        return f"BoundedModel({self.model!r})"

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Start the call within ``connect_timeout``; its stream is read within
        ``read_timeout`` per chunk."""
        self.attempts += 1
        deadline = asyncio.timeout(self.connect_timeout)
        try:
            async with deadline:
                result = await self.model.do_stream(options)
        except TimeoutError:
            if not deadline.expired():
                raise
            raise ModelTimeoutError("connect", self.connect_timeout, self.endpoint) from None
        return StreamResult(
            stream=_SilenceLimit(result.stream, self.read_timeout, self.endpoint),
            request=result.request,
            response=result.response,
            warnings=result.warnings,
        )


class _SilenceLimit:
    """A stream whose reads fail with :class:`ModelTimeoutError` after ``limit`` silent
    seconds.

    Per chunk it records the time and whether a read is waiting; one timer, armed by the
    first read after a quiet period and re-armed only when it fires early, cancels the
    waiting read once the stream has been silent for ``limit`` seconds. The reading task is
    noted when the timer is armed (one task reads a model stream, as the agent loop does),
    which keeps ``asyncio.current_task()`` off the per-chunk path.
    """

    __slots__ = (
        "_base",
        "_endpoint",
        "_expired",
        "_last",
        "_limit",
        "_loop",
        "_next",
        "_now",
        "_reader",
        "_stream",
        "_timer",
        "_waiting",
    )

    def __init__(self, stream: AsyncIterator[Chunk], limit: float, endpoint: str | None) -> None:
        self._stream = stream
        self._next = stream.__anext__  # bound once: nothing is looked up or made per chunk
        self._limit = limit
        self._endpoint = endpoint
        self._loop = asyncio.get_running_loop()
        self._now = self._loop.time
        self._last = 0.0
        self._reader: asyncio.Task[Any] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._waiting = False
        self._expired = False
        self._base = 0

    def __aiter__(self) -> _SilenceLimit:
        return self

    async def __anext__(self) -> Chunk:
        self._last = self._now()
        if self._timer is None:
            self._reader = asyncio.current_task()
            self._timer = self._loop.call_at(self._last + self._limit, self._check)
        self._waiting = True
        try:
            chunk = await self._next()
        except asyncio.CancelledError:
            self._waiting = False
            reader = self._reader
            if self._expired and reader is not None and reader.uncancel() <= self._base:
                self._expired = False
                await self.aclose()
                raise ModelTimeoutError("read", self._limit, self._endpoint) from None
            raise
        except BaseException:
            self._waiting = False
            self._disarm()
            raise
        self._waiting = False
        return chunk

    def _check(self) -> None:
        self._timer = None
        if not self._waiting:  # nobody is reading: the next read arms the timer again
            return
        deadline = self._last + self._limit
        if self._loop.time() < deadline:
            self._timer = self._loop.call_at(deadline, self._check)
            return
        reader = self._reader
        if reader is None or reader.done():
            return
        self._expired = True
        self._base = reader.cancelling()
        reader.cancel()

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def aclose(self) -> None:
        """Stop the timer and close the wrapped stream."""
        self._disarm()
        aclose = getattr(self._stream, "aclose", None)
        if aclose is not None:
            await aclose()
