"""Killing durable workers at random points: the harness of ``test_dbos_kills.py`` and
``bench/durable_kills.py``.

Workers (``python -m tests.durable.kill_harness worker ...``) run :class:`DurableRuns` of a
``shop`` agent on one DBOS database and one memory schema; each run makes a model call that
asks for two ``charge`` tool calls, runs them, and makes a second model call that answers.
Every model call and tool execution leaves an *effect* row (what it was, and when).

The soak keeps queueing runs while it SIGKILLs workers that have runs in flight (a kill
"lands" when the victim had pending runs) and starts a replacement each time. Then it waits
for every run and checks:

- every run completed once, with the expected answer;
- every thread holds exactly its one turn (nothing lost, doubled or half-written, D13);
- no model call or tool ran again after its checkpoint was taken (effects later than the
  step's completion); calls interrupted before their checkpoint may have run again (counted);
- recovery time: from a kill until each of the victim's runs executes again elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg

from procession import Agent, ToolContext, tool
from procession.testing import FunctionModel, Reply, ToolCallScript

ROOT = Path(__file__).resolve().parents[2]
ANSWER = ["The ", "payment ", "went ", "through."]
TEXT = "Charging." + "".join(ANSWER)
"""The text of every run (D23: the response's text, both steps)."""


def _effects_table(schema: str) -> str:
    return f'"{schema}".effects'


def shop_agent(memory: Any, pool: Any, schema: str, executor: str) -> Agent:
    """The agent every worker serves: its model and tool write effect rows."""
    table = _effects_table(schema)

    async def effect(key: str) -> None:
        await pool.execute(
            f"INSERT INTO {table} (key, executor, at_ms) VALUES ($1, $2, $3)",
            key,
            executor,
            time.time() * 1000,
        )

    @tool
    async def charge(amount: int, context: ToolContext) -> str:
        """Charge the customer's card."""
        await effect(f"tool:{context.idempotency_key}")
        await asyncio.sleep(0.03)  # a window between the effect and the checkpoint
        return f"charged {amount}"

    async def reply(options: Any) -> Reply:
        prompt = options.prompt
        user = next(m for m in prompt if m["role"] == "user")
        text = "".join(p.get("text", "") for p in user["content"] if isinstance(p, dict))
        answered = any(m["role"] == "tool" for m in prompt)
        await effect(f"model:{text}:{int(answered)}")
        if answered:
            return Reply(text=ANSWER, delay=0.03)
        calls = [ToolCallScript("charge", {"amount": 5}, "c1")]
        calls.append(ToolCallScript("charge", {"amount": 7}, "c2"))
        return Reply(text=["Charging."], tool_calls=calls, delay=0.03)

    return Agent(id="shop", model=FunctionModel(reply), tools=[charge], memory=memory)


async def worker(url: str, dsn: str, schema: str, executor: str) -> None:
    """A worker process: serve runs until killed."""
    from procession.durable import DurableRuns
    from procession.memory import Memory
    from procession.memory.postgres import PostgresStorage

    storage = PostgresStorage(dsn, schema=schema)
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=4)
    agent = shop_agent(Memory(storage), pool, schema, executor)
    runs = DurableRuns(  # the soak reads when each call was recorded: checkpoints are kept
        [agent],
        database_url=url,
        executor_id=executor,
        recovery_interval=0.2,
        keep_checkpoints=True,
    )
    await runs.launch()
    print("ready", flush=True)
    await asyncio.Event().wait()


@dataclass
class SoakResult:
    """What a soak saw."""

    runs: int = 0
    kills: int = 0
    landed: int = 0
    completed: int = 0
    wrong_results: list[str] = field(default_factory=list)
    wrong_threads: list[str] = field(default_factory=list)
    repeated_after_checkpoint: list[str] = field(default_factory=list)
    rerun_before_checkpoint: int = 0
    recovery_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        """The figures, for a report."""
        rec = sorted(self.recovery_ms)
        return {
            "runs": self.runs,
            "kills": self.kills,
            "kills_that_landed": self.landed,
            "completed_once": self.completed,
            "wrong_results": len(self.wrong_results),
            "wrong_threads": len(self.wrong_threads),
            "checkpointed_calls_repeated": len(self.repeated_after_checkpoint),
            "calls_rerun_before_their_checkpoint": self.rerun_before_checkpoint,
            "recovery_ms_p50": round(statistics.median(rec), 1) if rec else None,
            "recovery_ms_max": round(rec[-1], 1) if rec else None,
            "seconds": round(self.seconds, 1),
        }


