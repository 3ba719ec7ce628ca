"""PostgreSQL specifics: per-thread serialisation under load, pools, bad DSNs."""

from __future__ import annotations

import asyncio

import pytest

from procession.errors import ConfigurationError, StorageError
from procession.memory.postgres import PostgresStorage
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
