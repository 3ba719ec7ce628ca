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

Records are JSON (never pickle: someone who can write the database must not get code
execution from it), sealed with Fernet (the ``cryptography`` package) when a key is
configured (``encryption_key=`` or ``PROCESSION_DURABLE_KEY``; several keys separated by
commas decrypt, the first encrypts, for rotation), and deleted when their run ends.
:func:`prune_checkpoints` (``procession prune``) deletes what crashed runs left behind.
A model call's record holds the model's raw output (what replay needs): see "What is stored
where" in ``docs/scaling.md``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from procession.errors import ConfigurationError, StorageError

__all__ = [
    "KEY_VARIABLE",
    "CheckpointConflict",
    "Checkpoints",
    "RunCheckpoints",
    "Sealer",
    "prune_checkpoints",
]

KEY_VARIABLE = "PROCESSION_DURABLE_KEY"
"""The environment variable durable state's encryption key is read from (Fernet keys,
comma-separated; the first encrypts)."""

_TOKEN = b"gAAAAA"  # how every Fernet token begins (version byte 0x80, base64)

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


class Sealer:
    """Encrypts durable records at rest with Fernet (AES-128-CBC and HMAC-SHA256).

    Args:
        keys: Fernet keys (``Fernet.generate_key()``): the first encrypts, each decrypts.
    """

    __slots__ = ("_fernet",)

    def __init__(self, keys: list[str]) -> None:
        try:
            from cryptography.fernet import Fernet, MultiFernet
        except ImportError:  # pragma: no cover - the durable extra has it
            raise ConfigurationError(
                "encryption_key: install the 'durable' extra (it needs 'cryptography')"
            ) from None
        try:
            self._fernet = MultiFernet([Fernet(key.strip().encode()) for key in keys])
        except (ValueError, TypeError):
            raise ConfigurationError(
                "encryption_key: expected Fernet keys (32 url-safe base64-encoded bytes each, "
                "comma-separated), as Fernet.generate_key() makes"
            ) from None

    @classmethod
    def configured(cls, key: str | None = None) -> Sealer | None:
        """The sealer of ``key``, else of ``PROCESSION_DURABLE_KEY``; ``None`` when neither
        is set (records are then stored in the clear)."""
        value = key if key is not None else os.environ.get(KEY_VARIABLE)
        if value is None or not value.strip():
            return None
        return cls([part for part in value.split(",") if part.strip()])

    def seal(self, data: bytes) -> bytes:
        """``data`` encrypted (a Fernet token)."""
        return self._fernet.encrypt(data)

    def open(self, token: bytes, where: str) -> bytes:
        """``token`` decrypted; :class:`~procession.errors.StorageError` naming
        ``where`` when no configured key opens it (a wrong key, or a forged record)."""
        from cryptography.fernet import InvalidToken

        try:
            return self._fernet.decrypt(token)
        except InvalidToken:
            raise StorageError(
                f"{where}: the record cannot be decrypted with the configured "
                f"{KEY_VARIABLE} (a wrong key, or a record nobody with the key wrote)"
            ) from None


def encode_record(value: Any, sealer: Sealer | None) -> bytes:
    """``value`` as stored: JSON, sealed when ``sealer`` is given."""
    data = json.dumps(value, separators=(",", ":"), default=_jsonable).encode()
    return data if sealer is None else sealer.seal(data)


def decode_record(raw: bytes, sealer: Sealer | None, where: str) -> Any:
    """A stored record's value; never unpickles. A sealed record without a key, or a record
    that is neither JSON nor sealed, raises :class:`~procession.errors.StorageError`
    naming ``where``."""
    if raw.startswith(_TOKEN):
        if sealer is None:
            raise StorageError(
                f"{where}: the record is encrypted; configure its key ({KEY_VARIABLE} or "
                "encryption_key=) to resume the run"
            )
        raw = sealer.open(raw, where)
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        raise StorageError(
            f"{where}: the record is not JSON (records are never unpickled; an older "
            "version's pickled record cannot be resumed: prune it)"
        ) from None


def _jsonable(value: Any) -> Any:
    for method in ("to_dict", "model_dump"):
        convert = getattr(value, method, None)
        if callable(convert):
            return convert()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


