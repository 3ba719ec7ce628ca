"""Several processes at once: migrations, concurrent writers, and SIGKILL at random points.

The kills are random; a failure names ``PROCESSION_CRASH_SEED`` to draw the same kill points
again (timing still varies). ``bench/crash_storage.py`` runs a hundred of them per backend.
"""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
from pathlib import Path

import asyncpg
import pytest
from tests.memory.crash_harness import check_store, open_storage, run_case, spawn

from procession.memory.postgres import MIGRATIONS as POSTGRES_MIGRATIONS
from procession.memory.sqlite import MIGRATIONS as SQLITE_MIGRATIONS
from procession.memory.storage import Storage, WorkingMemoryUpdate
from procession.messages.message import Message


def finish(proc: subprocess.Popen[str], timeout: float = 120) -> str:
    """Wait for a worker; its stdout, or an AssertionError with its stderr."""
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"worker failed ({proc.returncode}): {err}"
    return out


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
    storage: Storage = open_storage(kind, target, schema)
    try:
        ids = [m.id for m in await storage.list_messages("t", resource_id="r")]
    finally:
        await storage.close()
    assert len(ids) == len(set(ids)) == 4 * 5 * 50
    for tag in tags:
        for n in range(5):
            start = ids.index(f"{tag}-{n}-0")
            assert ids[start : start + 50] == [f"{tag}-{n}-{i}" for i in range(50)]


CRASH_SEED = int(os.environ.get("PROCESSION_CRASH_SEED") or random.randrange(2**32))


@pytest.mark.asyncio
async def test_a_writer_killed_at_random_points_leaves_whole_turns_only(  # D13, D30, D34
    backend: tuple[str, str, str],
) -> None:
    kind, target, schema = backend
    rng = random.Random(f"{CRASH_SEED}-{kind}")
    finish(spawn(kind, target, schema, "open"))
    outcomes = [await run_case(kind, target, schema, rng) for _ in range(3)]
    seed = f"PROCESSION_CRASH_SEED={CRASH_SEED}"
    for outcome in outcomes:
        assert outcome.problems == [], f"{seed}: {outcome.problems}"
    # The valid turns at the end keep a worker busy past its kill; a kill that still comes too
    # late leaves a finished run, which the check covers too.
    assert sum(o.killed for o in outcomes) >= 2, f"{seed}: workers finished before the kill"
    assert all(o.stored >= 1 for o in outcomes), seed  # turn 0 completes before any kill


@pytest.mark.asyncio
async def test_the_check_finds_half_written_and_refused_turns(tmp_path: Path) -> None:
    storage = open_storage("sqlite", str(tmp_path / "half.db"), "")
    tag = "kcheck"
    turn = [Message.user(f"{tag} 0 {i} x", id=f"{tag}-0-{i}") for i in range(4)]
    try:
        await storage.save_turn("t-anchor", "r", [Message.user("anchor", id=f"{tag}-anchor")])
        await storage.save_turn("t", "r", turn[:2], working_memory=WorkingMemoryUpdate("turn 0"))
        assert await check_store(storage, "t", "r", tag, 4) == (
            1,
            ["turn 0 half-written: 2 of 4 messages", "0 vectors for 2 messages"],
        )
        await storage.save_turn("t", "r", turn[2:])
        vectors = [(m.id, "t", "r", [1.0, 0.0]) for m in turn]
        await storage.upsert_vectors(vectors)
        refused = Message.user(f"{tag} 1 0 x", id=f"{tag}-1-0")
        await storage.save_turn("t", "r", [refused], vectors=[(refused.id, "t", "r", [1.0])])
        _, problems = await check_store(storage, "t", "r", tag, 4)
        assert "turn 1 (n) should have been refused" in problems
        assert "working memory 'turn 0' after turn 1" in problems
    finally:
        await storage.close()
