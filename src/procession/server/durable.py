"""Durable runs behind the server: ``Scaling(durable=DurableRuns(...))``.

Every turn of the agent routes (``stream``, ``generate``, ``chat``) is then the DBOS workflow
``procession.run`` instead of a task of the request:

- the replica that starts a run streams the chunks it executes; a client that leaves only
  stops following (the run goes on: it outlives its client and its replica, decision 0200);
- with a :class:`~procession.server.chunk_log.ChunkLog` the replica executing a run — the
  one that started it, or the one that recovered it after the first died — writes its
  events to the log (:class:`ChunkLogObserver`), so a client reconnects to any replica
  and continues where it was;
- the thread's lock is taken by the workflow (a recovered turn takes it again), so a busy
  thread still answers 409;
- agents without an approval broker wait for tool approvals durably
  (:class:`~procession.durable.DBOSApprovals`), answered by ``send-tool-approval`` on any
  replica.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from procession.agent import Agent
from procession.chunks import Chunk
from procession.durable.runs import ChunkSink, DurableRun, DurableRuns, RunObserver
from procession.errors import ConfigurationError
from procession.results import AgentResult
from procession.server import mastra_stream, ui_stream
from procession.server.chunk_log import ChunkLog, LiveRun, RunInfo
from procession.server.config import DEFAULT_RESOURCE
from procession.server.errors import HTTPError, status_of
from procession.server.run_ids import run_id_taken
from procession.server.scaling import HEADERS, ResumableResponse, Scaling
from procession.server.streaming import StreamResponse

__all__ = [
    "ChunkLogObserver",
    "DurableStream",
    "approvals_for",
    "check_durable",
    "generate_durable",
    "install_observer",
    "respond_durable",
]


def check_durable(durable: DurableRuns, served: Mapping[str, Agent]) -> None:
    """``ConfigurationError`` unless ``durable`` runs every served agent, under its id."""
    for agent_id, agent in served.items():
        if durable.agents.get(agent_id) is not agent:
            raise ConfigurationError(
                f"Scaling.durable: agent {agent_id!r} is served but its DurableRuns do not run "
                f"it (pass the same agents to DurableRuns and create_app)"
            )


def approvals_for(scaling: Scaling, agent: Agent) -> Any:
    """The broker ``send-tool-approval`` answers through: the agent's own, else (durable
    runs) the durable runs' :class:`~procession.durable.DBOSApprovals`."""
    if agent.approvals is not None or scaling.durable is None:
        return agent.approvals
    return scaling.durable.approvals


class DurableStream:
    """A :class:`~procession.durable.DurableRun` as the stream response reads a run: its
    chunks, its result, and ``aclose`` — which only stops following (the run goes on)."""

    __slots__ = ("_run",)

    def __init__(self, run: DurableRun) -> None:
        self._run = run

    @property
    def run_id(self) -> str:
        """The run's id."""
        return self._run.run_id

    def __aiter__(self) -> AsyncIterator[Chunk]:
        return aiter(self._run)

    async def result(self, *, raise_error: bool = True) -> AgentResult:
        """The run's result; the error that ended it is raised (as ``AgentStream.result``
        does) unless ``raise_error=False``."""
        outcome = self._run.outcome
        if outcome is None:
            raise HTTPError(500, f"Run {self.run_id} did not end in this replica")
        if raise_error and outcome.error is not None:
            raise outcome.error
        return outcome

    async def aclose(self) -> None:
        """Stop following the run."""
        self._run.detach()


async def _checked(agent: Agent, messages: Any, options: dict[str, Any]) -> dict[str, Any]:
    """The run's options, checked now (D35), with a new run id (409 when the client's is
    taken)."""
    from dbos import DBOS

    run_id = options.get("run_id")
    if run_id is None:
        run_id = DurableRuns.new_run_id()
    elif await DBOS.get_workflow_status_async(run_id) is not None:
        raise run_id_taken(run_id)
    options = {**options, "run_id": run_id}
    await agent.stream(messages, **options).aclose()
    return options


async def _start(
    durable: DurableRuns, agent: Agent, messages: Any, options: dict[str, Any], **how: Any
) -> DurableRun:
    options = dict(options)
    run_id = options.pop("run_id")
    return await durable.start(agent.id, messages, run_id=run_id, **how, **options)


async def generate_durable(
    durable: DurableRuns, agent: Agent, messages: Any, options: dict[str, Any]
) -> AgentResult:
    """A whole ``generate`` turn as a durable run executed here; raises the error that ended
    it (as ``Agent.generate`` does). Cancelled (the client left), the run goes on."""
    options = await _checked(agent, messages, {k: v for k, v in options.items() if k != "release"})
    run = await _start(durable, agent, messages, options)
    try:
        async for _ in run:
            pass
    finally:
        run.detach()
    outcome = DurableStream(run)
    return await outcome.result()


