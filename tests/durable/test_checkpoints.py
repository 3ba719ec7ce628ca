"""Model and tool calls recorded in ``procession.checkpoints`` (decision 0201): executed
again, a run makes none of its recorded calls, and two executions cannot both record one."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
import pytest_asyncio

from procession import Agent, tool
from procession.durable import DBOSJournal
from procession.durable.checkpoints import CheckpointConflict, Checkpoints
from procession.testing import FunctionModel, Reply, ToolCallScript
from tests.durable.test_dbos_kills import _database_url, _drop_database


@pytest_asyncio.fixture
async def checkpoints(postgres_dsn: str) -> AsyncIterator[Checkpoints]:
    name = f"procession_cp_{uuid.uuid4().hex[:8]}"
    conn = await asyncpg.connect(postgres_dsn)
    await conn.execute(f'CREATE DATABASE "{name}"')
    await conn.close()
    store = await Checkpoints.open(_database_url(postgres_dsn, name))
    try:
        yield store
    finally:
        await store.close()
        await _drop_database(postgres_dsn, name)


def _agent(calls: list[str]) -> Agent:
    @tool
    def lookup(n: int) -> str:
        """Look something up."""
        calls.append(f"tool {n}")
        return f"found {n}"

    def reply(options: Any) -> Reply:
        calls.append("model")
        if any(m["role"] == "tool" for m in options.prompt):
            return Reply(text=["Found ", "it."])
        return Reply(tool_calls=[ToolCallScript("lookup", {"n": 3}, "c1")])

    return Agent(id="steps", model=FunctionModel(reply), tools=[lookup])


async def _execute(agent: Agent, store: Checkpoints, run_id: str) -> Any:
    journal = DBOSJournal(checkpoints=await store.run(run_id))
    stream = agent.stream("go", run_id=run_id, journal=journal)
    chunks = [chunk.type async for chunk in stream]
    return chunks, await stream.result()


@pytest.mark.asyncio
async def test_an_execution_again_makes_no_recorded_call(checkpoints: Checkpoints) -> None:
    calls: list[str] = []
    agent = _agent(calls)
    first, result = await _execute(agent, checkpoints, "run-1")
    assert calls == ["model", "tool 3", "model"]
    again, replayed = await _execute(agent, checkpoints, "run-1")
    assert calls == ["model", "tool 3", "model"]  # nothing made again
    assert again == first  # the same chunks, replayed
    assert replayed.text == result.text == "Found it."
    assert replayed.tool_results[0].result == "found 3"
    await _execute(agent, checkpoints, "run-2")  # another run is its own
    assert calls.count("model") == 4


@pytest.mark.asyncio
async def test_two_executions_cannot_both_record_a_call(checkpoints: Checkpoints) -> None:
    one, other = await checkpoints.run("run-1"), await checkpoints.run("run-1")
    await one.record("run-1:tool:0:0:c1", (True, "first"))
    with pytest.raises(CheckpointConflict, match="recorded by another execution"):
        await other.record("run-1:tool:0:0:c1", (True, "second"))
    assert (await checkpoints.run("run-1")).get("run-1:tool:0:0:c1") == (True, [True, "first"])
    assert other.get("run-1:tool:0:0:c2") == (False, None)
