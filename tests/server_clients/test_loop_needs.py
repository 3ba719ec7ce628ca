"""What the server's clients need from the loop: the chunks step mode sends, a tool call shown
before its approval request, and a declined call told to the model (D31, D22)."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from procession import Agent, tool
from procession.approvals import LocalApprovals
from procession.testing import FunctionModel, Reply, ScriptedModel, ToolCallScript


async def client_chunk_types(release: Literal["live", "step"]) -> list[str]:
    """The chunk types a client of ``stream(release=...)`` receives for a plain answer."""
    agent = Agent(id="plain", model=ScriptedModel([Reply(text=["Hel", "lo"])]))
    return [chunk.type async for chunk in agent.stream("hi", release=release)]


@pytest.mark.asyncio
async def test_step_mode_sends_the_same_chunk_types_as_live_mode() -> None:
    # D31: step mode changes when the client sees a step, not what it sees
    live = await client_chunk_types("live")
    step = await client_chunk_types("step")
    assert "response-metadata" not in live
    assert step == live


def refund_agent(approvals: LocalApprovals, prompts: list[list[dict[str, Any]]]) -> Agent:
    """An agent whose first step calls ``refund``, a tool that needs approval."""

    @tool(requires_approval=True)
    def refund(amount: int) -> str:
        """Refund an amount."""
        return f"refunded {amount}"

    def model(options: Any) -> Reply:
        prompts.append(options.prompt)
        if len(prompts) == 1:
            return Reply(tool_calls=[ToolCallScript("refund", {"amount": 9}, "r1")])
        return Reply(text=["ok"])

    return Agent(id="refunds", model=FunctionModel(model), tools=[refund], approvals=approvals)


@pytest.mark.asyncio
async def test_step_mode_sends_the_tool_call_before_its_approval_request() -> None:
    approvals: LocalApprovals = LocalApprovals()
    agent = refund_agent(approvals, [])
    types = []
    async for chunk in agent.stream("refund me", release="step"):
        types.append(chunk.type)
        if chunk.type == "tool-call-approval":
            approvals.approve(chunk.run_id, "r1")
    assert types.index("tool-call") < types.index("tool-call-approval")


@pytest.mark.asyncio
async def test_the_next_prompt_tells_the_model_a_call_was_declined() -> None:
    approvals: LocalApprovals = LocalApprovals()
    prompts: list[list[dict[str, Any]]] = []
    agent = refund_agent(approvals, prompts)
    async for chunk in agent.stream("refund me"):
        if chunk.type == "tool-call-approval":
            approvals.decline(chunk.run_id, "r1", reason="over the limit")
    assert len(prompts) == 2
    roles = [m["role"] for m in prompts[1]]
    assert roles == ["user", "assistant", "tool"]
    assert "over the limit" in str(prompts[1][-1]["content"])