async def respond_durable(
    scaling: Scaling,
    agent: Agent,
    messages: Any,
    options: dict[str, Any],
    fmt: str,
    encode: Callable[[Chunk], bytes | None],
    close: Callable[[], bytes],
) -> StreamResponse | ResumableResponse:
    """Start a durable run and answer with its stream: followed in the chunk log when there
    is one (the run's events are written by whichever replica executes it), else the chunks
    executed here. A busy thread answers 409 either way."""
    durable = scaling.durable
    assert durable is not None
    log = scaling.chunk_log
    options = await _checked(agent, messages, options)
    if log is None:
        run = await _start(durable, agent, messages, options)
        return StreamResponse(DurableStream(run), encode, close, HEADERS[fmt])
    run_id = options["run_id"]
    info = RunInfo(
        run_id, agent.id, options["resource_id"], options.get("thread_id"), fmt, "running"
    )
    live = await log.begin(info)
    try:
        await _start(durable, agent, messages, options, meta={"format": fmt}, follow=False)
    except BaseException:
        log.end(live)
        raise
    return ResumableResponse(log, run_id, 0, HEADERS[fmt])


def _encoder(fmt: str) -> tuple[Callable[[Chunk], bytes | None], Callable[[], bytes]]:
    if fmt == "ui":
        encoder = ui_stream.UIStreamEncoder()
        return encoder.encode, encoder.close
    return mastra_stream.encode_chunk, lambda: mastra_stream.DONE


class _Logged:
    """One execution's events, appended to its :class:`LiveRun` (the hot path)."""

    __slots__ = ("close", "encode", "failed", "fresh", "live", "log")

    def __init__(self, log: ChunkLog, live: LiveRun, fmt: str) -> None:
        self.log = log
        self.live = live
        self.encode, self.close = _encoder(fmt)
        self.fresh = True
        self.failed = False

    def __call__(self, chunk: Chunk) -> None:
        if self.fresh:
            self.fresh = False
            if chunk.type == "error":  # answered as a JSON error instead (as the server does)
                self.failed = True
                return
        frame = self.encode(chunk)
        if frame is not None:
            self.live.append(frame)
            self.log.touch(self.live)


class ChunkLogObserver(RunObserver):
    """Writes the events of every run this replica executes to the chunk log, in the format
    its starter asked for (``meta["format"]``: ``"mastra"`` or ``"ui"``); runs started
    without one (``enqueue``) are not logged. Chains to ``then``, the observer the durable
    runs had."""

    def __init__(self, log: ChunkLog, then: RunObserver | None = None) -> None:
        self.log = log
        self.then = then
        self._runs: dict[str, _Logged] = {}

    async def opened(
        self, run_id: str, agent_id: str, options: Mapping[str, Any], meta: Mapping[str, Any]
    ) -> ChunkSink | None:
        """Begin (or, started here, take) the run's entry in the log."""
        sink: ChunkSink | None = None
        fmt = meta.get("format")
        if fmt in HEADERS:
            live = self.log.live.get(run_id)
            if live is None:  # recovered here: the log's row is taken over
                resource = options.get("resource_id") or DEFAULT_RESOURCE
                info = RunInfo(run_id, agent_id, resource, options.get("thread_id"), fmt, "running")
                live = await self.log.begin(info)
            logged = self._runs[run_id] = _Logged(self.log, live, fmt)
            sink = logged
        if self.then is None:
            return sink
        chained = await self.then.opened(run_id, agent_id, options, meta)
        return _both(sink, chained)

    def closed(self, run_id: str, error: BaseException | None, *, finished: bool) -> None:
        """End the run's events (or its failure), or, interrupted, leave them to the replica
        that resumes it."""
        logged = self._runs.pop(run_id, None)
        if logged is not None:
            live = logged.live
            if not finished:
                self.log.live.pop(run_id, None)  # still running: resumed elsewhere
            elif logged.failed or (logged.fresh and error is not None):
                live.failure = status_of(error) if error else HTTPError(500, "The run failed")
                self.log.end(live)
            else:
                live.append(logged.close())
                self.log.end(live)
        if self.then is not None:
            self.then.closed(run_id, error, finished=finished)


def _both(first: ChunkSink | None, second: ChunkSink | None) -> ChunkSink | None:
    if first is None or second is None:
        return first or second

    def both(chunk: Chunk) -> None:
        first(chunk)
        second(chunk)

    return both


def install_observer(durable: DurableRuns, log: ChunkLog | None) -> None:
    """Have ``durable`` write its runs' events to ``log`` (chained to its own observer)."""
    if log is None or isinstance(durable.observer, ChunkLogObserver):
        return
    mine = durable.observer
    durable.observer = ChunkLogObserver(log, None if type(mine) is RunObserver else mine)
