"""Turns on one thread, one at a time: in this process, and across processes in PostgreSQL.

``storage.thread_lock(thread_id, timeout=30.0)`` is an async context manager held for a whole
turn (the server takes it per request). A turn that cannot have the lock within ``timeout``
seconds raises :class:`~procession.errors.ThreadBusyError` (the server answers 409); turns on
other threads never wait for each other.

- :class:`ThreadLocks` serialises turns inside one process (an ``asyncio.Lock`` per thread,
  first come first served). SQLite's storage uses it: one database file, one machine.
- :class:`PostgresThreadLocks` adds a PostgreSQL session advisory lock per thread, so any
  number of processes sharing the database serialise a thread's turns. One dedicated
  connection per process holds every lock the process has; a process that dies loses its
  connection, and PostgreSQL releases its locks at once. A release is announced with
  ``NOTIFY`` so a waiting process retries at once (and every ``poll`` seconds regardless,
  should a holder die without a word).

A storage that passes ``fences`` (both built-ins do) gets a fencing token each time a turn
takes a thread, and ``save_turn`` refuses a turn whose token is stale or whose lock
connection was lost (:mod:`procession.memory.fence`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from procession._checks import check_seconds
from procession.errors import StorageError, ThreadBusyError
from procession.memory.fence import Fence, enter_fence, leave_fence

__all__ = ["DEFAULT_LOCK_TIMEOUT", "PostgresThreadLocks", "ThreadLocks", "advisory_key"]

logger = logging.getLogger("procession.memory")

DEFAULT_LOCK_TIMEOUT = 30.0
"""How long a turn waits for its thread by default (seconds)."""

CHANNEL = "procession_thread_unlocked"
"""The ``NOTIFY`` channel a released thread lock is announced on (payload: its key)."""


def advisory_key(namespace: str, name: str) -> int:
    """A signed 64-bit advisory lock key for ``name`` (BLAKE2b of ``namespace:name``)."""
    digest = hashlib.blake2b(f"{namespace}:{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class _Entry:
    """One thread's in-process lock and how many turns hold or wait for it."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


FenceSource = Callable[[str], Awaitable[int]]
"""Bumps a thread's fencing token and returns the new one (a storage's own write)."""


class ThreadLocks:
    """Per-thread locks inside one process (see the module docstring).

    Args:
        fences: Bumps a thread's fencing token when a turn takes it (``None``: no fence).
        owner: The storage whose ``save_turn`` checks the token.
    """

    def __init__(self, *, fences: FenceSource | None = None, owner: object = None) -> None:
        self._entries: dict[str, _Entry] = {}
        self._fences = fences
        self._owner = owner
        self._active: set[Fence] = set()

    def hold(
        self, thread_id: str, *, timeout: float = DEFAULT_LOCK_TIMEOUT
    ) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold ``thread_id``'s lock for the block; ``ThreadBusyError`` after ``timeout``."""
        if not isinstance(thread_id, str) or not thread_id:
            raise StorageError(f"thread_lock: thread_id must be a non-empty string ({thread_id!r})")
        return self._held(thread_id, check_seconds("timeout", timeout))

    @contextlib.asynccontextmanager
    async def _held(self, thread_id: str, wait: float) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        entry = self._entries.get(thread_id)
        if entry is None:
            entry = self._entries[thread_id] = _Entry()
        entry.users += 1
        try:
            if entry.lock.locked():
                try:
                    await asyncio.wait_for(entry.lock.acquire(), wait)
                except TimeoutError:
                    raise ThreadBusyError(thread_id, wait) from None
            else:  # free: taken without a wait (wait_for gives up at once with timeout 0)
                await entry.lock.acquire()
            try:
                await self._acquire_shared(thread_id, deadline, wait)
                try:
                    async with self._fenced(thread_id):
                        yield
                finally:  # a cancelled turn must still release: shielded
                    await asyncio.shield(self._release_shared(thread_id))
            finally:
                entry.lock.release()
        finally:
            entry.users -= 1
            if entry.users == 0:
                del self._entries[thread_id]

    @contextlib.asynccontextmanager
    async def _fenced(self, thread_id: str) -> AsyncIterator[None]:
        """The turn's fencing token, current for the block (nothing without ``fences``)."""
        if self._fences is None:
            yield
            return
        fence = Fence(self._owner, thread_id, await self._fences(thread_id))
        self._active.add(fence)
        mark = enter_fence(fence)
        try:
            yield
        finally:
            leave_fence(mark)
            self._active.discard(fence)

    def _lose_all(self) -> None:
        """Every turn holding a lock lost it: their ``save_turn`` stores nothing."""
        for fence in self._active:
            fence.lost = True

    async def _acquire_shared(self, thread_id: str, deadline: float, wait: float) -> None:
        """Take the lock other processes see (nothing in one process)."""

    async def _release_shared(self, thread_id: str) -> None:
        """Release the lock other processes see (nothing in one process)."""

    async def close(self) -> None:
        """Release what the locks hold (nothing in one process)."""


