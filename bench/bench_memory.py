"""Memory benchmarks: what memory adds to a run, and embedding latency.

Run: ``.venv/bin/python bench/bench_memory.py``. Each run is ``agent.generate()`` against a
scripted model (five text deltas), so the figures are the runtime's and memory's own cost.
Memory runs use a SQLite file whose thread already holds 40 messages; each run loads the last
10 and stores its turn. Prints median and p95 per case and writes
``bench/results/memory.json``.
"""

from __future__ import annotations

import asyncio
import json
import platform
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from procession import Agent
from procession.memory import (
    HashEmbedder,
    Memory,
    MiniLMEmbedder,
    SemanticRecallConfig,
    SQLiteStorage,
)
from procession.testing import Reply, ScriptedModel

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "memory.json"
ROUNDS = 200


def _stats(samples: list[float]) -> dict[str, float]:
    samples = sorted(samples)
    return {
        "median_ms": round(statistics.median(samples), 3),
        "p95_ms": round(samples[max(0, int(len(samples) * 0.95) - 1)], 3),
        "rounds": len(samples),
    }


async def _time(call: Callable[[], Awaitable[object]], rounds: int) -> dict[str, float]:
    for _ in range(5):  # warm up
        await call()
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return _stats(samples)


def _agent(memory: Memory | None) -> Agent:
    model = ScriptedModel(
        [Reply(text=["Sure, ", "here ", "is ", "the ", "answer."])], repeat_last=True
    )
    return Agent(id="bench", model=model, memory=memory, instructions="Be brief.")


async def _runs(memory: Memory | None, rounds: int, thread: str) -> dict[str, float]:
    agent = _agent(memory)
    counter = iter(range(1_000_000))
    if memory is not None:  # 40 messages of history
        for _ in range(20):
            await agent.generate("warm history", thread_id=thread, resource_id="bench")

    async def run() -> None:
        question = f"question {next(counter)} about the weather in Oslo"
        if memory is None:
            await agent.generate(question)
        else:
            await agent.generate(question, thread_id=thread, resource_id="bench")

    return await _time(run, rounds)


async def _embedding(minilm: MiniLMEmbedder) -> dict[str, Any]:
    started = time.perf_counter()
    minilm.load()
    load_ms = (time.perf_counter() - started) * 1000
    single = await _time(lambda: minilm.embed(["What is my favourite colour?"]), 50)
    batch = [f"sentence {i} about topic {i % 7} with a few more words" for i in range(32)]
    batch_figures = await _time(lambda: minilm.embed(batch), 10)
    hashed = HashEmbedder()
    return {
        "minilm_load_ms": round(load_ms, 1),
        "minilm_one_sentence": single,
        "minilm_batch_32_per_sentence_ms": round(batch_figures["median_ms"] / 32, 3),
        "hash_one_sentence": await _time(lambda: hashed.embed(["What is my colour?"]), ROUNDS),
    }


async def main() -> None:
    """Run every case and write the results."""
    results: dict[str, Any] = {"python": platform.python_version(), "machine": platform.machine()}
    runs: dict[str, dict[str, float]] = {}
    runs["no_memory"] = await _runs(None, ROUNDS, "")
    with tempfile.TemporaryDirectory() as folder:
        storage = SQLiteStorage(Path(folder) / "bench.db")
        try:
            runs["history"] = await _runs(Memory(storage), ROUNDS, "history")
            runs["history_working_memory"] = await _runs(
                Memory(storage, working_memory=True), ROUNDS, "working"
            )
            hashed = SemanticRecallConfig(embedder=HashEmbedder())
            runs["history_recall_hash"] = await _runs(
                Memory(storage, semantic_recall=hashed), ROUNDS, "recall-hash"
            )
            minilm = MiniLMEmbedder()
            results["embedding"] = await _embedding(minilm)
            recall = SemanticRecallConfig(embedder=minilm)
            runs["history_recall_minilm"] = await _runs(
                Memory(storage, semantic_recall=recall), 50, "recall-minilm"
            )
        finally:
            await storage.close()
    base = runs["no_memory"]["median_ms"]
    for name, figures in runs.items():
        figures["overhead_ms"] = round(figures["median_ms"] - base, 3)
        print(
            f"run {name:24} median {figures['median_ms']:7.3f} ms  p95 {figures['p95_ms']:7.3f} ms"
            f"  overhead {figures['overhead_ms']:7.3f} ms"
        )
    results["runs"] = runs
    embedding = results["embedding"]
    print(
        f"MiniLM load {embedding['minilm_load_ms']} ms, one sentence "
        f"{embedding['minilm_one_sentence']['median_ms']} ms, batch of 32 "
        f"{embedding['minilm_batch_32_per_sentence_ms']} ms/sentence; hash embedder "
        f"{embedding['hash_one_sentence']['median_ms']} ms"
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    asyncio.run(main())
