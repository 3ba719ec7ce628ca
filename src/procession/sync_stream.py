"""``Agent.stream_sync()``: a synchronous stream for scripts, beside ``generate_sync()``.

:class:`SyncAgentStream` drives an :class:`~procession.agent.AgentStream` on an event loop of
its own, one step per chunk: in the calling thread when no event loop runs there, else (a
notebook, an ``async def`` that calls a synchronous helper) on a worker thread, as
``generate_sync()`` does. The run only advances while the caller pulls the next chunk.

Leaving early — ``break`` out of the ``for`` loop, :meth:`SyncAgentStream.close`, the end of a
``with`` block — cancels the model call and any running tool at once and stores nothing (D32).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from procession.chunks import Chunk, Usage
from procession.live_text import Retracted
from procession.results import AgentResult, ObjectT

if TYPE_CHECKING:
    from procession.agent import AgentStream

__all__ = ["SyncAgentStream"]

ItemT = TypeVar("ItemT")
ValueT = TypeVar("ValueT")


class _Driver(Protocol):
    def run(self, work: Coroutine[Any, Any, ValueT]) -> ValueT: ...

    def close(self) -> None: ...


class _HereDriver:
    """A private event loop in the calling thread (no loop runs there)."""

    __slots__ = ("_runner",)

    def __init__(self) -> None:
        self._runner = asyncio.Runner()

    def run(self, work: Coroutine[Any, Any, ValueT]) -> ValueT:
        return self._runner.run(work)

    def close(self) -> None:
        self._runner.close()


class _ThreadDriver:
    """An event loop on a worker thread, for a caller inside a running event loop."""

    __slots__ = ("_loop", "_thread")

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="procession-stream-sync", daemon=True
        )
        self._thread.start()

    def run(self, work: Coroutine[Any, Any, ValueT]) -> ValueT:
        future: concurrent.futures.Future[ValueT] = asyncio.run_coroutine_threadsafe(
            work, self._loop
        )
        return future.result()

    def close(self) -> None:
        self.run(self._loop.shutdown_asyncgens())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


def _driver() -> _Driver:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _HereDriver()
    return _ThreadDriver()


async def _next(source: AsyncIterator[ItemT]) -> tuple[bool, ItemT | None]:
    """``(True, item)``, or ``(False, None)`` once ``source`` is exhausted."""
    try:
        return True, await anext(source)
    except StopAsyncIteration:
        return False, None


class SyncAgentStream(Generic[ObjectT]):
    """A running ``stream_sync()`` call: iterate it for chunks (``for chunk in stream``), or
    read :attr:`text_stream` / :meth:`live_text`; :meth:`result` gives the final result.

    One reader only, as for ``AgentStream``. Readers raise the error that ended the run, as
    ``generate()`` does (D21); iterating the chunks does not (the last chunk is ``error``).
    Leaving early — ``break``, :meth:`close`, the end of a ``with`` block — cancels the model
    call and running tools at once and stores nothing (D32).
    """

    __slots__ = ("_driver", "_final", "_started", "_stream")

    def __init__(self, stream: AgentStream[ObjectT]) -> None:
        self._stream = stream
        self._driver: _Driver | None = _driver()
        self._final: AgentResult[ObjectT] | None = None
        self._started = False

    @property
    def run_id(self) -> str:
        """The id of this run."""
        return self._stream.run_id

    def __iter__(self) -> Iterator[Chunk]:
        return self._pull(aiter(self._stream))

    @property
    def text_stream(self) -> Iterator[str]:
        """The accepted text, as ``AgentStream.text_stream`` yields it (live when nothing can
        reject a step, else each step once accepted); raises the run's error at the end."""
        return self._pull(self._stream.text_stream)

    def live_text(self) -> Iterator[str | Retracted]:
        """Each text delta at once, and a ``Retracted`` marker when yielded text was taken
        back (``AgentStream.live_text``); raises the run's error at the end."""
        return self._pull(self._stream.live_text())

    def _pull(self, source: AsyncIterator[ItemT]) -> Iterator[ItemT]:
        if self._started:
            raise RuntimeError("a SyncAgentStream can be read once")
        self._started = True
        return self._items(source)

    def _items(self, source: AsyncIterator[ItemT]) -> Iterator[ItemT]:
        driver = self._driver
        assert driver is not None
        try:
            while True:
                more, item = driver.run(_next(source))
                if not more:
                    return
                yield item  # type: ignore[misc]  # an item whenever ``more``
        finally:  # exhausted, raised, or left early (``break``, close): the run is closed (D32)
            self._finish(source)

    def _finish(self, source: AsyncIterator[Any] | None) -> None:
        driver, self._driver = self._driver, None
        if driver is None:
            return
        try:
            closing = getattr(source, "aclose", None)
            if closing is not None:  # a reader's generator: closed in its own loop
                driver.run(closing())
            driver.run(self._stream.aclose())
            self._final = driver.run(self._stream.result(raise_error=False))
        finally:
            driver.close()

    def result(self, *, raise_error: bool = True) -> AgentResult[ObjectT]:
        """Read the rest of the run and return its result; raises the error that ended it
        unless ``raise_error=False`` (as ``AgentStream.result``)."""
        driver = self._driver
        if driver is not None:  # reads whatever no reader took yet, then closes the run
            self._started = True
            driver.run(self._stream.result(raise_error=False))
            self._finish(None)
        final = self._final
        assert final is not None
        if raise_error and final.error is not None:
            raise final.error
        return final

    def text(self) -> str:
        """The final text (D23); raises the run's error."""
        return self.result().text

    def usage(self) -> Usage:
        """Total usage of the run."""
        return self.result(raise_error=False).usage

    def close(self) -> None:
        """Stop the run early: the model call and running tools are cancelled (D32)."""
        self._started = True
        self._finish(None)

    def __enter__(self) -> SyncAgentStream[ObjectT]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
