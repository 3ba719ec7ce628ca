"""SQLite specifics: WAL, the worker thread, migrations, reopening, closing, vectors."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from procession.errors import StorageError
from procession.memory import vectors
from procession.memory.sqlite import MIGRATIONS, SQLiteStorage
from procession.messages.message import Message


@pytest.mark.asyncio
async def test_wal_migrations_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    storage = SQLiteStorage(path)
    await storage.save_turn("t", "r", [Message.user("hello", id="m1")])
    await storage.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT version FROM schema_migrations").fetchall() == [
            (v,) for v, _ in MIGRATIONS
        ]
    again = SQLiteStorage(path)
    try:
        assert [m.text for m in await again.list_messages("t", resource_id="r")] == ["hello"]
    finally:
        await again.close()


@pytest.mark.asyncio
async def test_work_runs_on_one_worker_thread_and_the_loop_keeps_running(tmp_path: Path) -> None:
    storage = SQLiteStorage(tmp_path / "m.db")
    seen: set[str] = set()
    big = [Message.user("x" * 2000) for _ in range(3000)]
    ticks = 0

    async def heartbeat() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    beat = asyncio.create_task(heartbeat())
    try:
        await storage._run(lambda conn: seen.add(threading.current_thread().name))
        started = time.perf_counter()
        before = ticks
        await storage._run(lambda conn: time.sleep(0.2))  # a slow unit of work
        assert ticks - before >= 20, "the event loop was blocked during a unit of work"
        await storage.save_turn("t", "r", big)
        await storage._run(lambda conn: seen.add(threading.current_thread().name))
        assert time.perf_counter() - started < 60
    finally:
        beat.cancel()
        await storage.close()
    assert len(seen) == 1
    assert next(iter(seen)).startswith("procession-sqlite")
    assert threading.current_thread().name not in seen


@pytest.mark.asyncio
async def test_closed_storage_refuses_calls() -> None:
    storage = SQLiteStorage(":memory:")
    await storage.save_turn("t", "r", [Message.user("hi")])
    await storage.close()
    await storage.close()  # idempotent
    with pytest.raises(StorageError, match="closed"):
        await storage.list_messages("t", resource_id="r")


@pytest.mark.asyncio
async def test_bad_arguments_are_storage_errors() -> None:
    storage = SQLiteStorage(":memory:")
    try:
        with pytest.raises(StorageError, match="thread_id"):
            await storage.save_turn("", "r", [])
        with pytest.raises(StorageError, match="metadata"):
            await storage.create_thread(resource_id="r", metadata={"x": object()})
        with pytest.raises(StorageError, match="sequence of ids"):
            await storage.get_messages_by_ids("m1", resource_id="r")
    finally:
        await storage.close()


@pytest.mark.asyncio
async def test_unopenable_file_is_a_storage_error(tmp_path: Path) -> None:
    storage = SQLiteStorage(tmp_path / "missing-dir" / "m.db")
    try:
        with pytest.raises(StorageError, match="cannot open"):
            await storage.get_resource("r")
    finally:
        await storage.close()


@pytest.mark.parametrize("numpy", [True, False])
def test_rank_with_and_without_numpy(monkeypatch: pytest.MonkeyPatch, numpy: bool) -> None:
    if not numpy:
        monkeypatch.setattr(vectors, "_NUMPY", [None])
    rows = [
        ("a", "t", vectors.to_blob([1.0, 0.0])),
        ("b", "t", vectors.to_blob([0.6, 0.8])),
        ("zero", "t", vectors.to_blob([0.0, 0.0])),
        ("short", "t", vectors.to_blob([1.0])),
    ]
    hits = vectors.rank([1.0, 0.0], rows, top_k=5, threshold=None)
    assert [h.message_id for h in hits] == ["a", "b", "zero"]
    assert [round(h.score, 5) for h in hits] == [1.0, 0.6, 0.0]
    assert vectors.rank([1.0, 0.0], rows, top_k=0, threshold=None) == []
    assert [h.message_id for h in vectors.rank([1.0, 0.0], rows, top_k=5, threshold=0.7)] == ["a"]
