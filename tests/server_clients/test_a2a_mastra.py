"""A2A 0.3 through the real ``@mastra/client-js`` (``client.getA2A(agentId)``, 1.47), at
Mastra's own paths: the card, ``message/send``, ``message/stream``, ``tasks/get`` and
``tasks/cancel``, with the processors applying and tasks owned by the caller (issue 26)."""

from __future__ import annotations

from typing import Any

from tests.server_clients.clients import alice, bearer, failed, ok, token, unique
from tests.server_clients.servers import RunNode, Served

CARD = "4111 1111 1111 1111"


def a2a(
    run_node: RunNode,
    served: Served,
    agent_id: str,
    steps: list[dict[str, Any]],
    headers: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Run ``steps`` with ``getA2A(agent_id)``; one ``{"ok": ...}`` or ``{"error": ...}`` each."""
    spec = {"baseUrl": served.url, "agentId": agent_id, "headers": headers or {}, "steps": steps}
    out = run_node("a2a-client.mjs", spec)
    assert out["node"].startswith("v22."), out["node"]
    results: list[dict[str, Any]] = out["results"]
    return results


def text_of(events: list[dict[str, Any]]) -> str:
    """The response's text as the artifact updates carried it."""
    return "".join(
        part["text"]
        for event in events
        if event["kind"] == "artifact-update"
        for part in event["artifact"]["parts"]
    )


def test_the_card_is_mastra_s_0_3_card_without_instructions(
    run_node: RunNode, open_server: Served
) -> None:
    (result,) = a2a(run_node, open_server, "support", [{"op": "card"}])
    card = ok(result)
    assert card["name"] == "Support"
    assert card["url"] == f"{open_server.url}/api/a2a/support"
    assert card["protocolVersion"] == "0.3.0"
    assert card["capabilities"]["streaming"] is True
    assert "You help customers" not in str(card)


def test_message_send_answers_the_completed_task(run_node: RunNode, open_server: Served) -> None:
    (result,) = a2a(run_node, open_server, "echo", [{"op": "send", "text": "hello"}])
    task = ok(result)["result"]
    assert task["kind"] == "task"
    assert task["status"]["state"] == "completed"
    assert task["artifacts"][0]["parts"] == [{"kind": "text", "text": "You said: hello"}]


def test_message_stream_redacts_and_ends_with_a_final_status(
    run_node: RunNode, open_server: Served
) -> None:
    step = {"op": "stream", "text": f"my card is {CARD} ok", "contextId": unique("ctx")}
    (result,) = a2a(run_node, open_server, "support", [step])
    events = ok(result)
    assert [e["kind"] for e in events[:2]] == ["task", "status-update"]
    assert events[0]["status"]["state"] == "submitted"
    assert events[1]["status"] == {**events[1]["status"], "state": "working"}
    assert events[-1]["kind"] == "status-update"
    assert events[-1]["status"]["state"] == "completed"
    assert [e["final"] for e in events if e["kind"] == "status-update"] == [False, True]
    assert text_of(events) == "You said: my card is [REDACTED] ok"
    assert "4111" not in str(events[1:])


def test_a_tripwire_is_a_rejected_task(run_node: RunNode, open_server: Served) -> None:
    step = {"op": "stream", "text": "my password is hunter2", "contextId": unique("ctx")}
    (result,) = a2a(run_node, open_server, "support", [step])
    last = ok(result)[-1]
    assert last["status"]["state"] == "rejected"
    assert last["final"] is True
    assert "password" in last["status"]["message"]["parts"][0]["text"]


def test_an_approval_waits_as_input_required_then_goes_on(
    run_node: RunNode, open_server: Served
) -> None:
    asked, answered, fetched = a2a(
        run_node,
        open_server,
        "refunds",
        [
            {"op": "stream", "text": "refund me"},
            {"op": "stream", "data": {"approved": True}, "useLast": True},
            {"op": "get", "useLast": True},
        ],
    )
    waiting = ok(asked)[-1]
    assert waiting["status"]["state"] == "input-required"
    assert waiting["final"] is True
    (data,) = [p["data"] for p in waiting["status"]["message"]["parts"] if p["kind"] == "data"]
    assert data["toolName"] == "refund"
    events = ok(answered)
    assert events[-1]["status"]["state"] == "completed"
    assert text_of(events) == "Outcome: refunded 9"
    task = ok(fetched)["result"]
    assert task["status"]["state"] == "completed"
    assert [m["role"] for m in task["history"]] == ["user", "agent", "user"]


def test_cancel_and_unknown_tasks_answer_a2a_errors(run_node: RunNode, open_server: Served) -> None:
    asked, canceled, again, unknown = a2a(
        run_node,
        open_server,
        "refunds",
        [
            {"op": "send", "text": "refund me"},
            {"op": "cancel", "useLast": True},
            {"op": "cancel", "useLast": True},
            {"op": "get", "taskId": "no-such-task"},
        ],
    )
    assert ok(asked)["result"]["status"]["state"] == "input-required"
    assert ok(canceled)["result"]["status"]["state"] == "canceled"
    assert ok(again)["error"]["code"] == -32002  # not cancelable: it ended
    assert ok(unknown)["error"]["code"] == -32001


def test_tasks_and_cards_need_the_caller_s_credential(
    run_node: RunNode, auth_server: Served
) -> None:
    (stranger,) = a2a(run_node, auth_server, "echo", [{"op": "card"}])
    assert failed(stranger)["status"] == 401
    card, sent = a2a(
        run_node, auth_server, "echo", [{"op": "card"}, {"op": "send", "text": "hi"}], alice()
    )
    assert ok(card)["security"] == [{"bearer": []}, {"apiKey": []}]
    task_id = ok(sent)["result"]["id"]
    (by_bob,) = a2a(
        run_node, auth_server, "echo", [{"op": "get", "taskId": task_id}], bearer(token("bob"))
    )
    assert ok(by_bob)["error"]["code"] == -32001
