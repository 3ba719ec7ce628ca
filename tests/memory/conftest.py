"""Fixtures for the storage tests: a real SQLite file and a real PostgreSQL server.

PostgreSQL comes from ``PROCESSION_TEST_POSTGRES_DSN``, else from the DSN ``scripts/services.sh``
wrote to ``.pgdata/dsn``. Without either, its tests are skipped locally and fail in CI.
Each test session works in a fresh PostgreSQL schema, dropped at the end.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from tests.memory.crash_harness import drop_schema

from procession.errors import ConfigurationError
from procession.memory.embedding import MiniLMEmbedder
from procession.memory.postgres import PostgresStorage
from procession.memory.sqlite import SQLiteStorage
from procession.memory.storage import Storage

StorageFactory = Callable[[], Storage]


@pytest.fixture(scope="session")
def postgres_schema(postgres_dsn: str) -> Iterator[str]:
    """A fresh schema name for this session, dropped afterwards."""
    schema = f"test_{uuid.uuid4().hex[:10]}"
    yield schema
    asyncio.run(drop_schema(postgres_dsn, schema))


@pytest.fixture
def new_schema(postgres_dsn: str) -> Iterator[str]:
    """A schema of this test's own (to watch migrations from scratch), dropped afterwards."""
    schema = f"test_{uuid.uuid4().hex[:10]}"
    yield schema
    asyncio.run(drop_schema(postgres_dsn, schema))


@pytest.fixture(params=["sqlite-file", "sqlite-memory", "postgres"])
def storage_factory(request: pytest.FixtureRequest, tmp_path: Path) -> StorageFactory:
    """Makes storages of one backend; every storage from one factory shares its data
    (except ``:memory:``, which is private to each storage)."""
    kind: str = request.param
    if kind == "sqlite-file":
        path = tmp_path / "memory.db"
        return lambda: SQLiteStorage(path)
    if kind == "sqlite-memory":
        return lambda: SQLiteStorage(":memory:")
    dsn: str = request.getfixturevalue("postgres_dsn")
    schema: str = request.getfixturevalue("postgres_schema")
    return lambda: PostgresStorage(dsn, schema=schema, max_size=20)


@pytest.fixture(params=["sqlite", "postgres"])
def backend_factory(request: pytest.FixtureRequest, tmp_path: Path) -> StorageFactory:
    """Makes a storage of each persistent backend: a SQLite file, PostgreSQL."""
    if request.param == "sqlite":
        path = tmp_path / "memory.db"
        return lambda: SQLiteStorage(path)
    dsn: str = request.getfixturevalue("postgres_dsn")
    schema: str = request.getfixturevalue("postgres_schema")
    return lambda: PostgresStorage(dsn, schema=schema)


@pytest_asyncio.fixture
async def backend(backend_factory: StorageFactory) -> AsyncIterator[Storage]:
    """An open storage of each persistent backend, closed after the test."""
    storage = backend_factory()
    yield storage
    await storage.close()


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    """The numpy MiniLM embedder (skipped locally without its packages; fails in CI)."""
    try:
        embedder = MiniLMEmbedder()
    except ConfigurationError as error:
        if os.environ.get("CI"):
            pytest.fail(str(error))
        pytest.skip(str(error))
    embedder.load()
    return embedder
