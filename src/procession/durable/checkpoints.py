"""``Checkpoints``: a durable run's model and tool call records, one ``INSERT`` each.

A DBOS step costs two system-database transactions (is there a record? then: the record),
each through SQLAlchemy on a worker thread: about 4 ms on this project's machine, two per
agent step. On PostgreSQL :class:`~procession.durable.DurableRuns` records model and tool
calls here instead (decision 0201): every record of a run is read in one query when an
execution of the run begins, and each call then costs one ``INSERT`` on an asyncpg pool
(about 0.35 ms), written before the call's outcome reaches the run, so a recorded call is
never made again. The workflow itself (status, recovery, queues, approvals' events and
messages, the commit) stays DBOS's.

Two executions of one run at once (DBOS prevents it; a stalled worker may still try) cannot
both record a call: the second ``INSERT`` finds the first's row and its execution stops with
:class:`CheckpointConflict`, as DBOS stops an execution whose step was recorded by another.

Records are pickled (as DBOS's are) and kept as DBOS keeps its step outputs.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from typing import Any

__all__ = ["CheckpointConflict", "Checkpoints", "RunCheckpoints"]

_SCHEMA = """
CREATE SCHEMA IF NOT EXISTS procession;
CREATE TABLE IF NOT EXISTS procession.checkpoints (
    run_id text NOT NULL,
    key text NOT NULL,
    record bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, key)
);
"""

_INSERT = (
    "INSERT INTO procession.checkpoints (run_id, key, record) VALUES ($1, $2, $3)"
    " ON CONFLICT DO NOTHING RETURNING 1"
)


async def _no_reset(conn: Any) -> None:
    return None


class CheckpointConflict(RuntimeError):  # noqa: N818 - named for what happened
    """Another execution of the run recorded this call first: this execution stops."""


class Checkpoints:
    """The checkpoint table of one DBOS system database (a pool per worker)."""

    def __init__(self, pool: Any) -> None:
        self._pool = pool

    @classmethod
    async def open(cls, database_url: str) -> Checkpoints:
        """Connect to ``database_url`` (PostgreSQL) and create the table if missing."""
        import asyncpg

        pool = await asyncpg.create_pool(
            database_url,
            min_size=1,
            max_size=8,
            server_settings={"application_name": "procession-checkpoints"},
            reset=_no_reset,  # single statements leave no session state: no RESET round trip
        )
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext('procession.checkpoints'))")
            await conn.execute(_SCHEMA)
        return cls(pool)

    async def close(self) -> None:
        """Close the pool."""
        await self._pool.close()

    async def run(self, run_id: str) -> RunCheckpoints:
        """The records of ``run_id`` so far (one query), to read and extend."""
        rows = await self._pool.fetch(
            "SELECT key, record FROM procession.checkpoints WHERE run_id = $1", run_id
        )
        return RunCheckpoints(self._pool, run_id, {r["key"]: bytes(r["record"]) for r in rows})


class RunCheckpoints:
    """One execution's view of a run's records: what was recorded before it began, and
    :meth:`record` for what it does."""

    __slots__ = ("_pool", "_records", "run_id")

    def __init__(self, pool: Any, run_id: str, records: Mapping[str, bytes]) -> None:
        self._pool = pool
        self.run_id = run_id
        self._records = dict(records)

    def get(self, key: str) -> tuple[bool, Any]:
        """``(True, value)`` when ``key`` was recorded, else ``(False, None)``."""
        raw = self._records.get(key)
        if raw is None:
            return False, None
        return True, pickle.loads(raw)  # our own records, in our own database (as DBOS does)

    async def record(self, key: str, value: Any) -> None:
        """Record ``value`` under ``key`` (one ``INSERT``); :class:`CheckpointConflict` when
        another execution recorded it first."""
        raw = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        if await self._pool.fetchval(_INSERT, self.run_id, key, raw) is None:
            raise CheckpointConflict(f"run {self.run_id}: {key} was recorded by another execution")
        self._records[key] = raw
