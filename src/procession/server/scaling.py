"""Serving from many replicas: one turn per thread at a time, and resumable streams.

- **Thread lock**: every turn on a thread (``generate``, ``stream``, ``chat``) holds the
  thread's lock (``memory.thread_lock``: a PostgreSQL advisory lock across replicas) for the
  whole run; a turn that waited ``Scaling.lock_timeout`` seconds gets 409.
- **Resumable streams** (``Scaling.chunk_log``): the run executes in a task of its own and
  its events go to the :class:`~procession.server.chunk_log.ChunkLog`; the response follows
  the log. A client that loses its connection reconnects to any replica with
  ``GET /api/agents/{agentId}/stream/{runId}?after=N`` (``N``: the events it received) or,
  for ``useChat``, ``GET /chat/{agentId}/{chatId}/stream``, and continues from there. A
  disconnect detaches instead of cancelling (D32); the run is cancelled when nobody
  re-attached within ``ChunkLog.detach_timeout``. The reconnect routes are in
  :mod:`procession.server.reconnect`.
- **Durable runs** (``Scaling.durable``): every turn is a DBOS workflow
  (:class:`~procession.durable.DurableRuns`) that outlives its replica and its client
  (:mod:`procession.server.durable`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from procession._checks import check_seconds, check_type
from procession.agent import Agent
from procession.chunks import Chunk
from procession.durable.runs import DurableRuns
from procession.errors import ThreadBusyError
from procession.memory.thread_locks import DEFAULT_LOCK_TIMEOUT
from procession.messages.message import new_id
from procession.server import mastra_stream, ui_stream
from procession.server.chunk_log import ChunkLog, LiveRun, RunInfo
from procession.server.errors import HTTPError, status_of
from procession.server.keep_alive import KeepAliveSend, keep_alive_of
from procession.server.streaming import Receive, Send, json_response

__all__ = [
    "ResumableResponse",
    "Scaling",
    "start_resumable",
    "thread_turn",
]

logger = logging.getLogger("procession.server")

HEADERS = {"mastra": mastra_stream.HEADERS, "ui": ui_stream.HEADERS}


@dataclass(frozen=True, slots=True, kw_only=True)
class Scaling:
    """How the server behaves beside other replicas.

    Attributes:
        lock_timeout: How long a turn waits for its thread before the answer is 409
            (seconds, default 30).
        chunk_log: Resumable streams: the chunk log shared by the replicas (``None``: a
            disconnect cancels the run, D32).
        durable: Durable runs: every turn is a workflow of these
            :class:`~procession.durable.DurableRuns` (serving the app's agents), launched and
            closed by the app. A turn then waits ``DurableRuns.lock_timeout`` for its thread.
    """

    lock_timeout: float = DEFAULT_LOCK_TIMEOUT
    chunk_log: ChunkLog | None = None
    durable: DurableRuns | None = None

    def __post_init__(self) -> None:
        check_seconds("Scaling.lock_timeout", self.lock_timeout)
        check_type("Scaling.chunk_log", self.chunk_log, ChunkLog)
        check_type("Scaling.durable", self.durable, DurableRuns)


def thread_turn(
    agent: Agent, options: Mapping[str, Any], timeout: float
) -> contextlib.AbstractAsyncContextManager[None]:
    """The lock a turn holds: its thread's, when the agent's memory has threads."""
    thread = options.get("thread_id")
    lock = getattr(agent.memory, "thread_lock", None)
    if not isinstance(thread, str) or not callable(lock):
        return contextlib.nullcontext()
    held: contextlib.AbstractAsyncContextManager[None] = lock(thread, timeout=timeout)
    return held


async def _produce(
    run: LiveRun,
    log: ChunkLog,
    start: Callable[[], Any],
    encode: Callable[[Chunk], bytes | None],
    close: Callable[[], bytes],
    turn: contextlib.AbstractAsyncContextManager[None],
    admitted: asyncio.Future[None],
    ended: Callable[[], None],
) -> None:
    """Execute the run, appending its events to the log (the hot path: encode, append)."""
    try:
        async with turn:
            admitted.set_result(None)
            stream = start()
            async with stream:
                first = True
                async for chunk in stream:
                    if first and chunk.type == "error":  # answered as a JSON error instead
                        error = (await stream.result(raise_error=False)).error
                        run.failure = status_of(error) if error else HTTPError(500, "failed")
                        return
                    first = False
                    frame = encode(chunk)
                    if frame is not None:
                        run.append(frame)
                        log.touch(run)
            run.append(close())
    except Exception as error:
        if admitted.done():
            logger.exception("run %s failed", run.info.run_id)
        else:  # ThreadBusyError: the request answers 409
            admitted.set_exception(error)
    finally:
        if not admitted.done():
            admitted.cancel()
        log.end(run)
        ended()


class ResumableResponse:
    """The answer to a resumable stream: the run's events from ``after`` on, followed in the
    log; a disconnect only stops following."""

    __slots__ = ("after", "headers", "log", "run_id")

    def __init__(self, log: ChunkLog, run_id: str, after: int, headers: Mapping[str, str]) -> None:
        self.log = log
        self.run_id = run_id
        self.after = after
        raw = {**headers, "x-procession-run-id": run_id}
        self.headers = [(k.encode(), v.encode()) for k, v in raw.items()]

    async def __call__(self, scope: Any, receive: Receive, send: Send) -> None:
        """Follow the log until the run ended or the client left."""
        quiet = KeepAliveSend(send, keep_alive_of(scope))
        follow = asyncio.ensure_future(self._respond(quiet))
        leave = asyncio.ensure_future(_disconnected(receive))
        try:
            await asyncio.wait({follow, leave}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            quiet.stop()
            for task in (follow, leave):
                task.cancel()
            await asyncio.gather(follow, leave, return_exceptions=True)
        if follow.done() and not follow.cancelled() and follow.exception() is not None:
            raise follow.exception()  # type: ignore[misc]

    async def _respond(self, send: Send) -> None:
        live = self.log.live.get(self.run_id)
        start = {"type": "http.response.start", "status": 200, "headers": self.headers}
        started = self.after > 0  # a stream already begun: no error answer can replace it
        if started:  # answered now: the next event may be long (a run waiting for approval)
            await send(start)
        async with contextlib.aclosing(self.log.follow(self.run_id, self.after)) as frames:
            async for batch in frames:
                if not started:
                    await send(start)
                    started = True
                body = b"".join(batch)
                await send({"type": "http.response.body", "body": body, "more_body": True})
        if not started:
            failure = live.failure if live is not None else None
            if failure is not None:
                await json_response(send, failure.status, failure.body(), failure.headers)
                return
            await send(start)
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def start_resumable(
    log: ChunkLog,
    agent: Agent,
    messages: Any,
    options: dict[str, Any],
    *,
    resource_id: str,
    fmt: str,
    encode: Callable[[Chunk], bytes | None],
    close: Callable[[], bytes],
    lock_timeout: float,
    ended: Callable[[], None] = lambda: None,
) -> ResumableResponse:
    """Start a run whose events go to the log, and answer by following it (409 when its
    thread stays busy, or when another resource holds its run id in the log); ``ended`` is
    called once the run ended, or failed to start."""
    run_id = options.get("run_id") or new_id("run")
    options = {**options, "run_id": run_id}
    try:
        stream = agent.stream(messages, **options)  # options checked now (D35)
    except BaseException:
        ended()
        raise
    info = RunInfo(run_id, agent.id, resource_id, options.get("thread_id"), fmt, "running")
    try:
        run = await log.begin(info)  # 409 when another resource holds the id in the log
    except BaseException:
        ended()
        await stream.aclose()
        raise
    admitted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    turn = thread_turn(agent, options, lock_timeout)
    run.task = asyncio.create_task(
        _produce(run, log, lambda: stream, encode, close, turn, admitted, ended)
    )
    try:
        await admitted
    except ThreadBusyError as error:
        raise status_of(error) from None
    return ResumableResponse(log, run_id, 0, HEADERS[fmt])
