"""Durable runs in one process on DBOS's SQLite system database (issue 16): a tool waiting
for approval is answered through DBOS from outside the run, and processor state JSON cannot
hold fails the run with an error naming the processor."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from procession import Agent, Processor, ProcessorError, tool
from procession.durable import DBOSApprovals, DurableRuns, check_states
from procession.testing import Reply, ScriptedModel, ToolCallScript

pytest.importorskip("dbos")

ran: list[int] = []


@tool(requires_approval=True)
def refund(amount: int) -> str:
    """Refund the customer."""
    ran.append(amount)
    return f"refunded {amount}"


class Keeps(Processor):
    """Keeps an object JSON cannot hold in its state."""

    id = "keeps"

    def process_input(self, *, messages: list[Any], state: dict[str, Any]) -> None:
        state["seen"] = object()


def _refunding_model() -> ScriptedModel:
    return ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("refund", {"amount": 5}, "c1")]), Reply(text=["Done."])]
    )


@pytest_asyncio.fixture
async def runs(tmp_path: Path) -> AsyncIterator[DurableRuns]:
    agents = [
        Agent(id="refunds", model=_refunding_model(), tools=[refund], approvals=DBOSApprovals()),
        Agent(id="keeps", model=ScriptedModel([Reply(text=["hi"])]), input_processors=[Keeps()]),
    ]
    durable = DurableRuns(agents, database_url=f"sqlite:///{tmp_path / 'dbos.sqlite'}")
    await durable.launch()
    try:
        yield durable
    finally:
        await durable.close()


async def _answer(run_id: str, approve: bool) -> None:
    approvals = DBOSApprovals()
    request = None
    async with asyncio.timeout(30):
        while request is None:  # published by the run once it reaches the call
            request = await approvals.find(run_id, "c1")
            await asyncio.sleep(0.02)
    assert (request.tool_name, request.args) == ("refund", {"amount": 5})
    if approve:
        await approvals.approve(run_id, "c1")
    else:
        await approvals.decline(run_id, "c1", "not today")


@pytest.mark.asyncio
@pytest.mark.parametrize("approve", [True, False])
async def test_a_durable_run_waits_for_a_decision_sent_through_dbos(
    runs: DurableRuns, approve: bool
) -> None:
    ran.clear()
    run = await runs.start("refunds", "refund me")
    answering = asyncio.create_task(_answer(run.run_id, approve))
    kinds = [chunk.type async for chunk in run]
    await answering
    summary = await run.result()
    assert summary["status"] == "done", summary
    assert "tool-call-approval" in kinds
    assert ran == ([5] if approve else [])
    assert ("tool-result" in kinds) is approve
    assert ("tool-output-denied" in kinds) is not approve


@pytest.mark.asyncio
async def test_processor_state_json_cannot_hold_fails_the_durable_run(runs: DurableRuns) -> None:
    run = await runs.start("keeps", "hello")
    async for _ in run:
        pass
    summary = await run.result()
    assert summary["status"] == "error"
    assert "keeps" in summary["error"]
    assert "'seen'" in summary["error"]
    assert "JSON" in summary["error"]


@pytest.mark.asyncio
async def test_processor_states_are_a_read_only_view_of_the_run() -> None:
    agent = Agent(id="a", model=ScriptedModel([Reply(text=["hi"])]), input_processors=[Keeps()])
    stream = agent.stream("hello")
    async with stream:
        async for _ in stream:
            pass
    states = stream.processor_states
    assert "keeps" in states
    with pytest.raises(TypeError):
        states["other"] = {}  # type: ignore[index]
    with pytest.raises(ProcessorError, match="keeps"):
        check_states(states)
