"""Scaling figures: runs per second with 1 and 3 replicas, and durability's cost per step.

Run: ``.venv/bin/python bench/bench_scaling.py [--runs 300] [--concurrency 60]``
(PostgreSQL from ``PROCESSION_TEST_POSTGRES_DSN`` or ``.pgdata/dsn``).

- **Replicas**: N uvicorn processes serving ``tests/scaling/replica_app.py`` (memory, thread
  locks and the resumable chunk log on PostgreSQL; a scripted model with no delay); the
  client streams ``--runs`` turns, each on its own thread, ``--concurrency`` at a time,
  spread over the replicas. Runs per second = turns / wall time.
- **Durability**: runs of 4 and 12 agent steps (tool steps, then the answer) executed
  plainly and as DBOS workflows on PostgreSQL (``DurableRuns``), medians of ``--repeats``;
  the cost of one more step (a model and a tool call recorded) is the slope between them,
  the run's own cost (the workflow's start and end) the rest. ``--durable-only`` skips the
  replicas.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx2 as httpx  # noqa: E402
from tests.memory.crash_harness import drop_schema, find_dsn  # noqa: E402
from tests.scaling.test_replicas import start_replicas  # noqa: E402

from procession import Agent, tool  # noqa: E402
from procession.testing import FunctionModel, Reply, ToolCallScript  # noqa: E402


async def _replicas(dsn: str, count: int, runs: int, concurrency: int) -> float:
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    group = start_replicas(dsn, schema, count, SCALING_DELAY="0")
    urls = next(group)
    gate = asyncio.Semaphore(concurrency)
    try:
        async with httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=500)) as c:

            async def turn(n: int) -> None:
                body = {"messages": "hi", "memory": {"thread": f"t{n}", "resource": "ada"}}
                async with gate:
                    response = await c.post(
                        f"{urls[n % count]}/api/agents/counter/stream", json=body
                    )
                    assert response.status_code == 200
                    assert response.text.endswith("[DONE]\n\n")

            await asyncio.gather(*(turn(n) for n in range(20)))  # warm up
            started = time.perf_counter()
            await asyncio.gather(*(turn(n) for n in range(20, 20 + runs)))
            return runs / (time.perf_counter() - started)
    finally:
        group.close()
        await drop_schema(dsn, schema)


def _agent(tool_steps: int) -> Agent:
    @tool
    def lookup(n: int) -> str:
        """Look something up."""
        return f"found {n}"

    def reply(options: Any) -> Reply:
        done = sum(1 for m in options.prompt if m["role"] == "tool")
        if done >= tool_steps:
            return Reply(text=["Done."])
        return Reply(tool_calls=[ToolCallScript("lookup", {"n": done}, f"c{done}")])

    return Agent(id=f"steps{tool_steps}", model=FunctionModel(reply), tools=[lookup])


async def _per_run(durable: Any, agent: Agent, runs: int) -> tuple[float, float]:
    """Seconds per run, plain and as a durable run (one after the other)."""
    started = time.perf_counter()
    for _ in range(runs):
        await agent.generate("go")
    plain = (time.perf_counter() - started) / runs
    started = time.perf_counter()
    for _ in range(runs):
        run = await durable.start(agent.id, "go")
        await run.result()
    return plain, (time.perf_counter() - started) / runs


async def _durability(dsn: str, runs: int, repeats: int) -> dict[str, float]:
    """Durable minus plain, per run, for runs of 4 and 12 agent steps (3 and 11 tool steps,
    then the answer), each the median of ``repeats``; the slope is the cost of one more step
    (a model and a tool call recorded), the rest the run's own (the workflow, the thread)."""
    import asyncpg

    from procession.durable import DurableRuns

    short, long = _agent(3), _agent(11)
    name = f"procession_dbos_{uuid.uuid4().hex[:8]}"
    durable = DurableRuns([short, long], database_url=f"{dsn.rpartition('/')[0]}/{name}")
    await durable.launch()
    extra: dict[int, list[float]] = {4: [], 12: []}
    try:
        for agent in (short, long):  # warm up
            await _per_run(durable, agent, 3)
        for _ in range(repeats):
            for steps, agent in ((4, short), (12, long)):
                plain, durable_run = await _per_run(durable, agent, runs)
                extra[steps].append((durable_run - plain) * 1000)
    finally:
        await durable.close()
        conn = await asyncpg.connect(dsn)
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()
    four, twelve = statistics.median(extra[4]), statistics.median(extra[12])
    per_step = (twelve - four) / 8
    return {
        "overhead_4_step_run_ms": round(four, 2),
        "overhead_12_step_run_ms": round(twelve, 2),
        "overhead_per_step_ms": round(per_step, 2),
        "overhead_per_run_ms": round(four - 4 * per_step, 2),
        "overhead_per_step_4_step_run_ms": round(four / 4, 2),
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=60)
    parser.add_argument("--durable-runs", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5, help="medians of this many")
    parser.add_argument("--durable-only", action="store_true", help="skip the replicas")
    args = parser.parse_args()
    dsn = find_dsn()
    if dsn is None:
        raise SystemExit("no PostgreSQL: set PROCESSION_TEST_POSTGRES_DSN")
    figures: dict[str, Any] = {}
    for count in () if args.durable_only else (1, 3):
        figures[f"runs_per_second_{count}_replicas"] = round(
            await _replicas(dsn, count, args.runs, args.concurrency), 1
        )
    figures["durability"] = await _durability(dsn, args.durable_runs, args.repeats)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
