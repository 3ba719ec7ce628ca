"""PostgreSQL specifics: per-thread serialisation under load, pools, bad DSNs."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from tests.memory.crash_harness import drop_schema

from procession.errors import ConfigurationError, StorageError
from procession.memory.postgres import PostgresStorage
from procession.messages import Message
from procession.testing.storage_contract import _concurrent_one_thread


@pytest.mark.asyncio
async def test_concurrent_turns_on_one_thread_never_interleave(
    postgres_dsn: str, postgres_schema: str
) -> None:
    # Interleaving without the thread-row lock shows up in about half of the runs.
    storage = PostgresStorage(postgres_dsn, schema=postgres_schema, max_size=20)
    try:
        for _ in range(5):
            await _concurrent_one_thread(storage)
    finally:
        await storage.close()


@pytest.mark.asyncio
async def test_two_storages_share_one_database(postgres_dsn: str, postgres_schema: str) -> None:
    a = PostgresStorage(postgres_dsn, schema=postgres_schema)
    b = PostgresStorage(postgres_dsn, schema=postgres_schema)
    try:
        await asyncio.gather(
            a.set_working_memory("from a", resource_id="shared-r"),
            b.get_resource("shared-r"),
        )
        assert await b.get_working_memory(resource_id="shared-r") == "from a"
    finally:
        await a.close()
        await b.close()


@pytest.mark.asyncio
async def test_unreachable_server_is_a_storage_error() -> None:
    storage = PostgresStorage("postgresql://postgres@127.0.0.1:9/postgres")
    with pytest.raises(StorageError, match="cannot connect"):
        await storage.get_resource("r")
    await storage.close()


def test_schema_name_is_checked() -> None:  # D35
    with pytest.raises(ConfigurationError, match="schema"):
        PostgresStorage("postgresql://x", schema='x"; DROP TABLE threads; --')


@pytest.mark.asyncio
async def test_a_database_error_is_a_storage_error(postgres_dsn: str, new_schema: str) -> None:
    storage = PostgresStorage(postgres_dsn, schema=new_schema)
    try:
        await storage.save_turn("t", "r", [Message.user("hi")])
        await drop_schema(postgres_dsn, new_schema)  # the tables go away under the storage
        with pytest.raises(StorageError, match="UndefinedTableError") as caught:
            await storage.list_messages("t", resource_id="r")
        assert isinstance(caught.value.__cause__, asyncpg.PostgresError)
    finally:
        await storage.close()
