"""Tools that require approval wait for a decision: approved, they run; declined, they do not,
and the model is told (issue 16's human in the loop)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from procession import Agent, Chunk, ConfigurationError, tool
from procession.approvals import LocalApprovals
from procession.testing import MemoryJournal, Reply, ScriptedModel, ToolCallScript


def _agent(approvals: LocalApprovals | None, ran: list[int]) -> Agent:
    @tool(requires_approval=True)
    def refund(amount: int) -> str:
        """Refund an order."""
        ran.append(amount)
        return f"refunded {amount}"

    model = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("refund", {"amount": 9}, "c1")]), Reply(text=["ok"])]
    )
    return Agent(id="desk", model=model, tools=[refund], approvals=approvals)


async def _run(agent: Agent, decide: Any, **options: Any) -> tuple[list[Chunk], Any]:
    stream = agent.stream("Refund me", **options)
    chunks: list[Chunk] = []
    async for chunk in stream:
        chunks.append(chunk)
        if chunk.type == "tool-call-approval":
            decide(chunk)
    return chunks, await stream.result()


@pytest.mark.asyncio
@pytest.mark.parametrize("release", ["live", "step"])
async def test_an_approved_call_runs(release: str) -> None:
    approvals, ran = LocalApprovals(), list[int]()
    agent = _agent(approvals, ran)
    chunks, result = await _run(
        agent,
        lambda c: approvals.approve(c.run_id, c.payload["toolCallId"]),
        release=release,
    )
    assert ran == [9]
    asked = next(c for c in chunks if c.type == "tool-call-approval")
    assert asked.payload == {"toolCallId": "c1", "toolName": "refund", "args": {"amount": 9}}
    assert result.tool_results[0].result == "refunded 9"
    assert result.text == "ok"


@pytest.mark.asyncio
async def test_a_declined_call_does_not_run_and_the_model_is_told() -> None:
    approvals, ran = LocalApprovals(), list[int]()
    agent = _agent(approvals, ran)
    chunks, result = await _run(
        agent, lambda c: approvals.decline(c.run_id, c.payload["toolCallId"], "too much")
    )
    assert ran == []
    denied = next(c for c in chunks if c.type == "tool-output-denied")
    assert denied.payload["reason"] == "too much"
    part = result.messages[0].content.parts[0]
    assert part.tool_invocation.state == "output-denied"
    assert part.tool_invocation.error_text == "The tool call was declined: too much"


@pytest.mark.asyncio
async def test_a_durable_run_does_not_ask_again_for_a_recorded_decision() -> None:
    approvals, ran, journal = LocalApprovals(), list[int](), MemoryJournal()
    ids = {"run_id": "r-1", "journal": journal}
    await _run(_agent(approvals, ran), lambda c: approvals.approve(c.run_id, "c1"), **ids)
    asked: list[Chunk] = []
    chunks, result = await _run(_agent(approvals, ran), asked.append, **ids)
    assert ran == [9]  # the recorded tool call was not made again
    assert result.text == "ok"
    assert [c.type for c in chunks].count("tool-call-approval") == 1  # the client is shown it


@pytest.mark.asyncio
async def test_without_a_broker_the_run_fails_clearly() -> None:
    with pytest.raises(ConfigurationError, match="requires approval"):
        await _agent(None, []).generate("Refund me")


@pytest.mark.asyncio
async def test_a_decision_given_before_the_run_asks_is_kept() -> None:
    approvals, ran = LocalApprovals(), list[int]()
    approvals.approve("early", "c1")
    result = await _agent(approvals, ran).generate("Refund me", run_id="early")
    assert ran == [9]
    assert result.text == "ok"
    assert approvals.pending() == []


@pytest.mark.asyncio
async def test_a_waiting_run_is_listed_until_decided() -> None:
    approvals, ran = LocalApprovals(), list[int]()
    task = asyncio.ensure_future(_agent(approvals, ran).generate("Refund me", run_id="w"))
    for _ in range(100):
        if approvals.pending("w"):
            break
        await asyncio.sleep(0.01)
    (request,) = approvals.pending("w")
    assert (request.tool_name, request.args) == ("refund", {"amount": 9})
    approvals.approve("w", request.tool_call_id)
    assert (await task).text == "ok"