class _Worker:
    def __init__(self, url: str, dsn: str, schema: str) -> None:
        self.executor = f"w-{uuid.uuid4().hex[:8]}"
        self.is_ready = False
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.durable.kill_harness", "worker", url, dsn, schema],
            cwd=ROOT,
            env={**os.environ, "PROCESSION_EXECUTOR": self.executor},
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    async def ready(self) -> None:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(self.process.stdout.readline), 60)
        if line.strip() != "ready":
            raise RuntimeError(f"worker {self.executor} did not start: {line!r}")
        self.is_ready = True

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        if self.process.stdout is not None:  # a reader thread may be at EOF on it: harmless
            with contextlib.suppress(ValueError, OSError):
                self.process.stdout.close()


async def _pending(url: str, executor: str) -> list[str]:
    from dbos import DBOSClient

    client = DBOSClient(system_database_url=url)
    try:
        found = await client.list_workflows_async(
            status="PENDING", executor_id=executor, load_input=False, load_output=False
        )
    finally:
        client.destroy()
    return [w.workflow_id for w in found]


async def _watch_recovery(url: str, victim: str, runs: list[str], killed_at: float) -> float:
    """Milliseconds until every run of the victim executes again (or completed) elsewhere."""
    from dbos import DBOSClient

    client = DBOSClient(system_database_url=url)
    try:
        while True:
            found = await client.list_workflows_async(
                workflow_ids=runs, load_input=False, load_output=False
            )
            moved = [
                w
                for w in found
                if w.status == "SUCCESS" or (w.status == "PENDING" and w.executor_id != victim)
            ]
            if len(moved) == len(runs):
                return (time.monotonic() - killed_at) * 1000
            await asyncio.sleep(0.05)
    finally:
        client.destroy()


async def soak(
    url: str, dsn: str, schema: str, *, kills: int, seed: int, workers: int = 4
) -> SoakResult:
    """Queue runs, kill workers until ``kills`` kills landed, wait, check (module doc)."""
    from procession.durable import enqueue

    rng = random.Random(seed)
    result = SoakResult()
    started = time.monotonic()
    conn = await asyncpg.connect(dsn)
    await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    await conn.execute(
        f"CREATE TABLE IF NOT EXISTS {_effects_table(schema)}"
        " (key text, executor text, at_ms float8)"
    )
    pool = [_Worker(url, dsn, schema) for _ in range(workers)]
    await asyncio.gather(*(w.ready() for w in pool))
    runs: dict[str, int] = {}
    stop = asyncio.Event()

    async def produce() -> None:
        n = 0
        while not stop.is_set():
            run_id = await enqueue(
                url, "shop", f"Pay {n}", run_id=f"run-{n}", thread_id=f"t-{n}", resource_id="ada"
            )
            runs[run_id] = n
            n += 1
            await asyncio.sleep(rng.uniform(0.08, 0.25))

    producer = asyncio.create_task(produce())
    watchers: list[asyncio.Task[float]] = []
    booting: set[asyncio.Task[None]] = set()
    try:
        attempts = 0
        while result.landed < kills and attempts < kills * 6:
            await asyncio.sleep(rng.uniform(0.1, 0.5))
            ready = [w for w in pool if w.is_ready]
            if not ready:
                continue
            attempts += 1
            victim = rng.choice(ready)
            pending = await _pending(url, victim.executor)
            killed_at = time.monotonic()
            victim.kill()
            result.kills += 1
            pool[pool.index(victim)] = replacement = _Worker(url, dsn, schema)
            boot = asyncio.create_task(replacement.ready())
            booting.add(boot)
            boot.add_done_callback(booting.discard)
            if pending:
                result.landed += 1
                watchers.append(
                    asyncio.create_task(_watch_recovery(url, victim.executor, pending, killed_at))
                )
        stop.set()
        await producer
        result.recovery_ms = list(await asyncio.wait_for(asyncio.gather(*watchers), 180))
        await _wait_all(url, list(runs), within=180)
        result.runs = len(runs)
        await _check(url, conn, schema, runs, result)
    finally:
        stop.set()
        producer.cancel()
        for w in pool:
            w.kill()
        for task in [*watchers, *booting]:
            task.cancel()
        await conn.close()
    result.seconds = time.monotonic() - started
    return result


