"""Mastra's agent-wide ``requireToolApproval`` on the generate and stream routes: every tool
call waits for approval; an agent without a broker answers 422 naming the field (issue 24)."""

from __future__ import annotations

from typing import Any

import pytest

from procession import ApprovalRequest, Decision, tool
from procession.server import create_app
from procession.testing import Reply, ToolCallScript

from .conftest import live_server, scripted_agent
from .helpers import read_events

pytestmark = pytest.mark.asyncio


class Declines:
    """Declines every call, recording the tool names it was asked about."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def decide(self, request: ApprovalRequest) -> Decision:
        """No."""
        self.asked.append(request.tool_name)
        return Decision(False, "needs a human")


@tool
def refund(order: str) -> str:
    """Refund an order."""
    return f"refunded {order}"


def _agent(**options: Any) -> Any:
    call = ToolCallScript("refund", {"order": "A1"}, id="r1")
    return scripted_agent(
        "support", Reply(tool_calls=[call]), Reply(text=["ok"]), tools=[refund], **options
    )


async def test_require_tool_approval_asks_for_every_tool() -> None:
    broker = Declines()
    body = {"messages": "Refund A1", "requireToolApproval": True}
    async with live_server(create_app(_agent(approvals=broker))) as live, live.client() as client:
        response, events = await read_events(client, "/api/agents/support/stream", body)
        plain = await client.post("/api/agents/support/generate", json={"messages": "Refund A1"})
    assert response.status_code == 200
    kinds = [e["type"] for e in events if isinstance(e, dict)]
    assert "tool-call-approval" in kinds
    assert broker.asked == ["refund"]  # asked once: the plain call below ran unasked
    assert plain.status_code == 200


async def test_without_a_broker_the_field_is_named() -> None:
    body = {"messages": "Refund A1", "requireToolApproval": True}
    async with live_server(create_app(_agent())) as live, live.client() as client:
        refused = await client.post("/api/agents/support/generate", json=body)
        unset = await client.post(
            "/api/agents/support/generate", json={**body, "requireToolApproval": False}
        )
    assert refused.status_code == 422
    assert "requireToolApproval" in refused.text
    assert unset.status_code == 200
