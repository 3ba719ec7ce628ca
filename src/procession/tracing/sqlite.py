"""``SQLiteTraceStore``: the trace store in a SQLite file, on one worker thread.

Every statement runs on the store's own worker thread, as in
:class:`~procession.memory.sqlite.SQLiteStorage`: the span processor's thread hands a batch
over and waits for it to be written in one transaction; the async read API hops to the same
thread once per query, so the event loop never waits on SQLite. The file may be the one memory
uses (WAL mode, ``BEGIN IMMEDIATE`` and a busy timeout keep the writers apart); the ``spans``
table is versioned in its own ``trace_migrations`` table, apart from memory's migrations.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from procession._checks import wrong
from procession._sql import sqlite_migrate, sqlite_open, sqlite_transaction
from procession.errors import StorageError
from procession.tracing import _rows
from procession.tracing.store import TraceStore

__all__ = ["MIGRATIONS", "SQLiteTraceStore"]

T = TypeVar("T")

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        """
        CREATE TABLE spans (
            trace_id TEXT NOT NULL,
            span_id TEXT NOT NULL,
            parent_span_id TEXT,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            start_ns INTEGER NOT NULL,
            end_ns INTEGER NOT NULL,
            status TEXT NOT NULL,
            status_message TEXT,
            attributes TEXT NOT NULL,
            events TEXT NOT NULL,
            scope TEXT,
            service TEXT,
            run_id TEXT,
            agent_id TEXT,
            agent_name TEXT,
            resource_id TEXT,
            thread_id TEXT,
            outcome TEXT,
            internal INTEGER,
            parent_run_id TEXT,
            PRIMARY KEY (trace_id, span_id)
        );
        """
        + _rows.RUN_INDEXES,
    ),
)
"""``(version, script)`` pairs, applied in order; never edit one that has shipped."""

_INSERT = (
    f"INSERT INTO spans ({', '.join(_rows.COLUMNS)})"
    f" VALUES ({', '.join('?' for _ in _rows.COLUMNS)})"
    " ON CONFLICT (trace_id, span_id) DO NOTHING"
)


class SQLiteTraceStore(TraceStore):
    """Spans in a SQLite file; see the module docstring.

    Args:
        path: The database file (created if missing), or ``":memory:"`` for a private
            in-memory database (tests).
        busy_timeout: Seconds a writer waits for another connection's write to finish.

    Raises:
        ConfigurationError: ``path`` is not a non-empty path, or ``busy_timeout`` is not a
            number >= 0.
    """

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 30.0) -> None:
        super().__init__()
        name = os.fspath(path) if isinstance(path, str | os.PathLike) else None
        if not isinstance(name, str) or not name:
            raise wrong("SQLiteTraceStore path", path, "a file path or ':memory:'")
        if isinstance(busy_timeout, bool) or not isinstance(busy_timeout, int | float):
            raise wrong("SQLiteTraceStore busy_timeout", busy_timeout, "a number >= 0")
        if not 0 <= busy_timeout < float("inf"):
            raise wrong("SQLiteTraceStore busy_timeout", busy_timeout, "a number >= 0")
        self.path = name
        self._busy_ms = int(busy_timeout * 1000)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="procession-traces")
        self._conn: sqlite3.Connection | None = None

    def __repr__(self) -> str:
        return f"SQLiteTraceStore({self.path!r})"

    # -- the worker thread -----------------------------------------------------------------

    def _submit(self, work: Callable[[sqlite3.Connection], T]) -> Future[T]:
        if self._shut:
            raise self._closed_error()
        try:
            return self._executor.submit(self._on_worker, work)
        except RuntimeError:
            # The interpreter is exiting: its exit hook stopped every worker thread before the
            # tracer provider's own exit hook flushes the last spans. Write them here.
            return _inline(self._on_worker, work)

    def _on_worker(self, work: Callable[[sqlite3.Connection], T]) -> T:
        conn = self._conn if self._conn is not None else self._open()
        try:
            return work(conn)
        except sqlite3.Error as error:
            raise StorageError(f"{self!r}: {error}") from error

    def _open(self) -> sqlite3.Connection:
        conn = sqlite_open(self.path, self._busy_ms, _migrate, owner=repr(self))
        self._conn = conn
        return conn

    # -- what the base class needs ---------------------------------------------------------

    def _insert(self, rows: list[_rows.Row]) -> None:
        def work(conn: sqlite3.Connection) -> None:
            sqlite_transaction(conn, lambda c: c.executemany(_INSERT, rows))

        # waits for the write: the span processor counts the batch as exported when we return
        self._submit(work).result()

    async def _fetch(self, sql: str, params: list[Any]) -> list[Sequence[Any]]:
        future = self._submit(lambda conn: conn.execute(sql, params).fetchall())
        rows: list[Sequence[Any]] = await asyncio.wrap_future(future)
        return rows

    async def _execute(self, sql: str, params: list[Any]) -> int:
        future = self._submit(
            lambda conn: sqlite_transaction(conn, lambda c: c.execute(sql, params))
        )
        cursor: sqlite3.Cursor = await asyncio.wrap_future(future)
        return cursor.rowcount

    def _close(self) -> None:
        try:
            self._executor.submit(self._close_on_worker).result()
        except RuntimeError:  # the interpreter is exiting (see _submit)
            self._close_on_worker()
        self._executor.shutdown(wait=True)

    def _close_on_worker(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _inline(call: Callable[[Callable[[sqlite3.Connection], T]], T], work: Any) -> Future[T]:
    """``call(work)`` run on this thread, as a finished future."""
    future: Future[T] = Future()
    try:
        future.set_result(call(work))
    except BaseException as error:
        future.set_exception(error)
    return future


def _migrate(conn: sqlite3.Connection) -> None:
    sqlite_migrate(conn, MIGRATIONS, table="trace_migrations")
