"""Fixtures for the guardrail tests: storages with a usage ledger on both real backends.

PostgreSQL comes from ``PROCESSION_TEST_POSTGRES_DSN``, else from ``.pgdata/dsn``; without a
server its cases are skipped locally and fail in CI. Each test gets its own schema.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
import pytest_asyncio

from procession.memory.postgres import PostgresStorage
from procession.memory.sqlite import SQLiteStorage
from procession.memory.storage import Storage

DSN_FILE = Path(__file__).resolve().parents[2] / ".pgdata" / "dsn"


def _dsn() -> str:
    dsn = os.environ.get("PROCESSION_TEST_POSTGRES_DSN") or (
        DSN_FILE.read_text().strip() if DSN_FILE.is_file() else ""
    )
    if not dsn:
        if os.environ.get("CI"):
            pytest.fail("no PostgreSQL server: set PROCESSION_TEST_POSTGRES_DSN")
        pytest.skip("no PostgreSQL server: set PROCESSION_TEST_POSTGRES_DSN")
    return dsn


async def _drop(dsn: str, schema: str) -> None:
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


@pytest_asyncio.fixture(params=["sqlite", "postgres"])
async def ledger_storage(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Storage]:
    """A fresh storage (with its usage ledger) on a SQLite file, then on PostgreSQL."""
    if request.param == "sqlite":
        storage: Storage = SQLiteStorage(tmp_path / "ledger.db")
        yield storage
        await storage.close()
        return
    dsn, schema = _dsn(), f"test_{uuid.uuid4().hex[:10]}"
    storage = PostgresStorage(dsn, schema=schema, max_size=4)
    try:
        yield storage
    finally:
        await storage.close()
        await asyncio.shield(_drop(dsn, schema))
