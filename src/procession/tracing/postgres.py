"""``PostgresTraceStore``: the trace store in PostgreSQL, so server replicas share traces.

asyncpg (as :class:`~procession.memory.postgres.PostgresStorage` uses) runs on an event loop of
the store's own, on one daemon thread: the span processor's thread hands each batch to it and
waits for the one ``INSERT`` that writes it, and the async read API may be awaited from any
event loop (the pool is never shared across loops). The ``spans`` table lives in the given
schema (``public`` unless told otherwise), beside memory's tables when the schema is the same;
it is versioned in its own ``trace_migrations`` table and migrated under a transaction-scoped
advisory lock, so many processes may start at once.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

import asyncpg

from procession._checks import wrong
from procession._sql import postgres_migrate
from procession.errors import StorageError
from procession.tracing import _rows
from procession.tracing.store import TraceStore

__all__ = ["MIGRATIONS", "PostgresTraceStore"]

T = TypeVar("T")

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        """
        CREATE TABLE spans (
            trace_id text NOT NULL,
            span_id text NOT NULL,
            parent_span_id text,
            name text NOT NULL,
            kind text NOT NULL,
            start_ns bigint NOT NULL,
            end_ns bigint NOT NULL,
            status text NOT NULL,
            status_message text,
            attributes jsonb NOT NULL,
            events jsonb NOT NULL,
            scope text,
            service text,
            run_id text,
            agent_id text,
            agent_name text,
            resource_id text,
            thread_id text,
            outcome text,
            internal boolean,
            parent_run_id text,
            PRIMARY KEY (trace_id, span_id)
        );
        """
        + _rows.RUN_INDEXES,
    ),
)
"""``(version, script)`` pairs, applied in order; never edit one that has shipped."""

_JSON_COLUMNS = ("attributes", "events")
_INSERT = (
    f"INSERT INTO spans ({', '.join(_rows.COLUMNS)}) VALUES ("
    + ", ".join(
        f"${n}::jsonb" if column in _JSON_COLUMNS else f"${n}"
        for n, column in enumerate(_rows.COLUMNS, 1)
    )
    + ") ON CONFLICT (trace_id, span_id) DO NOTHING"
)
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_PLACEHOLDER = re.compile(r"\?")


def _numbered(sql: str) -> str:
    """``?`` placeholders as asyncpg's ``$1``, ``$2``, ..."""
    count = iter(range(1, 1 << 16))
    return _PLACEHOLDER.sub(lambda _: f"${next(count)}", sql)


class PostgresTraceStore(TraceStore):
    """Spans in PostgreSQL; see the module docstring.

    Args:
        dsn: A libpq connection string or URL (the one memory's ``PostgresStorage`` uses).
        schema: The PostgreSQL schema holding the ``spans`` table (created if missing).
        max_size: Most connections the store's pool opens.
        timeout: Seconds an export may wait for the database before the batch is dropped.

    Raises:
        ConfigurationError: an argument of the wrong type or out of range, or a schema name
            that is not a lower-case SQL identifier.
    """

    def __init__(
        self, dsn: str, *, schema: str = "public", max_size: int = 4, timeout: float = 10.0
    ) -> None:
        super().__init__()
        if not isinstance(dsn, str) or not dsn:
            raise wrong("PostgresTraceStore dsn", dsn, "a non-empty connection string")
        if not isinstance(schema, str) or not _SCHEMA_NAME.match(schema):
            raise wrong("PostgresTraceStore schema", schema, "a lower-case SQL identifier")
        if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
            raise wrong("PostgresTraceStore max_size", max_size, "an int >= 1")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
            raise wrong("PostgresTraceStore timeout", timeout, "a number > 0")
        self.dsn = dsn
        self.schema = schema
        self._max_size = max_size
        self._timeout = float(timeout)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pool: asyncpg.Pool | None = None
        self._starting = threading.Lock()

    def __repr__(self) -> str:
        return f"PostgresTraceStore(schema={self.schema!r})"

    # -- the store's own event loop --------------------------------------------------------

    def _submit(self, work: Coroutine[Any, Any, T]) -> Future[T]:
        with self._starting:
            if self._shut:
                work.close()
                raise self._closed_error()
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._loop.run_forever, name="procession-traces-pg", daemon=True
                )
                self._thread.start()
            return asyncio.run_coroutine_threadsafe(work, self._loop)

    async def _get_pool(self) -> asyncpg.Pool:
        if self._pool is None:
            try:
                pool = await asyncpg.create_pool(
                    self.dsn,
                    min_size=0,
                    max_size=self._max_size,
                    server_settings={
                        "search_path": self.schema,
                        "application_name": "procession-traces",
                    },
                )
            except (OSError, asyncpg.PostgresError) as error:
                raise StorageError(f"{self!r}: cannot connect: {error}") from error
            try:
                async with pool.acquire() as conn:
                    await postgres_migrate(conn, self.schema, MIGRATIONS, table="trace_migrations")
            except BaseException:
                await pool.close()
                raise
            self._pool = pool
        return self._pool

    async def _guarded(self, work: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """``work()``, with the driver's errors as :class:`StorageError`."""
        try:
            return await work()
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as error:
            raise StorageError(f"{self!r}: {type(error).__name__}: {error}") from error

    # -- what the base class needs ---------------------------------------------------------

    def _insert(self, rows: list[_rows.Row]) -> None:
        async def work() -> None:
            pool = await self._get_pool()
            async with pool.acquire() as conn:
                await conn.executemany(_INSERT, rows)

        self._submit(self._guarded(work)).result(self._timeout)

    async def _fetch(self, sql: str, params: list[Any]) -> list[Sequence[Any]]:
        async def work() -> list[Sequence[Any]]:
            pool = await self._get_pool()
            async with pool.acquire() as conn:
                return [tuple(row) for row in await conn.fetch(_numbered(sql), *params)]

        return await asyncio.wrap_future(self._submit(self._guarded(work)))

    async def _execute(self, sql: str, params: list[Any]) -> int:
        async def work() -> int:
            pool = await self._get_pool()
            async with pool.acquire() as conn:
                status: str = await conn.execute(_numbered(sql), *params)
            return int(status.rsplit(" ", 1)[-1])

        return await asyncio.wrap_future(self._submit(self._guarded(work)))

    def _json(self, column: str) -> str:
        return f"{column}::text"

    def _close(self) -> None:
        with self._starting:
            loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if self._pool is not None:
            asyncio.run_coroutine_threadsafe(self._pool.close(), loop).result(self._timeout)
            self._pool = None
        loop.call_soon_threadsafe(loop.stop)
        thread.join(self._timeout)
        loop.close()
