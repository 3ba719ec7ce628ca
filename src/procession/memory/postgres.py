"""``PostgresStorage``: storage in PostgreSQL through an asyncpg connection pool.

asyncpg was chosen over psycopg 3: it was the faster of the two in our measurements, speaks the
binary protocol, has its pool built in (one package, no extras) and LISTEN/NOTIFY for run events
later; typing comes from ``asyncpg-stubs`` in the ``dev`` extra.

The schema lives in one PostgreSQL schema (``public`` unless told otherwise), is versioned in
a ``schema_migrations`` table and migrated on first use under a transaction-scoped advisory
lock, so many processes may start at once. ``save_turn`` is one transaction that first locks
the thread row (an upsert of the thread), so two turns on one thread are applied one after the
other and never interleave. Embeddings are ``bytea`` float32 blobs ranked in the application,
since Debian's PostgreSQL ships without pgvector.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import datetime
from typing import Any, Concatenate, ParamSpec, TypeVar

import asyncpg

from procession._sql import postgres_migrate
from procession.errors import (
    ConfigurationError,
    MessageThreadError,
    ProcessionError,
    StorageError,
    ThreadOwnershipError,
)
from procession.memory import _backend as sh
from procession.memory import _options as opt
from procession.memory import _records as rec
from procession.memory import ledger
from procession.memory.fence import check_fence, current_fence
from procession.memory.ledger import UsageRecord, UsageTotals
from procession.memory.once import current_commit_key
from procession.memory.storage import Resource, Thread, VectorHit, VectorItem, WorkingMemoryUpdate
from procession.memory.thread_locks import DEFAULT_LOCK_TIMEOUT, PostgresThreadLocks
from procession.memory.vectors import rank
from procession.messages.message import Message

__all__ = ["MIGRATIONS", "PostgresStorage"]

Conn = Any  # an asyncpg connection or pool proxy; asyncpg's own types are generic and wide

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        """
        CREATE TABLE threads (
            id text PRIMARY KEY,
            resource_id text NOT NULL,
            title text,
            metadata jsonb NOT NULL DEFAULT '{}',
            working_memory text,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL
        );
        CREATE INDEX threads_by_resource ON threads (resource_id, updated_at);
        CREATE TABLE messages (
            seq bigint GENERATED ALWAYS AS IDENTITY,
            id text PRIMARY KEY,
            thread_id text NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
            resource_id text NOT NULL,
            role text NOT NULL,
            type text,
            created_at timestamptz NOT NULL,
            body jsonb NOT NULL
        );
        CREATE INDEX messages_by_thread ON messages (thread_id, created_at, seq);
        CREATE INDEX messages_by_resource ON messages (resource_id);
        CREATE TABLE resources (
            id text PRIMARY KEY,
            working_memory text,
            metadata jsonb NOT NULL DEFAULT '{}',
            updated_at timestamptz NOT NULL
        );
        CREATE TABLE vectors (
            message_id text PRIMARY KEY,
            thread_id text NOT NULL,
            resource_id text NOT NULL,
            vector bytea NOT NULL
        );
        CREATE INDEX vectors_by_resource ON vectors (resource_id, thread_id);
        """,
    ),
    (
        2,
        """
        CREATE TABLE usage_ledger (
            run_id text PRIMARY KEY,
            agent_id text NOT NULL,
            model text NOT NULL,
            input_tokens bigint NOT NULL,
            output_tokens bigint NOT NULL,
            total_tokens bigint NOT NULL,
            reasoning_tokens bigint NOT NULL,
            cached_input_tokens bigint NOT NULL,
            cost double precision,
            currency text NOT NULL,
            resource_id text,
            thread_id text,
            created_at timestamptz NOT NULL
        );
        CREATE INDEX usage_by_resource ON usage_ledger (resource_id, created_at);
        CREATE INDEX usage_by_thread ON usage_ledger (thread_id, created_at);
        """,
    ),
    (
        3,
        """
        CREATE TABLE committed_turns (
            key text PRIMARY KEY,
            thread_id text NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
            created_at timestamptz NOT NULL
        );
        CREATE INDEX committed_turns_by_thread ON committed_turns (thread_id);
        """,
    ),
    (
        4,
        """
        CREATE TABLE thread_fences (
            thread_id text PRIMARY KEY,
            token bigint NOT NULL
        );
        """,
    ),
)
"""``(version, script)`` pairs, applied in order; never edit one that has shipped."""

_THREAD_COLUMNS = "id, resource_id, title, metadata::text, created_at, updated_at"

_LOCK_THREAD = """
INSERT INTO threads (id, resource_id, metadata, created_at, updated_at)
VALUES ($1, $2, '{}', $3, $3)
ON CONFLICT (id) DO UPDATE SET updated_at = greatest(threads.updated_at, excluded.updated_at)
RETURNING resource_id
"""

_UPSERT_MESSAGES = """
INSERT INTO messages (id, thread_id, resource_id, role, type, created_at, body)
SELECT m.id, $6, $7, m.role, m.type, m.created_at, m.body::jsonb
FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[])
    WITH ORDINALITY AS m (id, role, type, created_at, body, n)