class PostgresThreadLocks(ThreadLocks):
    """Per-thread locks shared by every process on one PostgreSQL database.

    Args:
        dsn: The database's connection string.
        namespace: Separates lock keys of different schemas sharing a database.
        poll: Seconds between retries while waiting, besides the ``NOTIFY`` wake-ups.
        fences: Bumps a thread's fencing token when a turn takes it (``None``: no fence).
        owner: The storage whose ``save_turn`` checks the token.
    """

    def __init__(
        self,
        dsn: str,
        *,
        namespace: str = "public",
        poll: float = 0.5,
        fences: FenceSource | None = None,
        owner: object = None,
    ) -> None:
        super().__init__(fences=fences, owner=owner)
        self._dsn = dsn
        self._namespace = f"procession:thread:{namespace}"
        self._poll = check_seconds("poll", poll, minimum=0.001)
        self._conn: Any = None
        self._connecting = asyncio.Lock()
        self._query = asyncio.Lock()
        self._released: dict[int, asyncio.Event] = {}
        self._pending: set[asyncio.Future[None]] = set()

    async def _connection(self) -> Any:
        if self._conn is not None and not self._conn.is_closed():
            return self._conn
        async with self._connecting:
            if self._conn is None or self._conn.is_closed():
                import asyncpg

                if self._conn is not None:
                    self._conn.terminate()

                try:
                    conn = await asyncpg.connect(
                        self._dsn, server_settings={"application_name": "procession-locks"}
                    )
                except (OSError, asyncpg.PostgresError) as error:
                    raise StorageError(f"thread locks: cannot connect: {error}") from error
                await conn.add_listener(CHANNEL, self._on_release)
                conn.add_termination_listener(self._on_lost)
                self._conn = conn
        return self._conn

    def _on_release(self, conn: Any, pid: int, channel: str, payload: object) -> None:
        event = self._released.get(int(str(payload)))
        if event is not None:
            event.set()

    def _on_lost(self, conn: Any) -> None:
        if conn is self._conn:
            self._lose_all()
        logger.error("thread locks: the lock connection was lost; its locks are released")

    async def _fetch(self, sql: str, key: int) -> Any:
        conn = await self._connection()
        async with self._query:
            return await conn.fetchval(sql, key)

    async def _acquire_shared(self, thread_id: str, deadline: float, wait: float) -> None:
        key = advisory_key(self._namespace, thread_id)
        loop = asyncio.get_running_loop()
        event = self._released.setdefault(key, asyncio.Event())
        try:
            while True:
                event.clear()
                if await self._try_lock(thread_id, key):
                    return
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise ThreadBusyError(thread_id, wait)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), min(remaining, self._poll))
        finally:
            self._released.pop(key, None)

    async def _try_lock(self, thread_id: str, key: int) -> bool:
        """``pg_try_advisory_lock``, shielded: a lock taken while the waiter was cancelled is
        released, never left on the connection."""
        attempt = asyncio.ensure_future(self._fetch("SELECT pg_try_advisory_lock($1)", key))
        try:
            return bool(await asyncio.shield(attempt))
        except asyncio.CancelledError:
            attempt.add_done_callback(lambda done: self._undo(done, thread_id))
            raise

    def _undo(self, attempt: asyncio.Future[Any], thread_id: str) -> None:
        if not attempt.cancelled() and attempt.exception() is None and attempt.result():
            undo = asyncio.ensure_future(self._release_shared(thread_id))
            self._pending.add(undo)
            undo.add_done_callback(self._pending.discard)

    async def _release_shared(self, thread_id: str) -> None:
        key = advisory_key(self._namespace, thread_id)
        if self._conn is None or self._conn.is_closed():
            return  # the lock went with its connection
        try:
            held = await self._fetch(
                f"SELECT pg_advisory_unlock($1), pg_notify('{CHANNEL}', $1::text)", key
            )
        except Exception:  # the connection is gone: PostgreSQL released the lock with it
            logger.exception("thread locks: releasing %r failed", thread_id)
            return
        if held is False:
            logger.error("thread locks: %r was no longer held (the connection was lost)", thread_id)

    async def close(self) -> None:
        """Close the lock connection (releasing every lock it holds)."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        if conn.is_closed():
            conn.terminate()  # a lost connection still holds its socket
        else:
            await conn.close()
