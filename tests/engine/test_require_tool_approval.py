"""``require_tool_approval=True``: every tool call waits for the approvals broker, as Mastra's
agent-wide ``requireToolApproval`` (issue 24)."""

from __future__ import annotations

import pytest

from procession import Agent, ApprovalRequest, ConfigurationError, Decision, tool
from procession.testing import Reply, ScriptedModel, ToolCallScript


class Recorder:
    """Decides from a list of answers and records what it was asked."""

    def __init__(self, *answers: bool) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    async def decide(self, request: ApprovalRequest) -> Decision:
        """The next answer."""
        self.asked.append(request.tool_name)
        return Decision(self.answers.pop(0), "not now")


ran: list[str] = []


@tool
def lookup(order: str) -> str:
    """Look an order up."""
    ran.append(order)
    return f"{order}: shipped"


def _model() -> ScriptedModel:
    call = ToolCallScript("lookup", {"order": "A1"}, id="c1")
    return ScriptedModel([Reply(tool_calls=[call]), Reply(text=["done"])])


@pytest.mark.asyncio
async def test_every_tool_call_waits_for_approval_when_the_call_asks() -> None:
    ran.clear()
    broker = Recorder(False)
    agent = Agent(id="a", model=_model(), tools=[lookup], approvals=broker)
    stream = agent.stream("A1?", require_tool_approval=True)
    kinds = [chunk.type async for chunk in stream]
    assert broker.asked == ["lookup"]  # the tool itself does not require approval
    assert "tool-call-approval" in kinds
    assert ran == []  # declined: never ran
    result = await stream.result()
    assert result.tool_results[0].error is not None
    assert "not now" in result.tool_results[0].error


@pytest.mark.asyncio
async def test_without_the_option_a_plain_tool_runs_unasked() -> None:
    ran.clear()
    broker = Recorder()
    agent = Agent(id="a", model=_model(), tools=[lookup], approvals=broker)
    result = await agent.generate("A1?")
    assert broker.asked == []
    assert ran == ["A1"]
    approved = Recorder(True)
    agent.approvals = approved
    agent.model = _model()
    await agent.generate("A1?", require_tool_approval=True)
    assert approved.asked == ["lookup"]
    assert ran == ["A1", "A1"]
    assert result.text == "done"


@pytest.mark.asyncio
async def test_the_option_is_checked() -> None:  # D35
    agent = Agent(id="a", model=_model(), tools=[lookup])
    with pytest.raises(ConfigurationError, match="require_tool_approval"):
        agent.stream("A1?", require_tool_approval="yes")  # type: ignore[call-overload]