async def _wait_all(url: str, run_ids: list[str], *, within: float) -> None:
    from dbos import DBOSClient

    client = DBOSClient(system_database_url=url)
    deadline = time.monotonic() + within
    try:
        while True:
            found = await client.list_workflows_async(
                workflow_ids=run_ids, load_input=False, load_output=False
            )
            if sum(w.status in ("SUCCESS", "ERROR") for w in found) == len(run_ids):
                return
            if time.monotonic() > deadline:
                left = [w.workflow_id for w in found if w.status not in ("SUCCESS", "ERROR")]
                raise TimeoutError(f"runs not finished: {left[:10]}")
            await asyncio.sleep(0.2)
    finally:
        client.destroy()


async def _check(
    url: str, conn: Any, schema: str, runs: dict[str, int], result: SoakResult
) -> None:
    from dbos import DBOSClient

    client = DBOSClient(system_database_url=url)
    try:
        found = await client.list_workflows_async(workflow_ids=list(runs), load_input=False)
        checkpoints: dict[str, float] = {}
        for w in found:
            output = w.output if isinstance(w.output, dict) else {}
            if w.status == "SUCCESS" and output.get("text") == TEXT:
                result.completed += 1
            else:
                result.wrong_results.append(f"{w.workflow_id}: {w.status} {output or w.error}")
            for step in await client.list_workflow_steps_async(w.workflow_id, load_output=False):
                if step["completed_at_epoch_ms"] is not None:
                    checkpoints[step["function_name"]] = float(step["completed_at_epoch_ms"])
    finally:
        client.destroy()
    checkpoints.update(await _recorded_calls(url))
    await _check_threads(conn, schema, runs, result)
    rows = await conn.fetch(f"SELECT key, at_ms FROM {_effects_table(schema)}")
    _check_effects(rows, runs, checkpoints, result)


async def _recorded_calls(url: str) -> dict[str, float]:
    """When each model and tool call was recorded (``procession.checkpoints``, PostgreSQL)."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT key, extract(epoch FROM created_at) * 1000 AS at_ms FROM procession.checkpoints"
        )
    finally:
        await conn.close()
    return {row["key"]: float(row["at_ms"]) for row in rows}


async def _check_threads(conn: Any, schema: str, runs: dict[str, int], result: SoakResult) -> None:
    rows = await conn.fetch(
        f'SELECT thread_id, role, body::text AS body FROM "{schema}".messages ORDER BY seq'
    )
    threads: dict[str, list[tuple[str, str]]] = {}
    for row in rows:
        threads.setdefault(row["thread_id"], []).append((row["role"], row["body"]))
    for run_id, n in runs.items():
        stored = threads.pop(f"t-{n}", [])
        roles = [role for role, _ in stored]
        bodies = "".join(body for _, body in stored)
        answers = bodies.count("through.")
        if roles != ["user", "assistant"] or f"Pay {n}" not in bodies or answers != 1:
            result.wrong_threads.append(f"{run_id}: {roles}, the answer {answers} times")
    if threads:  # a turn stored in a thread no run named
        result.wrong_threads.append(f"unexpected threads: {sorted(threads)}")


def _check_effects(
    rows: list[Any], runs: dict[str, int], checkpoints: dict[str, float], result: SoakResult
) -> None:
    by_key: dict[str, list[float]] = {}
    for row in rows:
        by_key.setdefault(row["key"], []).append(float(row["at_ms"]))
    for run_id, n in runs.items():
        steps = {
            f"model:Pay {n}:0": f"{run_id}:model:0:0",
            f"model:Pay {n}:1": f"{run_id}:model:1:0",
            f"tool:{run_id}:c1": f"{run_id}:tool:0:0:c1",
            f"tool:{run_id}:c2": f"{run_id}:tool:0:0:c2",
        }
        for effect, step in steps.items():
            times = by_key.get(effect, [])
            done = checkpoints.get(step)
            if not times or done is None:
                result.repeated_after_checkpoint.append(f"{effect}: never ran or no checkpoint")
                continue
            late = [t for t in times if t > done]
            if late:
                result.repeated_after_checkpoint.append(f"{effect}: ran after its checkpoint")
            result.rerun_before_checkpoint += len(times) - 1 - len(late)


def main() -> None:
    """``worker URL DSN SCHEMA`` (the executor id comes from ``PROCESSION_EXECUTOR``)."""
    if sys.argv[1] == "worker":
        url, dsn, schema = sys.argv[2:5]
        asyncio.run(worker(url, dsn, schema, os.environ["PROCESSION_EXECUTOR"]))


if __name__ == "__main__":
    main()
