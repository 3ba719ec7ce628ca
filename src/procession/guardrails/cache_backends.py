"""Where :class:`~procession.ResponseCache` keeps responses: in memory or in a SQLite file.

A backend stores JSON-shaped values under string keys with a time to live. Any object with
the :class:`CacheBackend` methods works (Redis, a shared database, ...); two ship:

- :class:`InMemoryCache`: a dict in this process, least recently used entries evicted past
  ``max_entries``;
- :class:`SQLiteCache`: one SQLite file, shared by processes on one machine, its work done on
  a worker thread so the event loop never waits on the disk.

Expired entries are never returned; they are deleted lazily (and by :meth:`purge`).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from procession.errors import StorageError
from procession.guardrails._common.options import check_int, check_number, option_error

if TYPE_CHECKING:
    import sqlite3

__all__ = ["CacheBackend", "InMemoryCache", "SQLiteCache"]

T = TypeVar("T")


@runtime_checkable
class CacheBackend(Protocol):
    """Async key-value storage with expiry."""

    async def get(self, key: str) -> Any | None:
        """The value stored under ``key``, or ``None`` when missing or expired."""
        ...

    async def set(self, key: str, value: Any, ttl: float | None) -> None:
        """Store ``value`` (JSON-shaped) under ``key`` for ``ttl`` seconds (``None``: no
        expiry)."""
        ...

    async def delete(self, key: str) -> None:
        """Forget ``key``."""
        ...


class InMemoryCache:
    """A process-local cache (least recently used entries go first past ``max_entries``).

    Values are stored as JSON text, so what comes back is a copy, never the object stored.
    """

    def __init__(self, max_entries: int = 1000, *, clock: Callable[[], float] = time.monotonic):
        self.max_entries = check_int("InMemoryCache", "max_entries", max_entries, 1)
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float | None, str]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    async def get(self, key: str) -> Any | None:
        """The value under ``key`` unless it expired."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, text = entry
        if expires is not None and expires <= self._clock():
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return json.loads(text)

    async def set(self, key: str, value: Any, ttl: float | None) -> None:
        """Store a JSON copy of ``value``."""
        expires = None if ttl is None else self._clock() + ttl
        self._entries[key] = (expires, json.dumps(value, separators=(",", ":")))
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    async def delete(self, key: str) -> None:
        """Forget ``key``."""
        self._entries.pop(key, None)

    async def purge(self) -> int:
        """Delete every expired entry; how many went."""
        now = self._clock()
        dead = [k for k, (expires, _) in self._entries.items() if expires is not None]
        dead = [k for k in dead if (self._entries[k][0] or 0) <= now]
        for key in dead:
            del self._entries[key]
        return len(dead)


_TOKEN = "gAAAAA"  # how a Fernet token begins


def _sealer(key: str | None) -> Any:
    if key is None:
        return None
    from procession.durable.checkpoints import Sealer

    return Sealer([part for part in key.split(",") if part.strip()])


class SQLiteCache:
    """A cache in one SQLite file (WAL mode: readers in other processes are not blocked).

    It stores what it caches by design: with ``ResponseCache`` that is the model's raw
    chunks, before the output lane redacts them (a hit replays them through the lane), so the
    file holds what the client was never shown, until the entry's ``ttl`` ends (expired
    entries go at the next read of their key or at :meth:`purge`). Protect the file, keep the
    ``ttl`` short, or give ``encryption_key`` (see ``docs/guardrails/caching.md``).

    Args:
        path: The database file (created if missing) or ``":memory:"``.
        busy_timeout: Seconds a writer waits for another process's write.
        encryption_key: Fernet key(s), comma-separated, the first encrypting (as
            ``DurableRuns(encryption_key=...)``; needs ``cryptography``): values are sealed
            at rest, and a value this key did not seal is a miss, never served.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = 10.0,
        clock: Callable[[], float] = time.time,
        encryption_key: str | None = None,
    ) -> None:
        if not isinstance(path, str | os.PathLike):
            raise option_error("SQLiteCache", "path", path, "a file path or ':memory:'")
        if encryption_key is not None and not isinstance(encryption_key, str):
            raise option_error("SQLiteCache", "encryption_key", "<hidden>", "Fernet keys")
        self._sealer = _sealer(encryption_key)
        self.path = os.fspath(path)
        self._busy_ms = int(check_number("SQLiteCache", "busy_timeout", busy_timeout, 0) * 1000)
        self._clock = clock
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="procession-cache")
        self._conn: sqlite3.Connection | None = None

    def __repr__(self) -> str:
        return f"SQLiteCache({self.path!r})"

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._on_worker, work)

    def _on_worker(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if self._conn is None:
            import sqlite3

            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
            if self.path != ":memory:":
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS response_cache"
                " (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at REAL)"
            )
            self._conn = conn
        return work(self._conn)

    async def get(self, key: str) -> Any | None:
        """The value under ``key`` unless it expired."""
        now = self._clock()

        def work(conn: sqlite3.Connection) -> str | None:
            row = conn.execute(
                "SELECT value, expires_at FROM response_cache WHERE key = ?", (key,)
            ).fetchone()
            if row is None:
                return None
            if row[1] is not None and row[1] <= now:
                conn.execute("DELETE FROM response_cache WHERE key = ?", (key,))
                return None
            return str(row[0])

        text = await self._run(work)
        if text is None:
            return None
        if self._sealer is not None:
            if not text.startswith(_TOKEN):
                return None  # not sealed by this key: a miss
            try:
                text = self._sealer.open(text.encode(), f"SQLiteCache {self.path}").decode()
            except StorageError:
                return None
        elif text.startswith(_TOKEN):
            return None  # sealed, and no key here
        return json.loads(text)

    async def set(self, key: str, value: Any, ttl: float | None) -> None:
        """Store ``value`` as JSON (sealed with ``encryption_key`` when given)."""
        text = json.dumps(value, separators=(",", ":"))
        if self._sealer is not None:
            text = self._sealer.seal(text.encode()).decode()
        expires = None if ttl is None else self._clock() + ttl

        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT OR REPLACE INTO response_cache (key, value, expires_at) VALUES (?, ?, ?)",
                (key, text, expires),
            )

        await self._run(work)

    async def delete(self, key: str) -> None:
        """Forget ``key``."""
        await self._run(
            lambda conn: conn.execute("DELETE FROM response_cache WHERE key = ?", (key,))
        )

    async def purge(self) -> int:
        """Delete every expired entry; how many went."""
        now = self._clock()

        def work(conn: sqlite3.Connection) -> int:
            cursor = conn.execute(
                "DELETE FROM response_cache WHERE expires_at IS NOT NULL AND expires_at <= ?",
                (now,),
            )
            return cursor.rowcount

        return await self._run(work)

    async def close(self) -> None:
        """Close the file and stop the worker thread."""

        def work(conn: sqlite3.Connection) -> None:
            conn.close()

        if self._conn is not None:
            await self._run(work)
            self._conn = None
        self._executor.shutdown(wait=True)
