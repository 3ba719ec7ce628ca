"""``DurableRuns``: every run a DBOS workflow, resumed on another worker when its worker dies.

A run started through :meth:`DurableRuns.start` is the workflow ``procession.run``: it takes
the thread's lock (turns on a thread never interleave), streams ``agent.stream(...)`` with a
:class:`~procession.durable.DBOSJournal` and the workflow id as run id, and hands each chunk
to whoever in this process follows the run. Executed again — after a crash, on any worker
of the same database — it repeats no checkpointed model or tool call, rebuilds processor
state by running the hooks on the same chunks, and commits once (D13).

Workers find each other's deaths through PostgreSQL itself: each holds a session advisory
lock named after its DBOS executor id for as long as it lives. Every ``recovery_interval``
seconds a worker looks at the pending runs of other executors; one whose lock it can take
is dead (PostgreSQL dropped the lock with its session), and the worker that took the lock
re-queues that executor's runs on the ``procession`` queue, where any live worker picks
them up. With SQLite (one machine) the executor id is fixed, and a restarted worker resumes
its own runs at launch.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any

from procession._checks import check_seconds, wrong
from procession.agent import Agent
from procession.chunks import Chunk
from procession.durable.approvals import DBOSApprovals
from procession.durable.checkpoints import Checkpoints, Sealer
from procession.durable.dbos_journal import DBOSJournal
from procession.errors import ConfigurationError, ThreadBusyError
from procession.memory.thread_locks import DEFAULT_LOCK_TIMEOUT, advisory_key
from procession.results import AgentResult

__all__ = [
    "QUEUE",
    "WORKFLOW",
    "ChunkSink",
    "DurableRun",
    "DurableRuns",
    "RunObserver",
    "enqueue",
]

logger = logging.getLogger("procession.durable")

WORKFLOW = "procession.run"
"""The DBOS workflow name of a run."""

QUEUE = "procession"
"""The DBOS queue recovered runs are put on."""

_END = object()
_current: DurableRuns | None = None


ChunkSink = Callable[[Chunk], None]
"""Takes each chunk of one run's execution (a plain call on the run's hot path)."""


class RunObserver:
    """Told about every run this worker executes (the server's chunk log, for one).

    ``opened`` is awaited once per execution and returns the function each of its chunks is
    passed to (or ``None``); ``closed`` is called once the execution here stopped.
    """

    async def opened(
        self, run_id: str, agent_id: str, options: Mapping[str, Any], meta: Mapping[str, Any]
    ) -> ChunkSink | None:
        """A run (started here or recovered) begins executing in this worker: ``options``
        are its ``stream()`` options, ``meta`` what its starter attached
        (:meth:`DurableRuns.start`). Returns where its chunks go, if anywhere."""
        return None

    def closed(self, run_id: str, error: BaseException | None, *, finished: bool) -> None:
        """The run's execution here stopped. ``finished``: the run ended (``error`` is the
        error it ended with, if any: a model's, a tool's, a busy thread's); otherwise this
        worker is closing and another worker resumes the run."""


class _Follower:
    """Where a run executing in this worker hands its chunks to the caller of ``start``."""

    __slots__ = ("attached", "outcome", "queue")

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.attached = True
        self.outcome: AgentResult | None = None

    def put(self, item: Any) -> None:
        if self.attached:
            self.queue.put_nowait(item)


class DurableRun:
    """A run started by :meth:`DurableRuns.start`: iterate it for the chunks executed in this
    worker (once); :meth:`result` waits for the workflow's summary (from any worker)."""

    __slots__ = ("_follower", "_result", "run_id")

    def __init__(self, run_id: str, follower: _Follower | None, result: asyncio.Future[Any]):
        self.run_id = run_id
        self._follower = follower
        self._result = result

    async def __aiter__(self) -> AsyncIterator[Chunk]:
        follower = self._follower
        if follower is None:
            raise RuntimeError(f"run {self.run_id} was started with follow=False")
        while (item := await follower.queue.get()) is not _END:
            if isinstance(item, BaseException):
                raise item
            yield item

    @property
    def outcome(self) -> AgentResult | None:
        """The run's :class:`~procession.results.AgentResult` once its chunks were read,
        when it was executed to its end in this worker (``None`` otherwise)."""
        return None if self._follower is None else self._follower.outcome

    def detach(self) -> None:
        """Stop receiving the run's chunks; the run goes on."""
        if self._follower is not None:
            self._follower.attached = False
            self._follower.queue = asyncio.Queue()

    async def result(self) -> dict[str, Any]:
        """The run's summary: ``{"runId", "status", "text", "finishReason", "error"}``."""
        summary: dict[str, Any] = await asyncio.shield(self._result)
        return summary


async def _workflow(agent_id: str, request: dict[str, Any]) -> dict[str, Any]:
    runs = _current
    if runs is None:
        raise RuntimeError("procession.run executed without a launched DurableRuns")
    return await runs.execute(agent_id, request)


_registered: Any = None


def _register() -> Any:
    """The ``procession.run`` workflow, registered with DBOS once per process."""
    global _registered
    if _registered is None:
        from dbos import DBOS

        _registered = DBOS.workflow(name=WORKFLOW)(_workflow)
    return _registered


def _default_executor_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


class DurableRuns:
    """Durable runs of ``agents`` on DBOS (see the module docstring).

    Args:
        agents: The agents runs may use, by id (an agent, a list, or ``{id: agent}``).
        database_url: DBOS's system database: ``postgresql://...`` (replicas) or
            ``sqlite:///path`` (one machine).
        executor_id: This worker's DBOS executor id (unique per process for PostgreSQL;
            generated by default).
        lock_timeout: How long a new turn waits for its thread (then ``ThreadBusyError``);
            a recovered turn waits as long as it takes.
        recovery_interval: Seconds between looks for dead workers' runs (PostgreSQL).
        app_version: DBOS's application version: workers of one deployment must share it.
        observer: Told about every run executed in this worker.
        encryption_key: Fernet key(s) sealing what the run stores at rest (checkpoints, and
            DBOS's workflow inputs, outputs and steps); default ``PROCESSION_DURABLE_KEY``;
            unset: stored in the clear (see "What is stored where" in ``docs/scaling.md``).
            Every worker of a database needs the same key.
        keep_checkpoints: Keep a run's checkpoints (its model's raw output) after it ends,
            for an audit of its calls; by default they are deleted when the run ends.

    Raises:
        ConfigurationError: a bad argument, or a second ``DurableRuns`` in one process
            (DBOS is one per process).
    """

    def __init__(
        self,
        agents: Agent | Iterable[Agent] | Mapping[str, Agent],
        *,
        database_url: str,
        executor_id: str | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        recovery_interval: float = 0.5,
        app_version: str = "procession",
        observer: RunObserver | None = None,
        encryption_key: str | None = None,
        keep_checkpoints: bool = False,
    ) -> None:
        self.agents = _agents(agents)
        if not isinstance(keep_checkpoints, bool):
            raise wrong("keep_checkpoints", keep_checkpoints, "True or False")
        self.keep_checkpoints = keep_checkpoints
        if encryption_key is not None and not isinstance(encryption_key, str):
            raise wrong("encryption_key", "<hidden>", "Fernet keys as a string")
        self.sealer = Sealer.configured(encryption_key)
        if not isinstance(database_url, str) or not database_url.startswith(
            ("postgresql://", "postgres://", "sqlite:///")
        ):
            raise wrong("database_url", database_url, "a postgresql:// or sqlite:/// URL")
        self.database_url = database_url
        self.postgres = database_url.startswith("postgres")
        if executor_id is not None and (not isinstance(executor_id, str) or not executor_id):
            raise wrong("executor_id", executor_id, "a non-empty string")
        self.executor_id = executor_id or (_default_executor_id() if self.postgres else "local")
        self.lock_timeout = check_seconds("lock_timeout", lock_timeout)
        self.recovery_interval = check_seconds("recovery_interval", recovery_interval, minimum=0.01)
        self.app_version = app_version
        self.observer = observer or RunObserver()
        self.approvals = DBOSApprovals()
        """The broker of agents that have none (``Agent(approvals=...)``): their tool
        approvals wait durably, answered from any worker."""
        self._followers: dict[str, _Follower] = {}
        self._executing: dict[str, asyncio.Task[Any]] = {}
        self._lease: _Lease | None = None
        self._checkpoints: Checkpoints | None = None
        self._recovery: asyncio.Task[None] | None = None
        self._launched = False

    # -- lifetime --------------------------------------------------------------------------

    async def launch(self) -> None:
        """Start DBOS in this process (from the event loop runs will execute on)."""
        global _current
        from dbos import DBOS

        if _current is not None and _current is not self:
            raise ConfigurationError("DurableRuns: one per process (DBOS is one per process)")
        _current = self
        if self.postgres:  # alive for as long as this session is (before DBOS can run)
            self._lease = await _take_lease(self.database_url, self.executor_id)
        _register()
        config: Any = {
            "name": "procession",
            "system_database_url": self.database_url,
            "executor_id": self.executor_id,
            "application_version": self.app_version,
            "log_level": "WARNING",
        }
        if self.sealer is not None:
            config["serializer"] = sealed_serializer(self.sealer)
        DBOS(config=config)
        DBOS.launch()
        await DBOS.register_queue_async(QUEUE, polling_interval_sec=0.1)
        self._launched = True
        if self.postgres and self._lease is None:  # the database was created just now
            self._lease = await _take_lease(self.database_url, self.executor_id, exists=False)
        if self.postgres:
            self._checkpoints = await Checkpoints.open(self.database_url, sealer=self.sealer)
            self._recovery = asyncio.create_task(self._recover_forever())

    async def close(self) -> None:
        """Stop recovering, stop DBOS and release this worker's lease. Runs still executing
        stay pending: another worker resumes them."""
        global _current
        from dbos import DBOS

        if self._recovery is not None:
            self._recovery.cancel()
            await asyncio.gather(self._recovery, return_exceptions=True)
        await self._interrupt()
        if self._launched:
            DBOS.destroy(workflow_completion_timeout_sec=0)
            self._launched = False
        if self._checkpoints is not None:
            await self._checkpoints.close()
            self._checkpoints = None
        if self._lease is not None:
            await self._lease.close()
            self._lease = None
        if _current is self:
            _current = None

    # -- runs ------------------------------------------------------------------------------

    @staticmethod
    def new_run_id() -> str:
        """A new run id (``run_`` and 32 hex digits)."""
        return f"run_{uuid.uuid4().hex}"

    async def _interrupt(self) -> None:
        """Stop the runs executing here without ending them (a cancelled workflow stays
        pending in DBOS: another worker, or this one restarted, resumes it)."""
        tasks = [t for t in self._executing.values() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def start(
        self,
        agent_id: str,
        messages: Any,
        *,
        run_id: str | None = None,
        meta: Mapping[str, Any] | None = None,
        follow: bool = True,
        **options: Any,
    ) -> DurableRun:
        """Start (or, with a known ``run_id``, attach to) the run of ``agent_id``.

        ``options`` are ``stream()``'s that can be stored with the run (ids, request context,
        instructions, settings): they must be JSON-like. ``meta`` (JSON-like) is stored with
        the run for the :class:`RunObserver` of whichever worker executes it. With
        ``follow=False`` the run's chunks are not handed to the caller (``result()`` still
        works). A busy thread (``lock_timeout``) ends the run with ``ThreadBusyError``.
        """
        from dbos import DBOS, SetWorkflowID

        if agent_id not in self.agents:
            raise wrong("agent_id", agent_id, f"one of {sorted(self.agents)}")
        run_id = run_id or self.new_run_id()
        follower = _Follower() if follow else None
        if follower is not None:
            self._followers[run_id] = follower
        request = {"messages": messages, "options": options, "meta": dict(meta or {})}
        try:
            with SetWorkflowID(run_id):
                handle = await DBOS.start_workflow_async(_register(), agent_id, request)
        except BaseException:
            self._followers.pop(run_id, None)
            raise
        result = asyncio.ensure_future(handle.get_result())
        result.add_done_callback(lambda done: self._ended(run_id, follower, done))
        return DurableRun(run_id, follower, result)

    def _ended(self, run_id: str, follower: _Follower | None, done: asyncio.Future[Any]) -> None:
        """The workflow completed (here or elsewhere): a follower of a run that was not
        executed here stops waiting."""
        if not done.cancelled():
            done.exception()  # retrieved: whoever awaits the result sees it
        if follower is not None:
            if self._followers.get(run_id) is follower:
                del self._followers[run_id]
            follower.put(_END)

    async def execute(self, agent_id: str, request: dict[str, Any]) -> dict[str, Any]:
        """The body of the ``procession.run`` workflow."""
        from dbos import DBOS

        run_id = DBOS.workflow_id
        assert run_id is not None
        agent = self.agents.get(agent_id)
        if agent is None:
            raise ConfigurationError(f"procession.run: no agent {agent_id!r} in this worker")
        options = dict(request["options"])
        follower = self._followers.pop(run_id, None)
        task = asyncio.current_task()
        if task is not None:
            self._executing[run_id] = task
        sink = await self.observer.opened(run_id, agent_id, options, request.get("meta") or {})
        error: BaseException | None = None
        finished = False
        try:
            async with self._thread(agent, options.get("thread_id")):
                summary, error = await self._stream(agent, run_id, request, follower, sink)
            finished = True
            return summary
        except ThreadBusyError as busy:
            error, finished = busy, True
            if follower is not None:
                follower.put(busy)
            return {"runId": run_id, "status": "busy", "error": str(busy)}
        except Exception as failure:  # the workflow fails (DBOS records it)
            error, finished = failure, True
            if follower is not None:
                follower.put(failure)
            raise
        finally:
            self._executing.pop(run_id, None)
            if finished and self._checkpoints is not None and not self.keep_checkpoints:
                await self._checkpoints.forget(run_id)
            self.observer.closed(run_id, error, finished=finished)
            if follower is not None:
                follower.put(_END)

    def _thread(
        self, agent: Agent, thread_id: str | None
    ) -> contextlib.AbstractAsyncContextManager[None]:
        """The thread's lock: a new turn waits ``lock_timeout``, a recovered one as long as
        it takes (whether this is the first execution is a step of the run)."""
        lock = getattr(agent.memory, "thread_lock", None)
        if thread_id is None or not callable(lock):
            return contextlib.nullcontext()

        @contextlib.asynccontextmanager
        async def held() -> AsyncIterator[None]:
            timeout = self.lock_timeout if await _is_first() else 365 * 86400.0
            async with lock(thread_id, timeout=timeout):
                yield

        return held()

    async def _stream(
        self,
        agent: Agent,
        run_id: str,
        request: dict[str, Any],
        follower: _Follower | None,
        sink: ChunkSink | None,
    ) -> tuple[dict[str, Any], BaseException | None]:
        options = dict(request["options"])
        if agent.approvals is None and "approvals" not in options:
            options["approvals"] = self.approvals
        states: Mapping[str, Any] = {}
        store = self._checkpoints
        records = None if store is None else await store.run(run_id)
        journal = DBOSJournal(states=lambda: states, checkpoints=records)  # states: checked
        stream = agent.stream(request["messages"], run_id=run_id, journal=journal, **options)
        states = stream.processor_states
        async with stream:
            async for chunk in stream:
                if sink is not None:
                    sink(chunk)
                if follower is not None:
                    follower.put(chunk)
            result = await stream.result(raise_error=False)
        if follower is not None:
            follower.outcome = result
        error = result.error
        summary = {
            "runId": run_id,
            "status": "error" if error is not None else "done",
            "text": result.text,
            "finishReason": result.finish_reason,
            "error": None if error is None else f"{type(error).__name__}: {error}",
        }
        return summary, error

    async def send(self, run_id: str, topic: str, message: Any) -> None:
        """Send ``message`` to the run on ``topic`` (DBOS ``send``; any worker)."""
        from dbos import DBOS

        await DBOS.send_async(run_id, message, topic)

    # -- recovery --------------------------------------------------------------------------

    async def _recover_forever(self) -> None:
        while True:
            await asyncio.sleep(self.recovery_interval)
            try:
                await self.recover_dead_workers()
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("looking for dead workers' runs failed")

    async def recover_dead_workers(self) -> list[str]:
        """Re-queue the pending runs of executors whose lease is gone; their ids."""
        from dbos import DBOS

        pending = await DBOS.list_workflows_async(
            status="PENDING", name=WORKFLOW, load_input=False, load_output=False
        )
        others = {w.executor_id for w in pending if w.executor_id} - {self.executor_id}
        recovered: list[str] = []
        lease = self._lease
        assert lease is not None
        for executor in sorted(others):
            if not await lease.claim(executor):
                continue  # alive
            try:  # listed again under the claim: only runs still on the dead executor
                runs = await DBOS.list_workflows_async(
                    status="PENDING",
                    name=WORKFLOW,
                    executor_id=executor,
                    load_input=False,
                    load_output=False,
                )
                for run in runs:
                    await DBOS.resume_workflow_async(run.workflow_id, queue_name=QUEUE)
                    recovered.append(run.workflow_id)
            finally:
                await lease.release(executor)
        if recovered:
            logger.warning("resumed %d runs of dead workers: %s", len(recovered), recovered)
        return recovered


async def enqueue(
    database_url: str,
    agent_id: str,
    messages: Any,
    *,
    run_id: str | None = None,
    app_version: str = "procession",
    encryption_key: str | None = None,
    **options: Any,
) -> str:
    """Queue a run for any worker of ``database_url`` from a process that runs none (DBOS's
    client): the run's id. ``options`` as for :meth:`DurableRuns.start`."""
    from dbos import DBOSClient

    run_id = run_id or f"run_{uuid.uuid4().hex}"
    sealer = Sealer.configured(encryption_key)
    extra: dict[str, Any] = {} if sealer is None else {"serializer": sealed_serializer(sealer)}
    client = DBOSClient(system_database_url=database_url, **extra)
    try:
        await client.enqueue_async(
            {
                "queue_name": QUEUE,
                "workflow_name": WORKFLOW,
                "workflow_id": run_id,
                "app_version": app_version,
            },
            agent_id,
            {"messages": messages, "options": options},
        )
    finally:
        client.destroy()
    return run_id


def sealed_serializer(sealer: Sealer) -> Any:
    """A DBOS serializer sealing what DBOS stores (workflow inputs, outputs, step outputs,
    messages, events) with ``sealer``: DBOS's own encoding, encrypted and authenticated, so
    a row nobody with the key wrote is refused before it is decoded (DBOS's values include
    exceptions, which JSON cannot hold; only what this key sealed is ever unpickled)."""
    import pickle

    from dbos import Serializer

    class Sealed(Serializer):
        def serialize(self, data: Any) -> str:
            return sealer.seal(pickle.dumps(data)).decode()

        def deserialize(self, serialized_data: str) -> Any:
            plain = sealer.open(serialized_data.encode(), "DBOS record")
            return pickle.loads(plain)  # authenticated: only what our key sealed

        def name(self) -> str:
            return "procession_sealed"

    return Sealed()


async def _is_first() -> bool:
    """Whether this is the run's first execution (recorded as a step: executed again, the
    step's body does not run)."""
    from dbos import DBOS

    ran = False

    async def admit() -> bool:
        nonlocal ran
        ran = True
        return True

    await DBOS.run_step_async({"name": "admit", "retries_allowed": False}, admit)
    return ran


def _agents(agents: Agent | Iterable[Agent] | Mapping[str, Agent]) -> dict[str, Agent]:
    if isinstance(agents, Agent):
        agents = [agents]
    pairs = list(agents.items()) if isinstance(agents, Mapping) else [(a.id, a) for a in agents]
    out: dict[str, Agent] = {}
    for key, agent in pairs:
        if not isinstance(agent, Agent):
            raise wrong(f"agents[{key!r}]", agent, "an Agent")
        out[key] = agent
    if not out:
        raise wrong("agents", agents, "at least one Agent")
    return out


class _Lease:
    """This worker's liveness lock, and claims on dead workers' locks (one connection)."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self._query = asyncio.Lock()

    async def claim(self, executor_id: str) -> bool:
        async with self._query:
            held = await self._conn.fetchval(
                "SELECT pg_try_advisory_lock($1)", advisory_key("procession:executor", executor_id)
            )
        return bool(held)

    async def release(self, executor_id: str) -> None:
        async with self._query:
            await self._conn.fetchval(
                "SELECT pg_advisory_unlock($1)", advisory_key("procession:executor", executor_id)
            )

    async def close(self) -> None:
        await self._conn.close()


async def _take_lease(database_url: str, executor_id: str, *, exists: bool = True) -> _Lease | None:
    """This worker's lease; ``None`` when DBOS has not created its database yet (a first
    start: no other worker can have runs then)."""
    import asyncpg

    try:
        conn = await asyncpg.connect(
            database_url, server_settings={"application_name": f"procession-worker:{executor_id}"}
        )
    except asyncpg.InvalidCatalogNameError:
        if exists:
            return None
        raise
    await conn.execute(
        "SELECT pg_advisory_lock($1)", advisory_key("procession:executor", executor_id)
    )
    return _Lease(conn)
