"""``SQLiteStorage``: the embedded default storage, one file (or ``":memory:"``).

All database work runs on one dedicated worker thread per storage: each call is one *unit of
work* (a function running a batch of statements, in one transaction when it writes) handed to
that thread in a single hop, so the event loop never waits on SQLite. This is about ten times
faster than a thread hop per statement. The file is opened in WAL mode, so readers in other
processes are not blocked by a writer; writers take the lock up front (``BEGIN IMMEDIATE``) and
wait up to ``busy_timeout`` seconds for each other. The schema is versioned in a
``schema_migrations`` table and migrated on first use.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, TypeVar

from procession._sql import sqlite_migrate, sqlite_open, sqlite_transaction
from procession.errors import (
    ConfigurationError,
    MessageThreadError,
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
from procession.memory.thread_locks import DEFAULT_LOCK_TIMEOUT, ThreadLocks
from procession.memory.vectors import rank
from procession.messages.message import Message

__all__ = ["MIGRATIONS", "SQLiteStorage"]

T = TypeVar("T")

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        """
        CREATE TABLE threads (
            id TEXT PRIMARY KEY,
            resource_id TEXT NOT NULL,
            title TEXT,
            metadata TEXT NOT NULL DEFAULT '{}',
            working_memory TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX threads_by_resource ON threads (resource_id, updated_at);
        CREATE TABLE messages (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            thread_id TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
            resource_id TEXT NOT NULL,
            role TEXT NOT NULL,
            type TEXT,
            created_at INTEGER NOT NULL,
            body TEXT NOT NULL
        );
        CREATE INDEX messages_by_thread ON messages (thread_id, created_at, seq);
        CREATE INDEX messages_by_resource ON messages (resource_id);
        CREATE TABLE resources (
            id TEXT PRIMARY KEY,
            working_memory TEXT,
            metadata TEXT NOT NULL DEFAULT '{}',
            updated_at INTEGER NOT NULL
        );
        CREATE TABLE vectors (
            message_id TEXT PRIMARY KEY,
            thread_id TEXT NOT NULL,
            resource_id TEXT NOT NULL,
            vector BLOB NOT NULL
        );
        CREATE INDEX vectors_by_resource ON vectors (resource_id, thread_id);
        """,
    ),
    (
        2,
        """
        CREATE TABLE usage_ledger (
            run_id TEXT PRIMARY KEY,
            agent_id TEXT NOT NULL,
            model TEXT NOT NULL,
            input_tokens INTEGER NOT NULL,
            output_tokens INTEGER NOT NULL,
            total_tokens INTEGER NOT NULL,
            reasoning_tokens INTEGER NOT NULL,
            cached_input_tokens INTEGER NOT NULL,
            cost REAL,
            currency TEXT NOT NULL,
            resource_id TEXT,
            thread_id TEXT,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX usage_by_resource ON usage_ledger (resource_id, created_at);
        CREATE INDEX usage_by_thread ON usage_ledger (thread_id, created_at);
        """,
    ),
    (
        3,
        """
        CREATE TABLE committed_turns (
            key TEXT PRIMARY KEY,
            thread_id TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX committed_turns_by_thread ON committed_turns (thread_id);
        """,
    ),
    (
        4,
        """
        CREATE TABLE thread_fences (
            thread_id TEXT PRIMARY KEY,
            token INTEGER NOT NULL
        );
        """,
    ),
)
"""``(version, script)`` pairs, applied in order; never edit one that has shipped."""

_THREAD_COLUMNS = "id, resource_id, title, metadata, created_at, updated_at"

_BUMP_FENCE = sh.for_sqlite(sh.BUMP_FENCE)

_READ_FENCE = "SELECT token FROM thread_fences WHERE thread_id = ?"

_UPSERT_MESSAGE = """
INSERT INTO messages (id, thread_id, resource_id, role, type, created_at, body)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET
    role = excluded.role, type = excluded.type, created_at = excluded.created_at,
    body = excluded.body
WHERE messages.resource_id = excluded.resource_id AND messages.thread_id = excluded.thread_id
"""


class SQLiteStorage:
    """Storage in one SQLite file; see the module docstring.

    Args:
        path: The database file (created if missing), or ``":memory:"`` for a private
            in-memory database (tests).
        busy_timeout: Seconds a writer waits for another process's write to finish.

    Raises:
        ConfigurationError: ``path`` is not a non-empty path, or ``busy_timeout`` is not a
            number >= 0.
    """

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 30.0) -> None:
        name = os.fspath(path) if isinstance(path, str | os.PathLike) else None
        if not isinstance(name, str) or not name:
            raise ConfigurationError(
                f"SQLiteStorage: path must be a file path or ':memory:' (got {path!r})"
            )
        self.path = name
        self._busy_ms = int(opt.number("SQLiteStorage", "busy_timeout", busy_timeout, 0) * 1000)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="procession-sqlite")
        self._conn: sqlite3.Connection | None = None
        self._closed = False
        self._locks = ThreadLocks(fences=self._bump_fence, owner=self)

    def __repr__(self) -> str:
        return f"SQLiteStorage({self.path!r})"

    # -- the worker thread -----------------------------------------------------------------

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` on the worker thread: one hop, however many statements."""
        if self._closed:
            raise StorageError(f"{self!r} is closed")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._on_worker, work)

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` on the worker thread inside one write transaction."""
        return await self._run(lambda conn: sqlite_transaction(conn, work))

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

    def thread_lock(
        self, thread_id: str, *, timeout: float = DEFAULT_LOCK_TIMEOUT
    ) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold ``thread_id`` for a turn in this process (a SQLite file serves one machine):
        a turn waiting longer than ``timeout`` seconds raises ``ThreadBusyError``
        (:mod:`procession.memory.thread_locks`)."""
        return self._locks.hold(thread_id, timeout=timeout)

    async def _bump_fence(self, thread_id: str) -> int:
        """A new fencing token for ``thread_id`` (:mod:`procession.memory.fence`)."""

        def work(conn: sqlite3.Connection) -> int:
            token: int = conn.execute(_BUMP_FENCE, (thread_id,)).fetchone()[0]
            return token

        return await self._write(work)

    async def close(self) -> None:
        """Close the connection and stop the worker thread."""
        if self._closed:
            return
        self._closed = True
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._close_on_worker)
        self._executor.shutdown(wait=True)

    def _close_on_worker(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- threads ---------------------------------------------------------------------------

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
        stamp = rec.to_micros(rec.now())

        def work(conn: sqlite3.Connection) -> Thread:
            owner = _owner(conn, tid)
            if owner is not None:
                if owner != resource_id:
                    raise ThreadOwnershipError(tid, resource_id, owner)
                raise StorageError(f"thread {tid!r} already exists")
            conn.execute(
                "INSERT INTO threads (id, resource_id, title, metadata, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (tid, resource_id, title, meta, stamp, stamp),
            )
            return _load_thread(conn, tid)

        return await self._write(work)

    async def get_thread(self, thread_id: str, *, resource_id: str) -> Thread | None:
        """The thread, or ``None``; see :meth:`Storage.get_thread`."""
        sh.check_thread_ref(thread_id, resource_id)

        def work(conn: sqlite3.Connection) -> Thread | None:
            if _checked_owner(conn, thread_id, resource_id) is None:
                return None
            return _load_thread(conn, thread_id)

        return await self._run(work)

    async def update_thread(
        self,
        thread_id: str,
        *,
        resource_id: str,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Thread:
        """Set the title and merge metadata; see :meth:`Storage.update_thread`."""
        sh.thread_patch(thread_id, resource_id, title, metadata)  # checked before the work
        stamp = rec.to_micros(rec.now())

        def work(conn: sqlite3.Connection) -> Thread:
            if _checked_owner(conn, thread_id, resource_id) is None:
                raise StorageError(f"thread {thread_id!r} does not exist")
            current = _load_thread(conn, thread_id)
            merged = {**current.metadata, **(metadata or {})}
            conn.execute(
                "UPDATE threads SET title = ?, metadata = ?, updated_at = max(updated_at, ?)"
                " WHERE id = ?",
                (
                    current.title if title is None else title,
                    rec.encode_metadata(merged, "metadata", thread_id=thread_id),
                    stamp,
                    thread_id,
                ),
            )
            return _load_thread(conn, thread_id)

        return await self._write(work)

    async def list_threads(
        self, resource_id: str, *, limit: int | None = None, offset: int = 0
    ) -> list[Thread]:
        """The resource's threads, most recently updated first."""
        rec.check_id(resource_id, "resource_id")
        limit, offset = rec.check_page(limit, offset)

        def work(conn: sqlite3.Connection) -> list[Thread]:
            rows = conn.execute(
                f"SELECT {_THREAD_COLUMNS} FROM threads WHERE resource_id = ?"
                " ORDER BY updated_at DESC, id LIMIT ? OFFSET ?",
                (resource_id, -1 if limit is None else limit, offset),
            ).fetchall()
            return [sh.thread_from_row(row, rec.from_micros) for row in rows]

        return await self._run(work)

    async def delete_thread(self, thread_id: str, *, resource_id: str) -> bool:
        """Delete a thread, its messages and vectors; ``False`` if it did not exist."""
        sh.check_thread_ref(thread_id, resource_id)

        def work(conn: sqlite3.Connection) -> bool:
            if _checked_owner(conn, thread_id, resource_id) is None:
                return False
            conn.execute("DELETE FROM vectors WHERE thread_id = ?", (thread_id,))
            conn.execute("DELETE FROM messages WHERE thread_id = ?", (thread_id,))
            conn.execute("DELETE FROM threads WHERE id = ?", (thread_id,))
            return True

        return await self._write(work)

    # -- messages --------------------------------------------------------------------------

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
        rows = [
            (mid, thread_id, resource_id, role, kind, rec.to_micros(created), body)
            for mid, role, kind, created, body in turn.messages
        ]
        update = turn.working_memory
        stamp = rec.to_micros(rec.now())
        key = current_commit_key()
        fence = current_fence(self, thread_id)

        def work(conn: sqlite3.Connection) -> None:
            if fence is not None:  # in the write transaction: no other writer until commit
                row = conn.execute(_READ_FENCE, (thread_id,)).fetchone()
                check_fence(fence, None if row is None else row[0])
            _ensure_thread(conn, thread_id, resource_id, stamp)
            if key is not None and not _record_commit(conn, key, thread_id, stamp):
                return  # this turn was stored already (commit_once)
            _refuse_foreign_messages(conn, turn.ids, thread_id, resource_id)
            conn.executemany(_UPSERT_MESSAGE, rows)
            if update is not None:
                _write_working_memory(conn, update.text, resource_id, update.thread_id, stamp)
            _write_vectors(conn, turn.vectors)

        await self._write(work)

    async def check_message_ids(
        self, thread_id: str, message_ids: Sequence[str], *, resource_id: str
    ) -> None:
        """Refuse ids stored elsewhere; see :meth:`Storage.check_message_ids`."""
        sh.check_thread_ref(thread_id, resource_id)
        ids = rec.check_ids(message_ids, "message id")

        def work(conn: sqlite3.Connection) -> None:
            _checked_owner(conn, thread_id, resource_id)
            _refuse_foreign_messages(conn, ids, thread_id, resource_id)

        await self._run(work)

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

        def work(conn: sqlite3.Connection) -> list[tuple[str, str]]:
            if _checked_owner(conn, thread_id, resource_id) is None:
                return []
            where, args = _before_clause(conn, thread_id, before)
            if last is None:
                sql = f"SELECT id, body FROM messages WHERE {where} ORDER BY created_at, seq"
                return conn.execute(sql, args).fetchall()
            sql = (
                f"SELECT id, body FROM messages WHERE {where}"
                " ORDER BY created_at DESC, seq DESC LIMIT ?"
            )
            return conn.execute(sql, (*args, last)).fetchall()[::-1]

        rows = await self._run(work)
        return sh.messages_from_rows(rows, thread_id, resource_id)

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

        def work(conn: sqlite3.Connection) -> list[tuple[str, str]]:
            if _checked_owner(conn, thread_id, resource_id) is None:
                return []
            found: dict[str, tuple[int, int, str]] = {}
            for message_id in ids:
                anchor = conn.execute(
                    "SELECT created_at, seq, body FROM messages WHERE thread_id = ? AND id = ?",
                    (thread_id, message_id),
                ).fetchone()
                if anchor is None:
                    continue
                found[message_id] = anchor
                at = (thread_id, anchor[0], anchor[1])
                for sql, limit in ((_EARLIER, before), (_LATER, after)):
                    if limit:
                        for row in conn.execute(sql, (*at, limit)).fetchall():
                            found[row[0]] = (row[1], row[2], row[3])
            ordered = sorted(found.items(), key=lambda item: (item[1][0], item[1][1]))
            return [(mid, body) for mid, (_, _, body) in ordered]

        rows = await self._run(work)
        return sh.messages_from_rows(rows, thread_id, resource_id)

    async def get_messages_by_ids(
        self, message_ids: Sequence[str], *, resource_id: str
    ) -> list[Message]:
        """The resource's messages with these ids, oldest first."""
        rec.check_id(resource_id, "resource_id")
        ids = rec.check_ids(message_ids, "message id")

        def work(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
            rows: list[tuple[str, str, str, int, int]] = []
            for chunk in _chunks(ids):
                marks = ",".join("?" * len(chunk))
                rows += conn.execute(
                    f"SELECT id, thread_id, body, created_at, seq FROM messages"
                    f" WHERE resource_id = ? AND id IN ({marks})",
                    (resource_id, *chunk),
                ).fetchall()
            rows.sort(key=lambda r: (r[3], r[4]))
            return [(r[0], r[1], r[2]) for r in rows]

        rows = await self._run(work)
        return [
            rec.decode_message(body, message_id=mid, thread_id=tid, resource_id=resource_id)
            for mid, tid, body in rows
        ]

    async def delete_messages(self, message_ids: Sequence[str], *, resource_id: str) -> int:
        """Delete the resource's messages with these ids and their vectors."""
        rec.check_id(resource_id, "resource_id")
        ids = rec.check_ids(message_ids, "message id")
        stamp = rec.to_micros(rec.now())

        def work(conn: sqlite3.Connection) -> int:
            deleted = 0
            for chunk in _chunks(ids):
                marks = ",".join("?" * len(chunk))
                args = (resource_id, *chunk)
                conn.execute(
                    "UPDATE threads SET updated_at = max(updated_at, ?) WHERE id IN"
                    f" (SELECT thread_id FROM messages WHERE resource_id = ? AND id IN ({marks}))",
                    (stamp, *args),
                )
                conn.execute(
                    f"DELETE FROM vectors WHERE resource_id = ? AND message_id IN ({marks})", args
                )
                cursor = conn.execute(
                    f"DELETE FROM messages WHERE resource_id = ? AND id IN ({marks})", args
                )
                deleted += cursor.rowcount
            return deleted

        return await self._write(work)

    # -- working memory and resources ------------------------------------------------------

    async def get_working_memory(
        self, *, resource_id: str, thread_id: str | None = None
    ) -> str | None:
        """Working memory of a thread or of the resource."""
        sh.check_working_memory_ref(resource_id, thread_id)

        def work(conn: sqlite3.Connection) -> str | None:
            if thread_id is not None:
                if _checked_owner(conn, thread_id, resource_id) is None:
                    return None
                sql, key = "SELECT working_memory FROM threads WHERE id = ?", thread_id
            else:
                sql, key = "SELECT working_memory FROM resources WHERE id = ?", resource_id
            row = conn.execute(sql, (key,)).fetchone()
            return None if row is None else row[0]

        return await self._run(work)

    async def set_working_memory(
        self, text: str | None, *, resource_id: str, thread_id: str | None = None
    ) -> None:
        """Replace the working memory of a thread (created if missing) or of the resource."""
        rec.check_id(resource_id, "resource_id")
        rec.check_working_memory(WorkingMemoryUpdate(text, thread_id))
        stamp = rec.to_micros(rec.now())

        def work(conn: sqlite3.Connection) -> None:
            _write_working_memory(conn, text, resource_id, thread_id, stamp)

        await self._write(work)

    async def get_resource(self, resource_id: str) -> Resource | None:
        """The resource record, or ``None``."""
        rec.check_id(resource_id, "resource_id")

        def work(conn: sqlite3.Connection) -> tuple[str | None, str] | None:
            row: tuple[str | None, str] | None = conn.execute(
                "SELECT working_memory, metadata FROM resources WHERE id = ?", (resource_id,)
            ).fetchone()
            return row

        row = await self._run(work)
        return None if row is None else sh.resource_from_row(resource_id, row[0], row[1])

    async def update_resource(self, resource_id: str, *, metadata: dict[str, Any]) -> Resource:
        """Merge metadata into the resource's, creating the record if needed."""
        rec.check_id(resource_id, "resource_id")
        where = f"resource[{resource_id!r}].metadata"
        rec.encode_metadata(metadata, where)
        stamp = rec.to_micros(rec.now())

        def work(conn: sqlite3.Connection) -> tuple[str | None, str]:
            row = conn.execute(
                "SELECT working_memory, metadata FROM resources WHERE id = ?", (resource_id,)
            ).fetchone()
            current = sh.resource_from_row(
                resource_id, None, None if row is None else row[1]
            ).metadata
            merged = rec.encode_metadata({**current, **metadata}, where)
            conn.execute(
                "INSERT INTO resources (id, metadata, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET metadata = excluded.metadata,"
                " updated_at = excluded.updated_at",
                (resource_id, merged, stamp),
            )
            return (None if row is None else row[0], merged)

        row = await self._write(work)
        return sh.resource_from_row(resource_id, row[0], row[1])

    # -- vectors ---------------------------------------------------------------------------

    async def upsert_vectors(self, items: Sequence[VectorItem]) -> None:
        """Store message embeddings as float32 blobs."""
        rows = rec.vector_rows(items)

        def work(conn: sqlite3.Connection) -> None:
            _write_vectors(conn, rows)

        await self._write(work)

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

        def work(conn: sqlite3.Connection) -> list[tuple[str, str, bytes]]:
            sql = "SELECT message_id, thread_id, vector FROM vectors WHERE resource_id = ?"
            if thread_id is None:
                return conn.execute(sql, (resource_id,)).fetchall()
            return conn.execute(sql + " AND thread_id = ?", (resource_id, thread_id)).fetchall()

        rows = await self._run(work)
        return rank(vector, rows, top_k=top_k, threshold=threshold)

    # -- the usage ledger ------------------------------------------------------------------

    async def record_usage(self, record: UsageRecord) -> None:
        """Write a run's usage row, replacing one of the same run id."""
        row = sh.usage_values(ledger.check_usage_record(record), rec.to_micros)

        def work(conn: sqlite3.Connection) -> None:
            conn.execute(_UPSERT_USAGE, row)

        await self._write(work)

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
            2,
            sh.usage_filters(resource_id, thread_id, run_id, agent_id, since, until),
            rec.to_micros,
        )
        sql = (
            "SELECT count(*), total(input_tokens), total(output_tokens), total(total_tokens),"
            " total(reasoning_tokens), total(cached_input_tokens),"
            " total(CASE WHEN currency = ?1 THEN cost END), count(*) - count(cost)"
            f" FROM usage_ledger{sh.for_sqlite(where)}"
        )

        def work(conn: sqlite3.Connection) -> tuple[Any, ...]:
            row: tuple[Any, ...] = conn.execute(sql, (currency, *args)).fetchone()
            return row

        return ledger.totals_from_row(await self._run(work), currency)

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
            1,
            sh.usage_filters(resource_id, thread_id, run_id, agent_id, since, until),
            rec.to_micros,
        )
        sql = (
            f"SELECT {sh.USAGE_COLUMNS} FROM usage_ledger{sh.for_sqlite(where)}"
            f" ORDER BY created_at DESC, run_id LIMIT ?{len(args) + 1}"
        )

        def work(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
            return conn.execute(sql, (*args, -1 if limit is None else limit)).fetchall()

        return [sh.usage_from_row(row, rec.from_micros) for row in await self._run(work)]


# -- helpers that run on the worker thread --------------------------------------------------


def _migrate(conn: sqlite3.Connection) -> None:
    sqlite_migrate(conn, MIGRATIONS)


def _record_commit(conn: sqlite3.Connection, key: str, thread_id: str, stamp: int) -> bool:
    """Record a turn's commit key; ``False`` when it was recorded before."""
    cursor = conn.execute(
        "INSERT INTO committed_turns (key, thread_id, created_at) VALUES (?, ?, ?)"
        " ON CONFLICT (key) DO NOTHING",
        (key, thread_id, stamp),
    )
    return cursor.rowcount == 1


def _owner(conn: sqlite3.Connection, thread_id: str) -> str | None:
    row = conn.execute("SELECT resource_id FROM threads WHERE id = ?", (thread_id,)).fetchone()
    return None if row is None else str(row[0])


def _checked_owner(conn: sqlite3.Connection, thread_id: str, resource_id: str) -> str | None:
    """The thread's owner; ``None`` if there is no such thread; another resource raises."""
    owner = _owner(conn, thread_id)
    if owner is not None and owner != resource_id:
        raise ThreadOwnershipError(thread_id, resource_id, owner)
    return owner


def _ensure_thread(conn: sqlite3.Connection, thread_id: str, resource_id: str, stamp: int) -> None:
    """Create the thread if missing, check its owner and bump ``updated_at``."""
    if _checked_owner(conn, thread_id, resource_id) is None:
        conn.execute(
            "INSERT INTO threads (id, resource_id, metadata, created_at, updated_at)"
            " VALUES (?, ?, '{}', ?, ?)",
            (thread_id, resource_id, stamp, stamp),
        )
    else:
        conn.execute(
            "UPDATE threads SET updated_at = max(updated_at, ?) WHERE id = ?", (stamp, thread_id)
        )


def _refuse_foreign_messages(
    conn: sqlite3.Connection, ids: list[str], thread_id: str, resource_id: str
) -> None:
    """Refuse ids stored for another resource, then ids stored in another thread (D34)."""
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        row = conn.execute(
            f"SELECT id, thread_id, resource_id FROM messages WHERE id IN ({marks})"
            " AND (resource_id != ? OR thread_id != ?) ORDER BY resource_id = ? LIMIT 1",
            (*chunk, resource_id, thread_id, resource_id),
        ).fetchone()
        if row is not None:
            if row[2] != resource_id:
                raise ThreadOwnershipError(row[0], resource_id, row[2], kind="message")
            raise MessageThreadError(row[0], thread_id, row[1])


def _before_clause(
    conn: sqlite3.Connection, thread_id: str, before: datetime | str | None
) -> tuple[str, tuple[Any, ...]]:
    if before is None:
        return "thread_id = ?", (thread_id,)
    if isinstance(before, datetime):
        return "thread_id = ? AND created_at < ?", (thread_id, rec.to_micros(before))
    row = conn.execute(_CURSOR, (before, thread_id)).fetchone()
    if row is None:
        raise StorageError(f"cursor message {before!r} is not in thread {thread_id!r}")
    return "thread_id = ? AND (created_at, seq) < (?, ?)", (thread_id, row[0], row[1])


def _load_thread(conn: sqlite3.Connection, thread_id: str) -> Thread:
    row = conn.execute(
        f"SELECT {_THREAD_COLUMNS} FROM threads WHERE id = ?", (thread_id,)
    ).fetchone()
    return sh.thread_from_row(row, rec.from_micros)


def _chunks(ids: list[str], size: int = 500) -> list[list[str]]:
    return [ids[i : i + size] for i in range(0, len(ids), size)]


def _write_working_memory(
    conn: sqlite3.Connection,
    text: str | None,
    resource_id: str,
    thread_id: str | None,
    stamp: int,
) -> None:
    if thread_id is not None:
        _ensure_thread(conn, thread_id, resource_id, stamp)
        conn.execute("UPDATE threads SET working_memory = ? WHERE id = ?", (text, thread_id))
        return
    conn.execute(_UPSERT_RESOURCE_WORKING_MEMORY, (resource_id, text, stamp))


_EARLIER = (
    "SELECT id, created_at, seq, body FROM messages WHERE thread_id = ?"
    " AND (created_at, seq) < (?, ?) ORDER BY created_at DESC, seq DESC LIMIT ?"
)
_LATER = (
    "SELECT id, created_at, seq, body FROM messages WHERE thread_id = ?"
    " AND (created_at, seq) > (?, ?) ORDER BY created_at, seq LIMIT ?"
)


def _write_vectors(conn: sqlite3.Connection, rows: list[rec.VectorRow]) -> None:
    for mid, tid, rid, _ in rows:
        owner = _owner(conn, tid)
        if owner is not None and owner != rid:
            raise ThreadOwnershipError(tid, rid, owner)
        row = conn.execute(
            "SELECT resource_id FROM vectors WHERE message_id = ?", (mid,)
        ).fetchone()
        if row is not None and row[0] != rid:
            raise ThreadOwnershipError(mid, rid, row[0], kind="message")
    conn.executemany(_UPSERT_VECTORS, rows)


_UPSERT_USAGE = sh.for_sqlite(sh.UPSERT_USAGE)
_UPSERT_RESOURCE_WORKING_MEMORY = sh.for_sqlite(sh.UPSERT_RESOURCE_WORKING_MEMORY)
_UPSERT_VECTORS = sh.for_sqlite(sh.UPSERT_VECTORS)
_CURSOR = sh.for_sqlite(sh.CURSOR)
