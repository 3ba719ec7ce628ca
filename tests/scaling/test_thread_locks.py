"""Turns on one thread are serialised in a process and across processes (issue 16): a lock
in PostgreSQL, a bounded wait, then ``ThreadBusyError``; other threads never wait."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest

from procession import ConfigurationError
from procession.errors import ThreadBusyError
from procession.memory import Memory, PostgresThreadLocks, SQLiteStorage, ThreadLocks
from procession.memory.postgres import PostgresStorage


async def _turn(locks: ThreadLocks, thread: str, log: list[str], name: str, hold: float) -> None:
    async with locks.hold(thread, timeout=5):
        log.append(f"{name}:in")
        await asyncio.sleep(hold)
        log.append(f"{name}:out")


@pytest.mark.asyncio
async def test_two_processes_never_interleave_a_thread(postgres_dsn: str, new_schema: str) -> None:
    # two lock sets = two database sessions, exactly as two replicas have
    a, b = (PostgresThreadLocks(postgres_dsn, namespace=new_schema) for _ in range(2))
    log: list[str] = []
    try:
        await asyncio.gather(
            *(
                _turn(locks, "t1", log, f"{n}{i}", 0.05)
                for i in range(4)
                for n, locks in (("a", a), ("b", b))
            )
        )
    finally:
        await a.close()
        await b.close()
    assert len(log) == 16
    for i in range(0, 16, 2):  # every turn's "in" is followed by its own "out"
        assert log[i].endswith(":in")
        assert log[i + 1] == log[i].replace(":in", ":out")


@pytest.mark.asyncio
async def test_a_second_turn_waits_then_gets_busy(postgres_dsn: str, new_schema: str) -> None:
    a, b = (PostgresThreadLocks(postgres_dsn, namespace=new_schema) for _ in range(2))
    try:
        async with a.hold("t1", timeout=1):
            loop = asyncio.get_running_loop()
            started = loop.time()
            with pytest.raises(ThreadBusyError) as caught:
                async with b.hold("t1", timeout=0.3):
                    pass
            assert 0.29 <= loop.time() - started < 2
            assert caught.value.thread_id == "t1"
            async with b.hold("t2", timeout=0.3):  # another thread does not wait
                pass
        async with b.hold("t1", timeout=1):  # released: the other process gets it
            pass
    finally:
        await a.close()
        await b.close()


@pytest.mark.asyncio
async def test_a_waiter_wakes_when_the_holder_releases(postgres_dsn: str, new_schema: str) -> None:
    a = PostgresThreadLocks(postgres_dsn, namespace=new_schema, poll=10)  # only NOTIFY can wake it
    b = PostgresThreadLocks(postgres_dsn, namespace=new_schema, poll=10)
    loop = asyncio.get_running_loop()
    try:
        async with a.hold("t1"):
            waiter = asyncio.ensure_future(_turn(b, "t1", [], "b", 0))
            await asyncio.sleep(0.2)
            released = loop.time()
        await asyncio.wait_for(waiter, 5)
        assert loop.time() - released < 2  # woken by NOTIFY, not by the 10 s poll
    finally:
        await a.close()
        await b.close()


@pytest.mark.asyncio
async def test_a_dead_holder_releases_its_locks(postgres_dsn: str, new_schema: str) -> None:
    a, b = (PostgresThreadLocks(postgres_dsn, namespace=new_schema, poll=0.05) for _ in range(2))
    try:
        held = a.hold("t1")
        await held.__aenter__()
        killer = await asyncpg.connect(postgres_dsn)
        try:  # the holder's session ends as when its process is killed
            await killer.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = 'procession-locks' AND pid <> pg_backend_pid()"
                " AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory')"
            )
        finally:
            await killer.close()
        async with b.hold("t1", timeout=5):
            pass
        await held.__aexit__(None, None, None)
    finally:
        await a.close()
        await b.close()


@pytest.mark.asyncio
async def test_a_cancelled_turn_releases_the_lock(postgres_dsn: str, new_schema: str) -> None:
    a, b = (PostgresThreadLocks(postgres_dsn, namespace=new_schema) for _ in range(2))
    try:
        task = asyncio.ensure_future(_turn(a, "t1", [], "a", 30))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        async with b.hold("t1", timeout=2):
            pass
    finally:
        await a.close()
        await b.close()


@pytest.mark.asyncio
async def test_storages_and_memory_offer_the_lock(
    postgres_dsn: str, new_schema: str, tmp_path: Path
) -> None:
    pg = PostgresStorage(postgres_dsn, schema=new_schema)
    sqlite = SQLiteStorage(tmp_path / "m.db")
    try:
        for memory in (Memory(pg), Memory(sqlite)):
            async with memory.thread_lock("t1", timeout=1):
                with pytest.raises(ThreadBusyError):
                    async with memory.thread_lock("t1", timeout=0.05):
                        pass
            async with memory.thread_lock("t1", timeout=0):
                pass
    finally:
        await pg.close()
        await sqlite.close()


def test_bad_lock_arguments_are_named() -> None:
    locks = ThreadLocks()
    with pytest.raises(ConfigurationError, match="timeout"):
        locks.hold("t1", timeout=True)
    with pytest.raises(ConfigurationError, match="timeout"):
        locks.hold("t1", timeout=-1)
    with pytest.raises(ConfigurationError, match="poll"):
        PostgresThreadLocks("postgresql://x", poll=0)