ORDER BY m.n
ON CONFLICT (id) DO UPDATE SET
    role = excluded.role, type = excluded.type, created_at = excluded.created_at,
    body = excluded.body
WHERE messages.resource_id = excluded.resource_id AND messages.thread_id = excluded.thread_id
RETURNING id
"""

_READ_FENCE = "SELECT token FROM thread_fences WHERE thread_id = $1 FOR UPDATE"

_RECORD_COMMIT = """
INSERT INTO committed_turns (key, thread_id, created_at) VALUES ($1, $2, now())
ON CONFLICT (key) DO NOTHING RETURNING true
"""

_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

P = ParamSpec("P")
R = TypeVar("R")


def _database_errors(
    method: Callable[Concatenate[PostgresStorage, P], Awaitable[R]],
) -> Callable[Concatenate[PostgresStorage, P], Coroutine[Any, Any, R]]:
    """Turn the driver's errors into ``StorageError``, as SQLite's are (the same error type
    on every backend); procession's own errors pass unchanged."""

    @functools.wraps(method)
    async def call(self: PostgresStorage, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(self, *args, **kwargs)
        except ProcessionError:  # ThreadOwnershipError is also an OSError (PermissionError)
            raise
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as error:
            raise StorageError(f"{self!r}: {type(error).__name__}: {error}") from error

    return call


class PostgresStorage:
    """Storage in PostgreSQL; see the module docstring.

    Args:
        dsn: A libpq connection string or URL.
        min_size: Connections the pool keeps open.
        max_size: Most connections the pool opens.
        schema: The PostgreSQL schema holding the tables (created if missing).

    Raises:
        ConfigurationError: an argument of the wrong type or out of range, or a schema name
            that is not a lower-case SQL identifier.
    """

    def __init__(
        self, dsn: str, *, min_size: int = 1, max_size: int = 10, schema: str = "public"
    ) -> None:
        if not isinstance(dsn, str) or not dsn:
            raise ConfigurationError(
                f"PostgresStorage: dsn must be a non-empty connection string (got {dsn!r})"
            )
        if not isinstance(schema, str) or not _SCHEMA_NAME.match(schema):
            raise ConfigurationError(
                f"PostgresStorage: schema must be a lower-case SQL identifier (got {schema!r})"
            )
        self._min_size = opt.integer("PostgresStorage", "min_size", min_size, 0)
        self._max_size = opt.integer("PostgresStorage", "max_size", max_size, max(1, min_size))
        self.dsn = dsn
        self.schema = schema
        self._pool: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()
        self._closed = False
        self._locks: PostgresThreadLocks | None = None

    def __repr__(self) -> str:
        return f"PostgresStorage(schema={self.schema!r})"

    async def _get_pool(self) -> asyncpg.Pool:
        if self._closed:
            raise StorageError(f"{self!r} is closed")
        if self._pool is not None:
            return self._pool
        async with self._opening:
            if self._pool is None:
                self._pool = await self._open()
        return self._pool

    async def _open(self) -> asyncpg.Pool:
        try:
            pool = await asyncpg.create_pool(
                self.dsn,
                min_size=self._min_size,
                max_size=self._max_size,
                server_settings={"search_path": self.schema, "application_name": "procession"},
            )
        except (OSError, asyncpg.PostgresError) as error:
            raise StorageError(f"{self!r}: cannot connect: {error}") from error
        try:
            async with pool.acquire() as conn:
                await _migrate(conn, self.schema)
        except BaseException:
            await pool.close()
            raise
        return pool

    def thread_lock(
        self, thread_id: str, *, timeout: float = DEFAULT_LOCK_TIMEOUT
    ) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold ``thread_id`` for a turn, across every process on this database: a turn
        waiting longer than ``timeout`` seconds raises ``ThreadBusyError``
        (:mod:`procession.memory.thread_locks`)."""
        if self._locks is None:
            self._locks = PostgresThreadLocks(
                self.dsn, namespace=self.schema, fences=self._bump_fence, owner=self
            )
        return self._locks.hold(thread_id, timeout=timeout)

    @_database_errors
    async def _bump_fence(self, thread_id: str) -> int:
        """A new fencing token for ``thread_id`` (:mod:`procession.memory.fence`)."""
        pool = await self._get_pool()
        token: int = await pool.fetchval(sh.BUMP_FENCE, thread_id)
        return token

    async def close(self) -> None:
        """Close the pool (waiting for connections in use to be released)."""
        self._closed = True
        if self._locks is not None:
            await self._locks.close()
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    # -- threads ---------------------------------------------------------------------------

    @_database_errors
    async def create_thread(
        self,
        *,
        resource_id: str,
        thread_id: str | None = None,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Thread:
        """Create a thread; see :meth:`Storage.create_thread`."""
        tid, meta = sh.new_thread(resource_id, thread_id, title, metadata)
        pool = await self._get_pool()
        async with pool.acquire() as conn:
            row = await conn.fetchrow(
                "INSERT INTO threads (id, resource_id, title, metadata, created_at, updated_at)"
                " VALUES ($1, $2, $3, $4::jsonb, $5, $5) ON CONFLICT (id) DO NOTHING"
                f" RETURNING {_THREAD_COLUMNS}",
                tid,
                resource_id,
                title,
                meta,
                rec.now(),
            )
            if row is not None:
                return _thread(row)
            owner = await _owner(conn, tid)
        if owner is not None and owner != resource_id:
            raise ThreadOwnershipError(tid, resource_id, owner)
        raise StorageError(f"thread {tid!r} already exists")

    @_database_errors
    async def get_thread(self, thread_id: str, *, resource_id: str) -> Thread | None:
        """The thread, or ``None``; see :meth:`Storage.get_thread`."""
        sh.check_thread_ref(thread_id, resource_id)
        pool = await self._get_pool()
        row = await pool.fetchrow(f"SELECT {_THREAD_COLUMNS} FROM threads WHERE id = $1", thread_id)
        if row is None:
            return None
        _check_owner(thread_id, resource_id, row["resource_id"])
        return _thread(row)

    @_database_errors
    async def update_thread(
        self,
        thread_id: str,
        *,
        resource_id: str,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Thread:
        """Set the title and merge metadata; see :meth:`Storage.update_thread`."""
        patch = sh.thread_patch(thread_id, resource_id, title, metadata)
        pool = await self._get_pool()
        async with pool.acquire() as conn, conn.transaction():
            owner = await _owner(conn, thread_id, lock=True)
            if owner is None:
                raise StorageError(f"thread {thread_id!r} does not exist")
            _check_owner(thread_id, resource_id, owner)
            row = await conn.fetchrow(
                "UPDATE threads SET title = coalesce($2, title), metadata = metadata || $3::jsonb,"
                " updated_at = greatest(updated_at, $4) WHERE id = $1"
                f" RETURNING {_THREAD_COLUMNS}",
                thread_id,
                title,
                patch,
                rec.now(),
            )
        return _thread(row)

    @_database_errors
    async def list_threads(
        self, resource_id: str, *, limit: int | None = None, offset: int = 0
    ) -> list[Thread]:
        """The resource's threads, most recently updated first."""
        rec.check_id(resource_id, "resource_id")
        limit, offset = rec.check_page(limit, offset)
        pool = await self._get_pool()
        rows = await pool.fetch(
            f"SELECT {_THREAD_COLUMNS} FROM threads WHERE resource_id = $1"
            " ORDER BY updated_at DESC, id LIMIT $2 OFFSET $3",
            resource_id,
            limit,
            offset,
        )
        return [_thread(row) for row in rows]

    @_database_errors
    async def delete_thread(self, thread_id: str, *, resource_id: str) -> bool:
        """Delete a thread, its messages and vectors; ``False`` if it did not exist."""
        sh.check_thread_ref(thread_id, resource_id)
        pool = await self._get_pool()
        async with pool.acquire() as conn, conn.transaction():
            owner = await _owner(conn, thread_id, lock=True)
            if owner is None:
                return False
            _check_owner(thread_id, resource_id, owner)
            await conn.execute("DELETE FROM vectors WHERE thread_id = $1", thread_id)
            await conn.execute("DELETE FROM threads WHERE id = $1", thread_id)
        return True

    # -- messages --------------------------------------------------------------------------

    @_database_errors
    async def save_turn(
        self,
        thread_id: str,
        resource_id: str,
        messages: Sequence[Message],
        *,
        working_memory: WorkingMemoryUpdate | None = None,
        vectors: Sequence[VectorItem] = (),
    ) -> None:
        """Persist one run in one transaction; see :meth:`Storage.save_turn`."""
        turn = rec.prepare_turn(thread_id, resource_id, messages, working_memory, vectors)
        columns = [list(column) for column in zip(*turn.messages, strict=True)] or [[]] * 5
        update = turn.working_memory
        key = current_commit_key()
        fence = current_fence(self, thread_id)
        if fence is not None:
            check_fence(fence, fence.token)  # a lock known lost: not even a transaction
        pool = await self._get_pool()
        async with pool.acquire() as conn, conn.transaction():
            if fence is not None:  # the row locked: a turn taking the thread waits for us
                check_fence(fence, await conn.fetchval(_READ_FENCE, thread_id))
            # The upsert locks the thread row: turns on one thread queue up here.
            owner = await conn.fetchval(_LOCK_THREAD, thread_id, resource_id, rec.now())
            _check_owner(thread_id, resource_id, owner)
            if key is not None and not await conn.fetchval(_RECORD_COMMIT, key, thread_id):
                return  # this turn was stored already (commit_once)
            saved = await conn.fetch(_UPSERT_MESSAGES, *columns, thread_id, resource_id)
            if len(saved) != len(turn.messages):
                await _refuse_foreign_messages(conn, turn.ids, thread_id, resource_id)
                raise StorageError(  # pragma: no cover - the upsert skipped a row otherwise
                    "save_turn: some messages were not written; the turn was rolled back"
                )
            if update is not None:
                await _write_working_memory(conn, update.text, resource_id, update.thread_id)
            await _write_vectors(conn, turn.vectors)

    @_database_errors
    async def check_message_ids(
        self, thread_id: str, message_ids: Sequence[str], *, resource_id: str
    ) -> None:
        """Refuse ids stored elsewhere; see :meth:`Storage.check_message_ids`."""
        sh.check_thread_ref(thread_id, resource_id)
        ids = rec.check_ids(message_ids, "message id")
        pool = await self._get_pool()
        async with pool.acquire() as conn:
            owner = await _owner(conn, thread_id)
            if owner is not None:
                _check_owner(thread_id, resource_id, owner)
            if ids:
                await _refuse_foreign_messages(conn, ids, thread_id, resource_id)

    @_database_errors
    async def list_messages(
        self,
        thread_id: str,
        *,
        resource_id: str,
        last: int | None = None,
        before: datetime | str | None = None,
    ) -> list[Message]:
        """A thread's messages, oldest first; see :meth:`Storage.list_messages`."""
        last, before = sh.history_window(thread_id, resource_id, last, before)
        if last == 0:
            return []
        pool = await self._get_pool()
        async with pool.acquire() as conn:
            owner = await _owner(conn, thread_id)
            if owner is None:
                return []
            _check_owner(thread_id, resource_id, owner)
            where, args = await _before_clause(conn, thread_id, before)
            if last is None:
                sql = f"SELECT id, body::text FROM messages WHERE {where} ORDER BY created_at, seq"
                rows = await conn.fetch(sql, *args)
            else:
                sql = (
                    f"SELECT id, body::text FROM messages WHERE {where}"
                    f" ORDER BY created_at DESC, seq DESC LIMIT ${len(args) + 1}"
                )
                rows = (await conn.fetch(sql, *args, last))[::-1]
        return sh.messages_from_rows(rows, thread_id, resource_id)

    @_database_errors
    async def list_messages_around(
        self,
        thread_id: str,
        message_ids: Sequence[str],
        *,
        resource_id: str,
        before: int = 0,
        after: int = 0,
    ) -> list[Message]:
        """Messages and their neighbours; see :meth:`Storage.list_messages_around`."""
        ids, before, after = sh.neighbour_window(thread_id, resource_id, message_ids, before, after)
        pool = await self._get_pool()
        async with pool.acquire() as conn:
            owner = await _owner(conn, thread_id)
            if owner is None:
                return []
            _check_owner(thread_id, resource_id, owner)
            rows = await conn.fetch(_AROUND, thread_id, ids, before, after)
        return sh.messages_from_rows(rows, thread_id, resource_id)

    @_database_errors
    async def get_messages_by_ids(
        self, message_ids: Sequence[str], *, resource_id: str
    ) -> list[Message]:
        """The resource's messages with these ids, oldest first."""
        rec.check_id(resource_id, "resource_id")
        ids = rec.check_ids(message_ids, "message id")
        pool = await self._get_pool()
        rows = await pool.fetch(
            "SELECT id, thread_id, body::text FROM messages"
            " WHERE resource_id = $1 AND id = ANY($2::text[]) ORDER BY created_at, seq",
            resource_id,
            ids,
        )
        return [
            rec.decode_message(r[2], message_id=r[0], thread_id=r[1], resource_id=resource_id)
            for r in rows
        ]

    @_database_errors
    async def delete_messages(self, message_ids: Sequence[str], *, resource_id: str) -> int:
        """Delete the resource's messages with these ids and their vectors."""
        rec.check_id(resource_id, "resource_id")
        ids = rec.check_ids(message_ids, "message id")
        pool = await self._get_pool()
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "DELETE FROM vectors WHERE resource_id = $1 AND message_id = ANY($2::text[])",
                resource_id,
                ids,
            )
            deleted = await conn.fetch(
                "DELETE FROM messages WHERE resource_id = $1 AND id = ANY($2::text[])"
                " RETURNING thread_id",
                resource_id,
                ids,
            )
            await conn.execute(
                "UPDATE threads SET updated_at = greatest(updated_at, $2)"
                " WHERE id = ANY($1::text[])",
                sorted({r[0] for r in deleted}),
                rec.now(),
            )
        return len(deleted)

    # -- working memory and resources ------------------------------------------------------

    @_database_errors
    async def get_working_memory(
        self, *, resource_id: str, thread_id: str | None = None
    ) -> str | None:
        """Working memory of a thread or of the resource."""
        sh.check_working_memory_ref(resource_id, thread_id)
        pool = await self._get_pool()
        if thread_id is None:
            value = await pool.fetchval(
                "SELECT working_memory FROM resources WHERE id = $1", resource_id
            )
            return None if value is None else str(value)
        row = await pool.fetchrow(
            "SELECT resource_id, working_memory FROM threads WHERE id = $1", thread_id
        )
        if row is None:
            return None
        _check_owner(thread_id, resource_id, row[0])
        return None if row[1] is None else str(row[1])

    @_database_errors
    async def set_working_memory(
        self, text: str | None, *, resource_id: str, thread_id: str | None = None
    ) -> None:
        """Replace the working memory of a thread (created if missing) or of the resource."""
        rec.check_id(resource_id, "resource_id")
        rec.check_working_memory(WorkingMemoryUpdate(text, thread_id))
        pool = await self._get_pool()
        async with pool.acquire() as conn, conn.transaction():
            await _write_working_memory(conn, text, resource_id, thread_id)

    @_database_errors
    async def get_resource(self, resource_id: str) -> Resource | None:
        """The resource record, or ``None``."""
        rec.check_id(resource_id, "resource_id")
        pool = await self._get_pool()
        row = await pool.fetchrow(
            "SELECT working_memory, metadata::text FROM resources WHERE id = $1", resource_id
        )
        return None if row is None else sh.resource_from_row(resource_id, row[0], row[1])

    @_database_errors
    async def update_resource(self, resource_id: str, *, metadata: dict[str, Any]) -> Resource:
        """Merge metadata into the resource's, creating the record if needed."""
        rec.check_id(resource_id, "resource_id")
        patch = rec.encode_metadata(metadata, f"resource[{resource_id!r}].metadata")
        pool = await self._get_pool()
        row = await pool.fetchrow(
            "INSERT INTO resources (id, metadata, updated_at) VALUES ($1, $2::jsonb, $3)"
            " ON CONFLICT (id) DO UPDATE SET metadata = resources.metadata || excluded.metadata,"
            " updated_at = excluded.updated_at RETURNING working_memory, metadata::text",
            resource_id,
            patch,
            rec.now(),
        )
        assert row is not None  # an upsert with RETURNING always returns its row
        return sh.resource_from_row(resource_id, row[0], row[1])

    # -- vectors ---------------------------------------------------------------------------

    @_database_errors
    async def upsert_vectors(self, items: Sequence[VectorItem]) -> None:
        """Store message embeddings as float32 ``bytea``."""
        rows = rec.vector_rows(items)
        if not rows:
            return
        pool = await self._get_pool()
        async with pool.acquire() as conn, conn.transaction():
            await _write_vectors(conn, rows)

    @_database_errors
    async def query_vectors(
        self,
        vector: Sequence[float],
        *,
        resource_id: str,
        thread_id: str | None = None,
        top_k: int = 4,
        threshold: float | None = None,
    ) -> list[VectorHit]:
        """The most cosine-similar stored embeddings, best first (ranked in the app)."""
        top_k, threshold = sh.vector_query(vector, resource_id, thread_id, top_k, threshold)
        pool = await self._get_pool()
        rows = await pool.fetch(
            "SELECT message_id, thread_id, vector FROM vectors"
            " WHERE resource_id = $1 AND ($2::text IS NULL OR thread_id = $2)",
            resource_id,
            thread_id,
        )
        return rank(
            vector, [(r[0], r[1], bytes(r[2])) for r in rows], top_k=top_k, threshold=threshold
        )

    # -- the usage ledger ------------------------------------------------------------------

    async def record_usage(self, record: UsageRecord) -> None:
        """Write a run's usage row, replacing one of the same run id."""
        ledger.check_usage_record(record)
        pool = await self._get_pool()
        await pool.execute(sh.UPSERT_USAGE, *sh.usage_values(record, rec.as_utc))

    async def usage_totals(
        self,
        *,
        resource_id: str | None = None,
        thread_id: str | None = None,
        run_id: str | None = None,
        agent_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        currency: str = "USD",
    ) -> UsageTotals:
        """Usage summed over the matching rows; see :meth:`Storage.usage_totals`."""
        where, args = sh.usage_where(
            2, sh.usage_filters(resource_id, thread_id, run_id, agent_id, since, until), _same
        )
        pool = await self._get_pool()
        row = await pool.fetchrow(
            "SELECT count(*), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0),"
            " coalesce(sum(total_tokens), 0), coalesce(sum(reasoning_tokens), 0),"
            " coalesce(sum(cached_input_tokens), 0),"
            " coalesce(sum(cost) FILTER (WHERE currency = $1), 0), count(*) - count(cost)"
            f" FROM usage_ledger{where}",
            currency,
            *args,
        )
        assert row is not None  # an aggregate always returns one row
        return ledger.totals_from_row(tuple(row), currency)

    async def list_usage(
        self,
        *,
        resource_id: str | None = None,
        thread_id: str | None = None,
        run_id: str | None = None,
        agent_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> list[UsageRecord]:
        """The matching rows, newest first; see :meth:`Storage.list_usage`."""
        limit = ledger.check_limit(limit)
        where, args = sh.usage_where(
            1, sh.usage_filters(resource_id, thread_id, run_id, agent_id, since, until), _same
        )
        pool = await self._get_pool()
        rows = await pool.fetch(
            f"SELECT {sh.USAGE_COLUMNS} FROM usage_ledger{where}"
            f" ORDER BY created_at DESC, run_id LIMIT ${len(args) + 1}",
            *args,
            limit,
        )
        return [sh.usage_from_row(row, _same) for row in rows]


# -- helpers --------------------------------------------------------------------------------


async def _migrate(conn: Conn, schema: str) -> None:
    """Apply missing migrations, one process at a time (advisory lock per schema)."""
    await postgres_migrate(conn, schema, MIGRATIONS)


async def _owner(conn: Conn, thread_id: str, *, lock: bool = False) -> str | None:
    sql = "SELECT resource_id FROM threads WHERE id = $1" + (" FOR UPDATE" if lock else "")
    value = await conn.fetchval(sql, thread_id)
    return None if value is None else str(value)


def _check_owner(thread_id: str, resource_id: str, owner: object) -> None:
    if owner != resource_id:
        raise ThreadOwnershipError(thread_id, resource_id, str(owner))


async def _refuse_foreign_messages(
    conn: Conn, ids: list[str], thread_id: str, resource_id: str
) -> None:
    """Refuse ids stored for another resource, then ids stored in another thread (D34)."""
    row = await conn.fetchrow(
        "SELECT id, thread_id, resource_id FROM messages WHERE id = ANY($1::text[])"
        " AND (resource_id <> $3 OR thread_id <> $2) ORDER BY resource_id = $3 LIMIT 1",
        ids,
        thread_id,
        resource_id,
    )
    if row is None:
        return
    if row[2] != resource_id:
        raise ThreadOwnershipError(row[0], resource_id, row[2], kind="message")
    raise MessageThreadError(row[0], thread_id, row[1])


async def _refuse_foreign_vectors(conn: Conn, rows: list[tuple[str, str, str, bytes]]) -> None:
    for _mid, tid, rid, _ in rows:
        owner = await _owner(conn, tid)
        if owner is not None and owner != rid:
            raise ThreadOwnershipError(tid, rid, owner)
    row = await conn.fetchrow(
        "SELECT v.message_id, v.resource_id, n.rid FROM vectors v"
        " JOIN unnest($1::text[], $2::text[]) AS n (mid, rid) ON v.message_id = n.mid"
        " WHERE v.resource_id <> n.rid LIMIT 1",
        [r[0] for r in rows],
        [r[2] for r in rows],
    )
    if row is not None:
        raise ThreadOwnershipError(row[0], row[2], row[1], kind="message")


async def _before_clause(
    conn: Conn, thread_id: str, before: datetime | str | None
) -> tuple[str, tuple[Any, ...]]:
    if before is None:
        return "thread_id = $1", (thread_id,)
    if isinstance(before, datetime):
        return "thread_id = $1 AND created_at < $2", (thread_id, rec.as_utc(before))
    row = await conn.fetchrow(sh.CURSOR, before, thread_id)
    if row is None:
        raise StorageError(f"cursor message {before!r} is not in thread {thread_id!r}")
    return "thread_id = $1 AND (created_at, seq) < ($2, $3)", (thread_id, row[0], row[1])


def _thread(row: Any) -> Thread:
    return sh.thread_from_row(row, _same)


async def _write_working_memory(
    conn: Any, text: str | None, resource_id: str, thread_id: str | None
) -> None:
    if thread_id is None:
        await conn.execute(sh.UPSERT_RESOURCE_WORKING_MEMORY, resource_id, text, rec.now())
        return
    rec.check_id(thread_id, "thread_id")
    owner = await conn.fetchval(_LOCK_THREAD, thread_id, resource_id, rec.now())
    _check_owner(thread_id, resource_id, owner)
    await conn.execute("UPDATE threads SET working_memory = $2 WHERE id = $1", thread_id, text)


# Each anchor with up to $3 earlier and $4 later messages of the thread, in thread order.
_AROUND = """
WITH anchors AS (
    SELECT created_at, seq FROM messages WHERE thread_id = $1 AND id = ANY($2::text[])
), picked AS (
    SELECT a.id FROM anchors x CROSS JOIN LATERAL (
        (SELECT id, created_at, seq FROM messages
          WHERE thread_id = $1 AND (created_at, seq) < (x.created_at, x.seq)
          ORDER BY created_at DESC, seq DESC LIMIT $3)
        UNION ALL
        (SELECT id, created_at, seq FROM messages
          WHERE thread_id = $1 AND (created_at, seq) >= (x.created_at, x.seq)
          ORDER BY created_at, seq LIMIT $4 + 1)
    ) a
)
SELECT id, body::text FROM messages
 WHERE thread_id = $1 AND id IN (SELECT id FROM picked)
 ORDER BY created_at, seq
"""


async def _write_vectors(conn: Any, rows: list[rec.VectorRow]) -> None:
    if not rows:
        return
    await _refuse_foreign_vectors(conn, rows)
    await conn.executemany(sh.UPSERT_VECTORS, rows)


# -- the usage ledger -----------------------------------------------------------------------


def _same(value: Any) -> Any:
    """PostgreSQL stores times as ``timestamptz``: asyncpg passes datetimes both ways."""
    return value
