"""Fencing tokens (issue 20): a turn whose thread lock is lost stores nothing, and its
client is told; the thread never forks (D13: a failed run persists nothing)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import httpx2 as httpx
import pytest

from procession.errors import ThreadLockLostError
from procession.memory.postgres import PostgresStorage
from procession.memory.sqlite import SQLiteStorage
from procession.memory.thread_locks import advisory_key
from procession.messages.message import Message
from tests.scaling.test_replicas import start_replicas
from tests.server.helpers import events

_KILL_HOLDER = """
SELECT pg_terminate_backend(pid) FROM pg_locks
WHERE locktype = 'advisory' AND granted AND classid = $1::bigint::oid
    AND objid = $2::bigint::oid AND objsubid = 1
"""


async def _kill_lock_connection(dsn: str, schema: str, thread: str) -> int:
    """Terminate the PostgreSQL backend holding ``thread``'s advisory lock; how many."""
    key = advisory_key(f"procession:thread:{schema}", thread) & 0xFFFF_FFFF_FFFF_FFFF
    conn = await asyncpg.connect(dsn)
    try:
        killed = await conn.fetch(_KILL_HOLDER, key >> 32, key & 0xFFFF_FFFF)
    finally:
        await conn.close()
    return sum(1 for row in killed if row[0])


def _turn(text: str) -> list[Message]:
    return [Message.user(text), Message.assistant(f"re: {text}")]


@pytest.mark.asyncio
async def test_a_replica_that_loses_its_lock_stores_nothing(
    postgres_dsn: str, new_schema: str
) -> None:
    # D13: the losing turn persists nothing and its client gets an error naming the thread
    urls = start_replicas(postgres_dsn, new_schema, 2, SCALING_DELAY="0.4")
    replicas = next(urls)
    thread, resource = "forked", "ada"
    memory = {"thread": thread, "resource": resource}
    body = {"messages": "hello", "resourceId": resource, "memory": memory}
    try:
        async with httpx.AsyncClient(timeout=60) as client:
            async with client.stream(
                "POST", f"{replicas[0]}/api/agents/counter/stream", json=body
            ) as first:
                assert first.status_code == 200
                chunks = first.aiter_text()
                head = await anext(chunks)
                while "text-delta" not in head:  # the turn runs: the lock is held
                    head += await anext(chunks)
                assert await _kill_lock_connection(postgres_dsn, new_schema, thread) == 1
                second = asyncio.ensure_future(
                    client.post(f"{replicas[1]}/api/agents/counter/generate", json=body)
                )
                rest = head + "".join([part async for part in chunks])
            answer = await second
        assert answer.status_code == 200, answer.text
        assert "seen=1 on=1" in answer.json()["text"]  # the second turn saw no other turn
        errors = [e for e in events(rest) if isinstance(e, dict) and e["type"] == "error"]
        assert errors, rest
        assert "lost its thread lock" in str(errors[0])
        assert repr(thread) in str(errors[0])
        storage = PostgresStorage(postgres_dsn, schema=new_schema)
        try:
            stored = await storage.list_messages(thread, resource_id=resource)
        finally:
            await storage.close()
        assert [m.role for m in stored] == ["user", "assistant"]  # one turn: no fork
        assert "on=1" in stored[1].text
    finally:
        urls.close()


@pytest.mark.asyncio
async def test_postgres_storage_refuses_a_turn_after_its_lock_connection_died(
    postgres_dsn: str, new_schema: str
) -> None:
    first = PostgresStorage(postgres_dsn, schema=new_schema)
    second = PostgresStorage(postgres_dsn, schema=new_schema)
    try:
        await first.list_threads(resource_id="ada")  # migrated
        async with first.thread_lock("t"):
            assert await _kill_lock_connection(postgres_dsn, new_schema, "t") == 1
            async with second.thread_lock("t", timeout=10):
                await second.save_turn("t", "ada", _turn("second"))
            with pytest.raises(ThreadLockLostError, match="'t'"):
                await first.save_turn("t", "ada", _turn("first"))
        async with first.thread_lock("t"):  # a new turn takes a new token
            await first.save_turn("t", "ada", _turn("third"))
        texts = [m.text for m in await first.list_messages("t", resource_id="ada")]
        assert texts == ["second", "re: second", "third", "re: third"]
    finally:
        await first.close()
        await second.close()


@pytest.mark.asyncio
async def test_a_stale_token_is_refused_even_when_the_loss_went_unnoticed(
    postgres_dsn: str, new_schema: str
) -> None:
    # the lost-connection flag aside, the token alone refuses a turn that another took over
    storage = PostgresStorage(postgres_dsn, schema=new_schema)
    try:
        async with storage.thread_lock("t"):
            conn = await asyncpg.connect(postgres_dsn)
            try:  # what a turn taking the thread on another replica does first
                await conn.execute(
                    f"UPDATE {new_schema}.thread_fences SET token = token + 1 WHERE thread_id = 't'"
                )
            finally:
                await conn.close()
            with pytest.raises(ThreadLockLostError, match="nothing of it was stored"):
                await storage.save_turn("t", "ada", _turn("first"))
        assert await storage.list_messages("t", resource_id="ada") == []
    finally:
        await storage.close()


async def _hold_then_save(
    storage: SQLiteStorage, text: str, taken: asyncio.Event, go: asyncio.Event
) -> None:
    async with storage.thread_lock("t"):
        taken.set()
        await go.wait()
        await storage.save_turn("t", "ada", _turn(text))


@pytest.mark.asyncio
async def test_sqlite_processes_on_one_file_store_only_the_newest_turn(tmp_path: Path) -> None:
    # two storages on one file hold two processes' worth of locks: the in-process lock does
    # not reach the other storage, the fence in the file does
    path = tmp_path / "shared.db"
    first, second = SQLiteStorage(path), SQLiteStorage(path)
    try:
        taken, go, done = asyncio.Event(), asyncio.Event(), asyncio.Event()
        older = asyncio.ensure_future(_hold_then_save(first, "first", taken, go))
        await taken.wait()
        newer = asyncio.ensure_future(_hold_then_save(second, "second", done, done))
        await newer
        go.set()
        with pytest.raises(ThreadLockLostError, match="'t'"):
            await older
        texts = [m.text for m in await first.list_messages("t", resource_id="ada")]
        assert texts == ["second", "re: second"]
        async with first.thread_lock("t"):  # a new turn takes a new token
            await first.save_turn("t", "ada", _turn("third"))
        await second.save_turn("t", "ada", _turn("unlocked"))  # no lock, no fence: as before
        assert len(await second.list_messages("t", resource_id="ada")) == 6
    finally:
        await first.close()
        await second.close()
