"""Several processes at once: migrations, concurrent writers, and SIGKILL mid-turn."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import asyncpg
import pytest

from procession.memory.postgres import MIGRATIONS as POSTGRES_MIGRATIONS
from procession.memory.postgres import PostgresStorage
from procession.memory.sqlite import MIGRATIONS as SQLITE_MIGRATIONS
from procession.memory.sqlite import SQLiteStorage
from procession.memory.storage import Storage

WORKER = Path(__file__).with_name("storage_worker.py")


def spawn(backend: str, target: str, schema: str, *args: str) -> subprocess.Popen[str]:
    """Start a worker process whose stdout is a pipe of lines."""
    return subprocess.Popen(
        [sys.executable, str(WORKER), backend, target, schema, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str], timeout: float = 120) -> str:
    """Wait for a worker; its stdout, or an AssertionError with its stderr."""
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"worker failed ({proc.returncode}): {err}"
    return out


def _open(backend: str, target: str, schema: str) -> Storage:
    if backend == "sqlite":
        return SQLiteStorage(target)
    return PostgresStorage(target, schema=schema)


async def _migration_versions(backend: str, target: str, schema: str) -> list[int]:
    if backend == "sqlite":
        with sqlite3.connect(target) as db:
            return [r[0] for r in db.execute("SELECT version FROM schema_migrations")]
    pg = await asyncpg.connect(target, server_settings={"search_path": schema})
    try:
        return [r[0] for r in await pg.fetch("SELECT version FROM schema_migrations")]
    finally:
        await pg.close()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str, str]:
    """``(backend, target, schema)`` for the worker processes, on a fresh database."""
    if request.param == "sqlite":
        return "sqlite", str(tmp_path / "shared.db"), ""
    dsn: str = request.getfixturevalue("postgres_dsn")
    schema: str = request.getfixturevalue("new_schema")
    return "postgres", dsn, schema


@pytest.mark.asyncio
async def test_many_processes_migrate_at_once(backend: tuple[str, str, str]) -> None:
    kind, target, schema = backend
    procs = [spawn(kind, target, schema, "open") for _ in range(6)]
    assert [finish(p).strip() for p in procs] == ["ok"] * 6
    migrations = SQLITE_MIGRATIONS if kind == "sqlite" else POSTGRES_MIGRATIONS
    assert await _migration_versions(kind, target, schema) == [v for v, _ in migrations]


@pytest.mark.asyncio
async def test_concurrent_writer_processes(backend: tuple[str, str, str]) -> None:
    kind, target, schema = backend
    tags = [f"p{i}" for i in range(4)]
    # migrate once first so the writers race on data, not on the schema
    finish(spawn(kind, target, schema, "open"))
    procs = [spawn(kind, target, schema, "turns", "t", "r", tag, "5", "50", "10") for tag in tags]
    for proc in procs:
        finish(proc)
    storage = _open(kind, target, schema)
    try:
        ids = [m.id for m in await storage.list_messages("t", resource_id="r")]
    finally:
        await storage.close()
    assert len(ids) == len(set(ids)) == 4 * 5 * 50
    for tag in tags:
        for n in range(5):
            start = ids.index(f"{tag}-{n}-0")
            assert ids[start : start + 50] == [f"{tag}-{n}-{i}" for i in range(50)]


SIZE = 2000


def _kill_mid_turn(kind: str, target: str, schema: str, fraction: float) -> None:
    """Start saving big turns; SIGKILL the writer ``fraction`` of a turn into turn 1."""
    proc = spawn(kind, target, schema, "turns", "t", "r", "k", "4", str(SIZE), "400")
    assert proc.stdout is not None
    duration = 0.0
    try:
        for line in proc.stdout:
            word, n, *rest = line.split()
            if word == "done" and n == "0":
                duration = float(rest[0])
            if word == "begin" and n == "1":
                time.sleep(duration * fraction)
                proc.send_signal(signal.SIGKILL)
                break
        else:
            raise AssertionError(f"worker ended early: {proc.communicate()[1]}")
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL


@pytest.mark.asyncio
@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9])
async def test_sigkill_mid_turn_leaves_all_or_nothing(
    backend: tuple[str, str, str], fraction: float
) -> None:
    kind, target, schema = backend
    _kill_mid_turn(kind, target, schema, fraction)
    storage = _open(kind, target, schema)
    try:
        messages = await storage.list_messages("t", resource_id="r")
        await storage.save_turn("t", "r", [])  # the database still takes writes
    finally:
        await storage.close()
    per_turn = Counter(int(m.id.split("-")[1]) for m in messages)
    assert per_turn[0] == SIZE
    for turn, count in per_turn.items():
        assert count == SIZE, f"turn {turn} half-written: {count} of {SIZE} messages"
    assert sorted(per_turn) == list(range(len(per_turn))), "a later turn without an earlier one"
    assert all(m.text.startswith(f"k {m.id.split('-')[1]} ") for m in messages)
