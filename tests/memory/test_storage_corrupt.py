"""A corrupt stored row names its thread and message; every other thread still loads."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import asyncpg
import pytest

from procession.errors import CorruptRecordError, StorageError
from procession.memory.postgres import PostgresStorage
from procession.memory.sqlite import SQLiteStorage
from procession.memory.storage import Storage
from procession.messages.message import Message


async def _two_threads(storage: Storage) -> tuple[Message, Message]:
    bad, good = Message.user("bad", id="m-bad"), Message.user("good", id="m-good")
    await storage.save_turn("t-bad", "r", [Message.user("before", id="m-ok"), bad])
    await storage.save_turn("t-good", "r", [good])
    return bad, good


async def _assert_contained(storage: Storage) -> None:
    with pytest.raises(CorruptRecordError, match="thread 't-bad', message 'm-bad'") as info:
        await storage.list_messages("t-bad", resource_id="r")
    assert (info.value.thread_id, info.value.message_id) == ("t-bad", "m-bad")
    with pytest.raises(CorruptRecordError, match="m-bad"):
        await storage.get_messages_by_ids(["m-bad"], resource_id="r")
    good = await storage.list_messages("t-good", resource_id="r")
    assert [m.text for m in good] == ["good"]
    ok = await storage.get_messages_by_ids(["m-ok"], resource_id="r")
    assert [m.text for m in ok] == ["before"]
    assert {t.id for t in await storage.list_threads("r")} == {"t-bad", "t-good"}
    # the damage can be repaired through the API: overwrite or delete the row
    await storage.delete_messages(["m-bad"], resource_id="r")
    assert [m.id for m in await storage.list_messages("t-bad", resource_id="r")] == ["m-ok"]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "body",
    ["{not json", '{"id": "m-bad", "role": "robot", "content": {"parts": []}}', '"a string"'],
)
async def test_corrupt_message_in_sqlite(tmp_path: Path, body: str) -> None:
    path = tmp_path / "m.db"
    storage = SQLiteStorage(path)
    try:
        await _two_threads(storage)
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE messages SET body = ? WHERE id = 'm-bad'", (body,))
        await _assert_contained(storage)
    finally:
        await storage.close()


@pytest.mark.asyncio
async def test_corrupt_message_in_postgres(postgres_dsn: str, new_schema: str) -> None:
    storage = PostgresStorage(postgres_dsn, schema=new_schema)
    try:
        await _two_threads(storage)
        conn = await asyncpg.connect(postgres_dsn, server_settings={"search_path": new_schema})
        try:
            await conn.execute(
                'UPDATE messages SET body = \'{"id": "m-bad", "role": 7}\' WHERE id = \'m-bad\''
            )
        finally:
            await conn.close()
        await _assert_contained(storage)
    finally:
        await storage.close()


@pytest.mark.asyncio
async def test_corrupt_thread_metadata_names_the_thread(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    storage = SQLiteStorage(path)
    try:
        await _two_threads(storage)
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE threads SET metadata = '[1' WHERE id = 't-bad'")
            conn.execute("INSERT INTO resources VALUES ('r2', NULL, '3', 0)")
        with pytest.raises(CorruptRecordError, match="thread 't-bad'") as info:
            await storage.get_thread("t-bad", resource_id="r")
        assert info.value.message_id is None
        assert await storage.get_thread("t-good", resource_id="r") is not None
        assert len(await storage.list_messages("t-bad", resource_id="r")) == 2
        with pytest.raises(StorageError, match="resource 'r2'"):
            await storage.get_resource("r2")
    finally:
        await storage.close()
