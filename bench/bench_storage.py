"""Storage benchmarks: persist a 20-message turn, load 100 messages of history.

Run: ``.venv/bin/python bench/bench_storage.py`` (PostgreSQL from
``PROCESSION_TEST_POSTGRES_DSN`` or ``.pgdata/dsn``; start it with ``scripts/services.sh``).
Prints median and p95 per operation and backend and writes ``bench/results/storage.json``.
The SQLite target is at most 2 ms for each operation.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from procession.memory.sqlite import SQLiteStorage
from procession.memory.storage import Storage
from procession.messages.message import Message

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "storage.json"
ROUNDS = 200


def _turn(n: int) -> list[Message]:
    return [
        (Message.user if i % 2 == 0 else Message.assistant)(f"turn {n} message {i} " + "x" * 200)
        for i in range(20)
    ]


async def _time(call: Callable[[], Awaitable[object]], rounds: int) -> dict[str, float]:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return {
        "median_ms": round(statistics.median(samples), 3),
        "p95_ms": round(samples[int(len(samples) * 0.95) - 1], 3),
        "rounds": rounds,
    }


async def bench(storage: Storage) -> dict[str, dict[str, float]]:
    """Time ``save_turn`` (20 messages) and ``list_messages(last=100)`` on a 1000-message thread."""
    resource, thread = "bench", f"t-{uuid.uuid4().hex}"
    for n in range(50):  # 1000 messages of history
        await storage.save_turn(thread, resource, _turn(n))
    turns = iter(range(50, 50 + ROUNDS + 10))
    save = await _time(lambda: storage.save_turn(thread, resource, _turn(next(turns))), ROUNDS)
    load = await _time(
        lambda: storage.list_messages(thread, resource_id=resource, last=100), ROUNDS
    )
    return {"save_turn_20": save, "load_last_100": load}


def _postgres_dsn() -> str | None:
    dsn = os.environ.get("PROCESSION_TEST_POSTGRES_DSN")
    dsn_file = ROOT / ".pgdata" / "dsn"
    if not dsn and dsn_file.is_file():
        dsn = dsn_file.read_text().strip()
    return dsn or None


async def main() -> None:
    """Run every backend that is available and write the results."""
    results: dict[str, object] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    with tempfile.TemporaryDirectory() as folder:
        sqlite = SQLiteStorage(Path(folder) / "bench.db")
        try:
            results["sqlite"] = await bench(sqlite)
        finally:
            await sqlite.close()
    dsn = _postgres_dsn()
    if dsn is not None:
        from procession.memory.postgres import PostgresStorage

        postgres = PostgresStorage(dsn, schema="bench")
        try:
            results["postgres"] = await bench(postgres)
        finally:
            await postgres.close()
    for backend in ("sqlite", "postgres"):
        for op, figures in dict(results.get(backend, {})).items():  # type: ignore[call-overload]
            print(
                f"{backend:9} {op:14} median {figures['median_ms']:7.3f} ms"
                f"  p95 {figures['p95_ms']:7.3f} ms"
            )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    asyncio.run(main())