class CheckpointConflict(RuntimeError):  # noqa: N818 - named for what happened
    """Another execution of the run recorded this call first: this execution stops."""


class Checkpoints:
    """The checkpoint table of one DBOS system database (a pool per worker)."""

    def __init__(self, pool: Any, sealer: Sealer | None = None) -> None:
        self._pool = pool
        self.sealer = sealer

    @classmethod
    async def open(cls, database_url: str, *, sealer: Sealer | None = None) -> Checkpoints:
        """Connect to ``database_url`` (PostgreSQL) and create the table if missing;
        records are sealed with ``sealer`` when given."""
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
        return cls(pool, sealer)

    async def close(self) -> None:
        """Close the pool."""
        await self._pool.close()

    async def run(self, run_id: str) -> RunCheckpoints:
        """The records of ``run_id`` so far (one query), to read and extend."""
        rows = await self._pool.fetch(
            "SELECT key, record FROM procession.checkpoints WHERE run_id = $1", run_id
        )
        records = {r["key"]: bytes(r["record"]) for r in rows}
        return RunCheckpoints(self._pool, run_id, records, self.sealer)

    async def forget(self, run_id: str) -> int:
        """Delete ``run_id``'s records (its run ended): how many there were."""
        status: str = await self._pool.execute(
            "DELETE FROM procession.checkpoints WHERE run_id = $1", run_id
        )
        return int(status.rsplit(" ", 1)[-1])


class RunCheckpoints:
    """One execution's view of a run's records: what was recorded before it began, and
    :meth:`record` for what it does."""

    __slots__ = ("_pool", "_records", "_sealer", "run_id")

    def __init__(
        self,
        pool: Any,
        run_id: str,
        records: Mapping[str, bytes],
        sealer: Sealer | None = None,
    ) -> None:
        self._pool = pool
        self.run_id = run_id
        self._records = dict(records)
        self._sealer = sealer

    def get(self, key: str) -> tuple[bool, Any]:
        """``(True, value)`` when ``key`` was recorded, else ``(False, None)``."""
        raw = self._records.get(key)
        if raw is None:
            return False, None
        return True, decode_record(raw, self._sealer, f"run {self.run_id}: checkpoint {key}")

    async def record(self, key: str, value: Any) -> None:
        """Record ``value`` under ``key`` (one ``INSERT``); :class:`CheckpointConflict` when
        another execution recorded it first."""
        raw = encode_record(value, self._sealer)
        if await self._pool.fetchval(_INSERT, self.run_id, key, raw) is None:
            raise CheckpointConflict(f"run {self.run_id}: {key} was recorded by another execution")
        self._records[key] = raw


_PRUNE = """
DELETE FROM procession.checkpoints AS c
WHERE c.created_at < now() - make_interval(secs => $1)
  AND NOT EXISTS (
    SELECT 1 FROM dbos.workflow_status AS w
    WHERE w.workflow_uuid = c.run_id AND w.status IN ('PENDING', 'ENQUEUED')
  )
"""


async def prune_checkpoints(database_url: str, *, older_than: float = 0.0) -> int:
    """Delete the checkpoints of runs that are no longer pending (ended, or gone from DBOS)
    and were recorded more than ``older_than`` seconds ago: what crashed runs left behind
    (a run that ends deletes its own). Returns how many records were deleted."""
    import asyncpg

    if isinstance(older_than, bool) or not isinstance(older_than, int | float) or older_than < 0:
        raise ConfigurationError(f"older_than: expected seconds >= 0 (got {older_than!r})")
    conn = await asyncpg.connect(database_url)
    try:
        exists = await conn.fetchval("SELECT to_regclass('procession.checkpoints') IS NOT NULL")
        if not exists:
            return 0
        dbos = await conn.fetchval("SELECT to_regclass('dbos.workflow_status') IS NOT NULL")
        query = _PRUNE if dbos else _PRUNE.split("AND NOT EXISTS")[0]
        status: str = await conn.execute(query, float(older_than))
    finally:
        await conn.close()
    return int(status.rsplit(" ", 1)[-1])
