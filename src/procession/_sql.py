"""SQL plumbing shared by every store on SQLite and PostgreSQL: opening a SQLite file,
transactions, and versioned schemas.

A schema is a tuple of ``(version, script)`` pairs applied in order and recorded in a table
of its own (``schema_migrations`` for memory, ``trace_migrations`` for the trace store), so
stores that share a database migrate independently.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from procession.errors import StorageError

__all__ = ["postgres_migrate", "sqlite_migrate", "sqlite_open", "sqlite_transaction"]

T = TypeVar("T")

Migrations = Sequence[tuple[int, str]]


def sqlite_open(
    path: str, busy_ms: int, migrate: Callable[[sqlite3.Connection], None], *, owner: str
) -> sqlite3.Connection:
    """A connection to ``path`` for a store's one worker thread: autocommit (transactions are
    explicit), WAL for files, a busy timeout, foreign keys on, and the schema migrated.

    Raises:
        StorageError: the file cannot be opened or migrated (the message starts with ``owner``).
    """
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {busy_ms}")
        if path != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        sqlite_transaction(conn, migrate)
    except sqlite3.Error as error:
        raise StorageError(f"{owner}: cannot open: {error}") from error
    return conn


def sqlite_transaction(conn: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``work`` in one write transaction (the lock taken up front), rolled back if it
    raises."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = work(conn)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return result


def sqlite_migrate(
    conn: sqlite3.Connection, migrations: Migrations, *, table: str = "schema_migrations"
) -> None:
    """Apply the migrations not yet recorded in ``table`` (inside the caller's transaction)."""
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {table}"
        " (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)"
    )
    applied = {row[0] for row in conn.execute(f"SELECT version FROM {table}")}
    for version, script in migrations:
        if version in applied:
            continue
        for statement in script.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(
            f"INSERT INTO {table} (version, applied_at) VALUES (?, ?)",
            (version, time.time_ns() // 1000),
        )


async def postgres_migrate(
    conn: Any, schema: str, migrations: Migrations, *, table: str = "schema_migrations"
) -> None:
    """Apply the migrations not yet recorded in ``table``, creating ``schema`` if missing, one
    process at a time (a transaction-scoped advisory lock per schema)."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(hashtext($1))", f"procession:{schema}")
        if not await conn.fetchval("SELECT 1 FROM pg_namespace WHERE nspname = $1", schema):
            await conn.execute(f'CREATE SCHEMA "{schema}"')
        if await conn.fetchval("SELECT to_regclass($1)", table) is None:
            await conn.execute(
                f"CREATE TABLE {table}"
                " (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
        applied = {r[0] for r in await conn.fetch(f"SELECT version FROM {table}")}
        for version, script in migrations:
            if version not in applied:
                await conn.execute(script)
                await conn.execute(f"INSERT INTO {table} (version) VALUES ($1)", version)
