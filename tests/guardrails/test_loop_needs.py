"""What the guardrails need from the agent loop: a usage-ledger row for every run that called a
model, whatever its outcome, and the ``structured_output={"schema", "model"}`` call option."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from procession import Agent, Chunk, Usage
from procession.memory import Memory
from procession.memory.sqlite import SQLiteStorage
from procession.testing import Reply, ScriptedModel


class Block:
    id = "block"

    def process_output_step(self, *, abort: Any, **_: Any) -> None:
        abort("blocked after the model answered")


@pytest.mark.asyncio
async def test_every_run_that_called_the_model_leaves_one_ledger_row(tmp_path: Path) -> None:
    memory = Memory(SQLiteStorage(tmp_path / "m.db"))
    model = ScriptedModel(
        [Reply(text=["hi"], usage=Usage(1000, 10)), Reply(text=["no"], usage=Usage(500, 5))],
        provider="openai",
        model_id="gpt-4o",
    )
    agent = Agent(id="support", model=model, memory=memory)
    done = await agent.generate("hello", thread_id="t", resource_id="ada")
    blocked = await agent.generate(
        "again", thread_id="t", resource_id="ada", output_processors=[Block()]
    )
    assert blocked.tripwire is not None
    rows = {r.run_id: r for r in await memory.storage.list_usage(resource_id="ada")}
    assert set(rows) == {done.run_id, blocked.run_id}
    assert rows[done.run_id].input_tokens == 1000
    assert rows[done.run_id].model == "openai/gpt-4o"
    assert rows[done.run_id].cost is not None
    assert rows[blocked.run_id].output_tokens == 5  # a blocked run still spent tokens
    assert rows[blocked.run_id].thread_id == "t"
    await memory.storage.close()


class Answer(BaseModel):
    city: str


@pytest.mark.asyncio
async def test_the_structured_output_call_option_adds_the_structuring_processor() -> None:
    structurer = ScriptedModel(['{"city": "Lima"}'])
    agent = Agent(id="a", model=ScriptedModel(["It is Lima."]))
    chunks: list[Chunk] = [
        c
        async for c in agent.stream(
            "Which city?", structured_output={"schema": Answer, "model": structurer}
        )
    ]
    assert [c.payload["object"] for c in chunks if c.type == "object-result"] == [{"city": "Lima"}]
    result = await agent.generate(
        "Which city?",
        structured_output={"schema": Answer, "model": ScriptedModel(['{"city": "Lima"}'])},
        model=ScriptedModel(["It is Lima."]),
    )
    assert result.object == Answer(city="Lima")
