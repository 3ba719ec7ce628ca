"""Scaling figures: runs per second with 1 and 3 replicas, and durability's cost per step.

Run: ``.venv/bin/python bench/bench_scaling.py [--runs 300] [--concurrency 60]``
(PostgreSQL from ``PROCESSION_TEST_POSTGRES_DSN`` or ``.pgdata/dsn``).

- **Replicas**: N uvicorn processes serving ``tests/scaling/replica_app.py`` (memory, thread
  locks and the resumable chunk log on PostgreSQL; a scripted model with no delay); the
  client streams ``--runs`` turns, each on its own thread, ``--concurrency`` at a time,
  spread over the replicas. Runs per second = turns / wall time.
- **Durability**: the same 4-step run (three tool steps, then the answer) executed plainly
  and as a DBOS workflow on PostgreSQL (``DurableRuns``); the difference per step (one model
  call and one tool call checkpointed per step).
"""

from __future__ import annotations

import argparse
import asyncio
import json
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


def _agent() -> Agent:
    @tool
    def lookup(n: int) -> str:
        """Look something up."""
        return f"found {n}"

    def reply(options: Any) -> Reply:
        done = sum(1 for m in options.prompt if m["role"] == "tool")
        if done >= 3:
            return Reply(text=["Done."])
        return Reply(tool_calls=[ToolCallScript("lookup", {"n": done}, f"c{done}")])

    return Agent(id="steps", model=FunctionModel(reply), tools=[lookup])


async def _durability(dsn: str, runs: int) -> dict[str, float]:
    from procession.durable import DurableRuns

    agent = _agent()
    started = time.perf_counter()
    for _ in range(runs):
        await agent.generate("go")
    plain = (time.perf_counter() - started) / runs
    name = f"procession_dbos_{uuid.uuid4().hex[:8]}"
    durable = DurableRuns([agent], database_url=f"{dsn.rpartition('/')[0]}/{name}")
    await durable.launch()
    try:
        run = await durable.start("steps", "go")
        await run.result()
        started = time.perf_counter()
        for _ in range(runs):
            run = await durable.start("steps", "go")
            await run.result()
        durable_run = (time.perf_counter() - started) / runs
    finally:
        await durable.close()
        import asyncpg

        conn = await asyncpg.connect(dsn)
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()
    steps = 4
    return {
        "plain_run_ms": round(plain * 1000, 2),
        "durable_run_ms": round(durable_run * 1000, 2),
        "overhead_per_step_ms": round((durable_run - plain) * 1000 / steps, 2),
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=60)
    parser.add_argument("--durable-runs", type=int, default=30)
    args = parser.parse_args()
    dsn = find_dsn()
    if dsn is None:
        raise SystemExit("no PostgreSQL: set PROCESSION_TEST_POSTGRES_DSN")
    figures: dict[str, Any] = {}
    for count in (1, 3):
        figures[f"runs_per_second_{count}_replicas"] = round(
            await _replicas(dsn, count, args.runs, args.concurrency), 1
        )
    figures["durability"] = await _durability(dsn, args.durable_runs)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
