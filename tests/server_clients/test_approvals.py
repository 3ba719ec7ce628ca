"""A tool that needs approval, through the real clients: the stream stays open while the run
waits, the caller answers with ``POST /api/agents/{agentId}/send-tool-approval`` (client-js's
``sendToolApproval``, or a page's ``fetch``), and the run goes on in the same stream."""

from __future__ import annotations

from typing import Any

from tests.server_clients.clients import (
    chat,
    chunks_of,
    mastra,
    ok,
    page_text,
    parts,
    stream_step,
)
from tests.server_clients.servers import RunNode, Served


def decided(
    run_node: RunNode, served: Served, approved: bool, **chat_options: Any
) -> dict[str, Any]:
    """What a page saw of ``refunds`` when its user answered the approval request."""
    approve = {"url": f"{served.url}/api/agents/refunds/send-tool-approval", "approved": approved}
    if not approved:
        approve["reason"] = "over the limit"
    return chat(run_node, served, "refunds", "refund me", approve=approve, **chat_options)


def test_client_js_approves_a_waiting_call(run_node: RunNode, open_server: Served) -> None:
    step = {**stream_step("refunds", "refund me"), "approve": {"approved": True}}
    (result,) = mastra(run_node, open_server, [step])
    streamed = ok(result)
    (asked,) = chunks_of(streamed, "tool-call-approval")
    assert asked["payload"]["toolName"] == "refund"
    assert asked["payload"]["args"] == {"amount": 9}
    (answer,) = streamed["approvals"]
    assert answer["accepted"] is True
    assert answer["toolCallId"] == asked["payload"]["toolCallId"]
    assert answer["runId"] == asked["runId"]
    (done,) = chunks_of(streamed, "tool-result")
    assert done["payload"]["result"] == "refunded 9"
    assert streamed["text"] == "Outcome: refunded 9"


def test_client_js_declines_and_the_model_is_told(run_node: RunNode, open_server: Served) -> None:
    step = {
        **stream_step("refunds", "refund me"),
        "approve": {"approved": False, "reason": "over the limit"},
    }
    (result,) = mastra(run_node, open_server, [step])
    streamed = ok(result)
    (denied,) = chunks_of(streamed, "tool-output-denied")
    assert denied["payload"]["reason"] == "over the limit"
    assert chunks_of(streamed, "tool-result") == []
    assert streamed["text"] == "Outcome: The tool call was declined: over the limit"


def test_a_live_page_approves_and_shows_the_output(run_node: RunNode, open_server: Served) -> None:
    seen = decided(run_node, open_server, True, body={"release": "live"})
    assert seen["streamErrors"] == []
    assert [a["status"] for a in seen["approvals"]] == [200]
    (tool,) = parts(seen["message"], "tool-refund")
    assert tool["state"] == "output-available"
    assert tool["output"] == "refunded 9"
    assert page_text(seen["message"]) == "Outcome: refunded 9"


def test_a_live_page_declines_and_the_call_shows_denied(
    run_node: RunNode, open_server: Served
) -> None:
    seen = decided(run_node, open_server, False, body={"release": "live"})
    assert seen["streamErrors"] == []
    tools = parts(seen["message"], "tool-refund")
    assert tools
    assert tools[0]["state"] == "output-denied"


def test_a_page_in_step_mode_approves_and_shows_the_output(
    run_node: RunNode, open_server: Served
) -> None:
    seen = decided(run_node, open_server, True)
    assert seen["streamErrors"] == []
    (tool,) = parts(seen["message"], "tool-refund")
    assert tool["state"] == "output-available"
    assert page_text(seen["message"]) == "Outcome: refunded 9"
