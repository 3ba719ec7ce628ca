"""A durable run's commit is stored once even when it is executed again after a crash that
came between the commit and its checkpoint (D13): ``commit_once`` on both storages."""

from __future__ import annotations

from pathlib import Path

import pytest

from procession import ConfigurationError
from procession.memory import SQLiteStorage, commit_once
from procession.memory.postgres import PostgresStorage
from procession.memory.storage import Storage
from procession.messages.message import Message


async def _commit(storage: Storage, n: int) -> None:
    # the run executed again makes new message ids: only the key says it is the same turn
    turn = [Message.user("Pay", id=f"u{n}"), Message.assistant("Done.", id=f"a{n}")]
    await storage.save_turn("t1", "ada", turn)


async def _check(storage: Storage) -> None:
    with commit_once("run-1:commit"):
        await _commit(storage, 1)
    with commit_once("run-1:commit"):
        await _commit(storage, 2)
    with commit_once("run-2:commit"):
        await _commit(storage, 3)
    await _commit(storage, 4)  # outside a block: stored as usual
    stored = await storage.list_messages("t1", resource_id="ada")
    assert [m.id for m in stored] == ["u1", "a1", "u3", "a3", "u4", "a4"]
    assert await storage.delete_thread("t1", resource_id="ada")  # keys go with the thread
    with commit_once("run-1:commit"):
        await _commit(storage, 5)
    assert [m.id for m in await storage.list_messages("t1", resource_id="ada")] == ["u5", "a5"]


@pytest.mark.asyncio
async def test_sqlite_stores_a_keyed_turn_once(tmp_path: Path) -> None:
    storage = SQLiteStorage(tmp_path / "m.db")
    try:
        await _check(storage)
    finally:
        await storage.close()


@pytest.mark.asyncio
async def test_postgres_stores_a_keyed_turn_once(postgres_dsn: str, new_schema: str) -> None:
    storage = PostgresStorage(postgres_dsn, schema=new_schema)
    try:
        await _check(storage)
    finally:
        await storage.close()


def test_a_commit_key_must_be_a_string() -> None:
    with pytest.raises(ConfigurationError, match="key"), commit_once(""):
        pass
