"""Per-chunk and per-call costs of the budget, cache, tool and output guardrails.

Run with ``python bench/bench_guardrails_misc.py``. Prints medians (microseconds) and writes
``bench/results/guardrails_misc.json``:

- ``TokenLimiter`` and ``BatchParts`` per 5-character text delta, on 1 MB of text, called as
  the runner calls a stream hook (a plain call per chunk), and the MB/s that makes;
- ``TokenCostControl`` per step (one ledger query on SQLite over 10,000 rows);
- ``ResponseCache`` key derivation and a hit, per model call (in memory and SQLite);
- ``ToolSearch`` per search over 500 tools.
"""

from __future__ import annotations

import asyncio
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from procession import (
    BatchParts,
    Chunk,
    InMemoryCache,
    RequestContext,
    ResponseCache,
    SQLiteCache,
    TokenCostControl,
    TokenLimiter,
    ToolSearch,
    TracingContext,
    tool,
)
from procession.memory.ledger import UsageRecord
from procession.memory.sqlite import SQLiteStorage
from procession.testing import ScriptedModel

RESULTS = Path(__file__).parent / "results" / "guardrails_misc.json"
TEXT = (
    "The quick brown fox jumps over the lazy dog; 卡號已寄出。 Order A-1001 shipped. " * 14_000
)[:1_000_000]


def _never(*_: Any, **__: Any) -> None:
    raise AssertionError("the benchmark's budgets are never reached")


def _median_us(samples: list[float]) -> float:
    return round(statistics.median(samples), 3)


def per_chunk(make: Callable[[], Callable[[Chunk], Any]], repeats: int = 5) -> dict[str, float]:
    """µs per chunk and MB/s for 1 MB in 5-character deltas (median of ``repeats`` passes)."""
    chunks = [
        Chunk("text-delta", {"id": "t", "text": TEXT[i : i + 5]}) for i in range(0, len(TEXT), 5)
    ]
    per: list[float] = []
    for _ in range(repeats):
        call = make()
        start = time.perf_counter()
        for chunk in chunks:
            call(chunk)
        elapsed = time.perf_counter() - start
        per.append(elapsed / len(chunks) * 1e6)
    us = statistics.median(per)
    return {"us_per_chunk": round(us, 3), "mb_per_s": round(5 / us, 1), "chunks": len(chunks)}


def bench_limiter() -> dict[str, float]:
    def make() -> Callable[[Chunk], Any]:
        limiter = TokenLimiter(10_000_000)  # never reached: the counting path
        state: dict[str, Any] = {}
        hook = limiter.process_output_stream

        def call(chunk: Chunk) -> Any:
            return hook(part=chunk, state=state, abort=_never, writer=None)

        return call

    return per_chunk(make)


def bench_batch() -> dict[str, float]:
    def make() -> Callable[[Chunk], Any]:
        batcher = BatchParts(batch_size=8)
        state: dict[str, Any] = {}
        hook = batcher.process_output_stream
        return lambda chunk: hook(part=chunk, state=state)

    return per_chunk(make)


async def bench_cost(path: Path) -> dict[str, float]:
    storage = SQLiteStorage(path)
    now = datetime.now(UTC)
    for i in range(10_000):
        await storage.record_usage(
            UsageRecord(run_id=f"r{i}", agent_id="a", model="openai/gpt-4o", cost=0.0001,
                        resource_id=f"user-{i % 100}", created_at=now - timedelta(hours=i))
        )  # fmt: skip
    guard = TokenCostControl(storage=storage, max_cost=1_000.0)
    context = RequestContext(resource_id="user-7")
    tracing = TracingContext(run_id="run", agent_id="a")
    samples = []
    for _ in range(300):
        start = time.perf_counter()
        await guard.process_input_step(
            state={}, request_context=context, tracing_context=tracing, abort=_never
        )
        samples.append((time.perf_counter() - start) * 1e6)
    await storage.close()
    return {"us_per_step": _median_us(samples)}


async def bench_cache(backend: Any) -> dict[str, float]:
    cache = ResponseCache(backend)
    model = ScriptedModel(provider="openai", model_id="gpt-4o")
    prompt = [{"role": "system", "content": "You help."}] + [
        {"role": "user", "content": [{"type": "text", "text": f"question {i} " * 20}]}
        for i in range(20)
    ]
    chunks = [{"type": "text-delta", "payload": {"id": "t", "text": "x" * 5}}] * 200
    chunks.append({"type": "finish", "payload": {"stepResult": {"reason": "stop"}}})
    context = RequestContext(resource_id="ada")
    tracing = TracingContext(run_id="run", agent_id="a")
    state: dict[str, Any] = {}
    args: dict[str, Any] = {"prompt": prompt, "model": model, "step_number": 0, "state": state,
            "request_context": context, "tracing_context": tracing}  # fmt: skip
    await cache.process_llm_request(**args)
    await cache.process_llm_response(chunks=chunks, from_cache=False, state=state)
    samples = []
    for _ in range(300):
        start = time.perf_counter()
        hit = await cache.process_llm_request(**args)
        samples.append((time.perf_counter() - start) * 1e6)
        assert hit is not None
    return {"us_per_hit": _median_us(samples)}


def _catalog(count: int) -> list[Any]:
    words = ["weather", "invoice", "flight", "hotel", "currency", "stock", "email", "calendar"]
    tools = []
    for i in range(count):

        def function(x: str) -> str:
            return x

        function.__name__ = f"{words[i % 8]}_tool_{i}"
        function.__doc__ = f"Handles {words[i % 8]} and {words[(i * 3) % 8]} tasks, variant {i}."
        tools.append(tool(function))
    return tools


async def bench_search() -> dict[str, float]:
    search = ToolSearch(_catalog(500))
    context = RequestContext(thread_id="t")
    samples = []
    for _ in range(100):
        start = time.perf_counter()
        await search.search("book a hotel and a flight", context)
        samples.append((time.perf_counter() - start) * 1e6)
    return {"us_per_search": _median_us(samples), "tools": 500}


async def main() -> None:
    results: dict[str, Any] = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "TokenLimiter (o200k) per 5-char delta": bench_limiter(),
        "BatchParts(batch_size=8) per 5-char delta": bench_batch(),
    }
    with tempfile.TemporaryDirectory() as tmp:
        results["TokenCostControl per step (SQLite, 10k rows)"] = await bench_cost(
            Path(tmp) / "ledger.db"
        )
        results["ResponseCache hit (in memory)"] = await bench_cache(InMemoryCache())
        sqlite_cache = SQLiteCache(Path(tmp) / "cache.db")
        results["ResponseCache hit (SQLite)"] = await bench_cache(sqlite_cache)
        await sqlite_cache.close()
    results["ToolSearch per search"] = await bench_search()
    for name, value in results.items():
        print(f"{name}: {value}")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main())
