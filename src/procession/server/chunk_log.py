"""The chunk log of resumable streams: a run's encoded events, readable from any replica.

A run streamed with resumable streams on runs in a task of its own (not the request's) and
appends each encoded event (a *frame*) to a :class:`LiveRun` in memory: a plain list append
on the hot path. A flusher task writes new frames of every live run in batches — one
``INSERT`` of arrays every ``flush_interval`` seconds — and announces them with ``NOTIFY``,
off the hot path. A client following the run on the replica that runs it reads the list; a
client on another replica reads the table and wakes on the ``NOTIFY``.

The tables are ``UNLOGGED`` (ephemeral: no WAL, emptied if PostgreSQL crashes) and never part
of memory (D13): a run's frames are deleted when it ended and no client is attached, and a
replica's sweeper deletes what is left of ended runs and of replicas that died.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from procession._checks import check_seconds, wrong
from procession.errors import StorageError
from procession.server.run_ids import run_id_taken

__all__ = ["ChunkLog", "LiveRun", "RunInfo"]

logger = logging.getLogger("procession.server")

CHANNEL = "procession_frames"

_SCHEMA = """
CREATE UNLOGGED TABLE IF NOT EXISTS resumable_runs (
    run_id text PRIMARY KEY,
    agent_id text NOT NULL,
    resource_id text NOT NULL,
    thread_id text,
    format text NOT NULL,
    status text NOT NULL DEFAULT 'running',
    owner text NOT NULL,
    owner_seen timestamptz NOT NULL DEFAULT now(),
    seen_at timestamptz NOT NULL DEFAULT now(),
    started_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS resumable_runs_by_thread ON resumable_runs (thread_id, started_at);
CREATE UNLOGGED TABLE IF NOT EXISTS resumable_frames (
    run_id text NOT NULL REFERENCES resumable_runs (run_id) ON DELETE CASCADE,
    seq integer NOT NULL,
    frame bytea NOT NULL,
    PRIMARY KEY (run_id, seq)
);
"""

_FLUSH = f"""
WITH written AS (
    INSERT INTO resumable_frames (run_id, seq, frame)
    SELECT * FROM unnest($1::text[], $2::int[], $3::bytea[])
    ON CONFLICT DO NOTHING
)
SELECT pg_notify('{CHANNEL}', r) FROM unnest($4::text[]) AS r
"""


@dataclass(slots=True, frozen=True)
class RunInfo:
    """What the log knows of a run: who may read it and how to answer."""

    run_id: str
    agent_id: str
    resource_id: str
    thread_id: str | None
    format: str
    status: str


@dataclass(slots=True, eq=False)
class LiveRun:
    """A run executing in this replica: its frames so far, and who follows it here."""

    info: RunInfo
    frames: list[bytes] = field(default_factory=list)
    flushed: int = 0
    ended: bool = False
    followers: int = 0
    alone_since: float = 0.0
    left_at: float = float("-inf")
    failure: Any = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[Any] | None = None

    def append(self, frame: bytes) -> None:
        """One frame (the hot path: an append and a wake-up)."""
        self.frames.append(frame)
        self.changed.set()


class ChunkLog:
    """The PostgreSQL chunk log shared by replicas (see the module docstring).

    Args:
        dsn: The database (the memory's PostgreSQL, or any other).
        schema: The PostgreSQL schema of the two tables (created if missing).
        flush_interval: Seconds between batched writes.
        detach_timeout: A run nobody follows for this long is cancelled (D32); an ended
            run's frames are kept this long for a client that reconnects late.
    """

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = "public",
        flush_interval: float = 0.02,
        detach_timeout: float = 30.0,
    ) -> None:
        if not isinstance(dsn, str) or not dsn:
            raise wrong("dsn", dsn, "a PostgreSQL connection string")
        if not isinstance(schema, str) or not schema.isidentifier() or schema != schema.lower():
            raise wrong("schema", schema, "a lower-case SQL identifier")
        self.dsn = dsn
        self.schema = schema
        self.flush_interval = check_seconds("flush_interval", flush_interval, minimum=0.001)
        self.detach_timeout = check_seconds("detach_timeout", detach_timeout, minimum=0.01)
        self.owner = uuid.uuid4().hex
        self.live: dict[str, LiveRun] = {}
        self._pool: Any = None
        self._listener: Any = None
        self._waiting: dict[str, set[asyncio.Event]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._dirty = asyncio.Event()

    # -- lifetime --------------------------------------------------------------------------

    async def open(self) -> None:
        """Create the tables, listen for frames and start the flusher and the sweeper."""
        import asyncpg

        settings = {"search_path": self.schema, "application_name": "procession-chunk-log"}
        try:
            self._pool = await asyncpg.create_pool(
                self.dsn, min_size=1, max_size=4, server_settings=settings
            )
            async with self._pool.acquire() as conn, conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(hashtext($1))", "chunk-log")
                await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
                await conn.execute(_SCHEMA)
            self._listener = await asyncpg.connect(self.dsn, server_settings=settings)
            await self._listener.add_listener(CHANNEL, self._on_frames)
        except (OSError, asyncpg.PostgresError) as error:
            raise StorageError(f"chunk log: {error}") from error
        self._tasks = [asyncio.create_task(self._flush_forever())]
        self._tasks.append(asyncio.create_task(self._sweep_forever()))

    async def close(self) -> None:
        """Flush what is pending, then stop (runs still executing are the server's)."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._pool is not None:
            with contextlib.suppress(Exception):
                await self.flush()
            await self._pool.close()
        if self._listener is not None:
            await self._listener.close()

    # -- writing ---------------------------------------------------------------------------

    async def begin(self, info: RunInfo) -> LiveRun:
        """Register a run executing here (a recovered run takes over its row). A run id the
        log holds for another resource is refused (409 naming the id), atomically: the row
        is taken over only when its resource is the run's."""
        live = self.live.get(info.run_id)
        if live is not None and live.info.resource_id != info.resource_id:
            raise run_id_taken(info.run_id)
        taken = await self._pool.fetchval(
            "INSERT INTO resumable_runs (run_id, agent_id, resource_id, thread_id, format, owner)"
            " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (run_id) DO UPDATE SET"
            " owner = excluded.owner, status = 'running', owner_seen = now()"
            " WHERE resumable_runs.resource_id = excluded.resource_id RETURNING run_id",
            info.run_id,
            info.agent_id,
            info.resource_id,
            info.thread_id,
            info.format,
            self.owner,
        )
        if taken is None:
            raise run_id_taken(info.run_id)
        run = self.live[info.run_id] = LiveRun(info)
        run.alone_since = asyncio.get_running_loop().time()
        return run

    def end(self, run: LiveRun) -> None:
        """The run ended: its last frames and status are written by the next flush."""
        run.ended = True
        run.changed.set()
        self._dirty.set()

    def touch(self, run: LiveRun) -> None:
        """Frames were appended (called per batch by the producer, not per frame)."""
        self._dirty.set()

    async def flush(self) -> None:
        """Write every live run's new frames in one statement, then announce them."""
        runs = [r for r in self.live.values() if r.flushed < len(r.frames) or r.ended]
        if not runs:
            return
        ids: list[str] = []
        seqs: list[int] = []
        frames: list[bytes] = []
        for run in runs:
            count = len(run.frames)
            for seq in range(run.flushed, count):
                ids.append(run.info.run_id)
                seqs.append(seq)
                frames.append(run.frames[seq])
            run.flushed = count
        ended = [r for r in runs if r.ended]
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(_FLUSH, ids, seqs, frames, [r.info.run_id for r in runs])
            if ended:
                await self._finish(conn, ended)

    async def _finish(self, conn: Any, ended: list[LiveRun]) -> None:
        now = asyncio.get_running_loop().time()
        waited = [r.followers > 0 or now - r.left_at < self.detach_timeout for r in ended]
        gone = [r.info.run_id for r, keep in zip(ended, waited, strict=True) if not keep]
        kept = [r.info.run_id for r, keep in zip(ended, waited, strict=True) if keep]
        for run in ended:
            self.live.pop(run.info.run_id, None)
        # nobody here follows: deleted unless a client elsewhere was seen lately
        await conn.execute(
            "DELETE FROM resumable_runs WHERE run_id = ANY($1::text[])"
            " AND seen_at < now() - make_interval(secs => $2)",
            gone,
            self.detach_timeout,
        )
        await conn.execute(
            "UPDATE resumable_runs SET status = 'ended', seen_at = now()"
            " WHERE run_id = ANY($1::text[])",
            [*gone, *kept],
        )

    async def _flush_forever(self) -> None:
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            try:
                await self.flush()
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("chunk log: a flush failed; retrying")
            await asyncio.sleep(self.flush_interval)

    # -- reading ---------------------------------------------------------------------------

    async def info(self, run_id: str) -> RunInfo | None:
        """The run's record, or ``None`` when the log has none (any more)."""
        live = self.live.get(run_id)
        if live is not None:
            return live.info
        row = await self._pool.fetchrow(
            "SELECT run_id, agent_id, resource_id, thread_id, format, status"
            " FROM resumable_runs WHERE run_id = $1",
            run_id,
        )
        return None if row is None else RunInfo(**dict(row))

    async def latest_on_thread(self, thread_id: str) -> RunInfo | None:
        """The most recent run on ``thread_id`` the log still holds."""
        for live in self.live.values():
            if live.info.thread_id == thread_id and not live.ended:
                return live.info
        row = await self._pool.fetchrow(
            "SELECT run_id, agent_id, resource_id, thread_id, format, status FROM resumable_runs"
            " WHERE thread_id = $1 ORDER BY started_at DESC LIMIT 1",
            thread_id,
        )
        return None if row is None else RunInfo(**dict(row))

    async def follow(self, run_id: str, after: int) -> AsyncGenerator[list[bytes], None]:
        """The run's frames from index ``after`` on, in batches, until it ended."""
        live = self.live.get(run_id)
        if live is not None:
            async for batch in self._follow_live(live, after):
                yield batch
            return
        async for batch in self._follow_remote(run_id, after):
            yield batch

    async def _follow_live(self, run: LiveRun, after: int) -> AsyncIterator[list[bytes]]:
        run.followers += 1
        complete = False
        try:
            while True:
                run.changed.clear()
                frames = run.frames
                if after < len(frames):
                    batch = frames[after:]
                    after += len(batch)
                    yield batch
                    continue
                if run.ended:
                    complete = True
                    return
                await run.changed.wait()
        finally:
            run.followers -= 1
            if not complete:  # left early: the client may come back
                run.left_at = asyncio.get_running_loop().time()
            if run.followers == 0:
                run.alone_since = asyncio.get_running_loop().time()

    async def _follow_remote(self, run_id: str, after: int) -> AsyncIterator[list[bytes]]:
        event = asyncio.Event()
        self._waiting.setdefault(run_id, set()).add(event)
        loop = asyncio.get_running_loop()
        seen = 0.0
        try:
            while True:
                event.clear()
                if loop.time() - seen > self.detach_timeout / 3:  # we are still here
                    await self._pool.execute(
                        "UPDATE resumable_runs SET seen_at = now() WHERE run_id = $1", run_id
                    )
                    seen = loop.time()
                rows = await self._pool.fetch(
                    "SELECT seq, frame FROM resumable_frames WHERE run_id = $1 AND seq >= $2"
                    " ORDER BY seq",
                    run_id,
                    after,
                )
                batch: list[bytes] = []
                for row in rows:  # contiguous from ``after`` (a gap is being written)
                    if row["seq"] != after + len(batch):
                        break
                    batch.append(bytes(row["frame"]))
                if batch:
                    after += len(batch)
                    yield batch
                    continue
                status = await self._pool.fetchval(
                    "SELECT status FROM resumable_runs WHERE run_id = $1", run_id
                )
                if status != "running":
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), 1.0)
        finally:
            self._waiting[run_id].discard(event)
            if not self._waiting[run_id]:
                del self._waiting[run_id]
            with contextlib.suppress(Exception):
                await asyncio.shield(
                    self._pool.execute(
                        "UPDATE resumable_runs SET seen_at = now() WHERE run_id = $1", run_id
                    )
                )

    def _on_frames(self, conn: Any, pid: int, channel: str, payload: object) -> None:
        for event in self._waiting.get(str(payload), ()):
            event.set()

    # -- sweeping --------------------------------------------------------------------------

    async def _sweep_forever(self) -> None:
        every = min(1.0, self.detach_timeout / 3)
        while True:
            await asyncio.sleep(every)
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("chunk log: sweeping failed")

    async def sweep(self) -> None:
        """Cancel local runs nobody followed for ``detach_timeout``; keep this replica's
        runs marked alive; delete what ended runs and dead replicas left."""
        now = asyncio.get_running_loop().time()
        alone = [
            r
            for r in self.live.values()
            if not r.ended and r.followers == 0 and now - r.alone_since > self.detach_timeout
        ]
        if alone:  # a client elsewhere may follow: its seen_at says so
            rows = await self._pool.fetch(
                "SELECT run_id FROM resumable_runs WHERE run_id = ANY($1::text[])"
                " AND seen_at > now() - make_interval(secs => $2)",
                [r.info.run_id for r in alone],
                self.detach_timeout,
            )
            followed = {row["run_id"] for row in rows}
            for run in alone:
                if run.info.run_id in followed:
                    run.alone_since = now
                elif run.task is not None:
                    logger.info("run %s: nobody re-attached; cancelled", run.info.run_id)
                    run.task.cancel()
        await self._pool.execute(
            "UPDATE resumable_runs SET owner_seen = now() WHERE owner = $1 AND status = 'running'",
            self.owner,
        )
        await self._pool.execute(
            "DELETE FROM resumable_runs WHERE (status <> 'running' AND seen_at < now() - "
            " make_interval(secs => $1)) OR owner_seen < now() - make_interval(secs => $1 * 3)",
            self.detach_timeout,
        )
