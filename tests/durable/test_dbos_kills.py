"""Durable runs survive their workers being killed (issue 16): 3 worker processes on one
PostgreSQL, killed with SIGKILL at random points while runs stream (at least 20 kills that
hit a worker with runs in flight). Every run completes once, no checkpointed model or tool
call runs again, and every thread holds exactly its one turn (D13)."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import pytest

from tests.durable.kill_harness import soak


async def _drop_database(dsn: str, name: str) -> None:
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


def _database_url(dsn: str, name: str) -> str:
    base, _, _ = dsn.rpartition("/")
    return f"{base}/{name}"


@pytest.mark.asyncio
async def test_runs_complete_once_through_twenty_kills(postgres_dsn: str, new_schema: str) -> None:
    name = f"procession_dbos_{uuid.uuid4().hex[:8]}"
    url = _database_url(postgres_dsn, name)
    try:
        result = await soak(url, postgres_dsn, new_schema, kills=20, seed=16)
    finally:
        await _drop_database(postgres_dsn, name)
    figures = result.summary()
    assert result.landed >= 20, figures
    assert result.wrong_results == [], figures
    assert result.wrong_threads == [], figures
    assert result.repeated_after_checkpoint == [], figures
    assert result.completed == result.runs > 20, figures
    assert len(result.recovery_ms) == result.landed
    asyncio.get_running_loop()  # the soak ran on this test's loop
