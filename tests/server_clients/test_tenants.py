"""Another tenant through the real ``@mastra/client-js`` (issue 20): while alice's run waits
for a tool approval, bob (a JWT of another resource) starts a run with alice's run id and
answers her call; neither reaches her run, which goes on with alice's own decision."""

from __future__ import annotations

import json
from typing import Any

import httpx2 as httpx

from tests.server_clients.clients import alice, bearer, mastra, token, unique
from tests.server_clients.servers import RunNode, Served


def test_another_tenant_cannot_take_alice_s_run_id_nor_approve_her_call(
    run_node: RunNode, auth_server: Served
) -> None:
    run_id = unique("run-of-alice")
    body = {"messages": "refund me", "runId": run_id}
    seen: list[dict[str, Any]] = []
    by_bob: list[dict[str, Any]] = []
    url = f"{auth_server.url}/api/agents/refunds"
    with (
        httpx.Client(timeout=30) as client,
        client.stream("POST", f"{url}/stream", json=body, headers=alice()) as response,
    ):
        assert response.status_code == 200
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            seen.append(json.loads(line[6:]))
            if seen[-1]["type"] != "tool-call-approval":
                continue
            call_id = seen[-1]["payload"]["toolCallId"]
            decision = {"runId": run_id, "toolCallId": call_id, "approved": True}
            bob = bearer(token("bob"))
            by_bob = mastra(
                run_node,
                auth_server,
                [
                    {
                        "op": "stream",
                        "agentId": "refunds",
                        "messages": "me too",
                        "options": {"runId": run_id},
                        "headers": bob,
                    },
                    {
                        "op": "sendToolApproval",
                        "agentId": "refunds",
                        "params": decision,
                        "headers": bob,
                    },
                ],
            )
            mine = {**decision, "approved": False, "reason": "not today"}
            answer = client.post(f"{url}/send-tool-approval", json=mine, headers=alice())
            assert answer.json()["accepted"] is True
    taken, approved = (r["error"] for r in by_bob)
    assert taken["status"] == 409
    assert run_id in json.dumps(taken["body"])  # the error names the id
    assert approved["status"] == 404
    kinds = [e["type"] for e in seen]
    assert "tool-output-denied" in kinds  # alice's own decision reached her call
    assert "tool-result" not in kinds
