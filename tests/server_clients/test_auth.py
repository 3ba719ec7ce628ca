"""Credentials through the real clients' ``headers`` option: an API key for ``alice``, JWTs.

A caller only ever sees and writes its own resource's threads: another resource's thread is
404, a body naming another resource 403, a missing or bad credential 401.
"""

from __future__ import annotations

from typing import Any

from tests.server_clients.clients import (
    alice,
    bearer,
    chat,
    failed,
    mastra,
    ok,
    page_text,
    stream_step,
    token,
    unique,
)
from tests.server_clients.servers import RunNode, Served
from tests.server_clients.shared import API_KEY


def test_each_resource_sees_only_its_own_threads(run_node: RunNode, auth_server: Served) -> None:
    thread = unique("alice-thread")
    bob = bearer(token("bob"))
    memory = {"thread": thread}
    steps: list[dict[str, Any]] = [
        stream_step("support", "hello", memory=memory),
        {"op": "listThreads", "params": {"agentId": "support"}},
        {"op": "getThread", "threadId": thread, "agentId": "support"},
    ]
    as_alice = mastra(run_node, auth_server, steps, headers=alice())
    assert ok(as_alice[0])["text"] == "You said: hello"
    assert thread in [t["id"] for t in ok(as_alice[1])["threads"]]
    assert {t["resourceId"] for t in ok(as_alice[1])["threads"]} == {"alice"}
    assert ok(as_alice[2])["resourceId"] == "alice"

    as_bob = mastra(
        run_node,
        auth_server,
        [
            {"op": "listThreads", "params": {"agentId": "support"}},
            {"op": "getThread", "threadId": thread, "agentId": "support"},
            {"op": "listMessages", "threadId": thread, "agentId": "support"},
            {"op": "deleteThread", "threadId": thread, "agentId": "support"},
            stream_step("support", "hi", memory=memory),
        ],
        headers=bob,
    )
    assert thread not in [t["id"] for t in ok(as_bob[0])["threads"]]
    for result in as_bob[1:]:
        assert failed(result)["status"] == 404

    (still,) = mastra(
        run_node,
        auth_server,
        [{"op": "listMessages", "threadId": thread, "agentId": "support"}],
        headers=alice(),
    )
    assert [m["role"] for m in ok(still)["messages"]] == ["user", "assistant"]


def test_a_body_naming_another_resource_is_forbidden(
    run_node: RunNode, auth_server: Served
) -> None:
    memory = {"thread": unique("thread"), "resource": "bob"}
    (result,) = mastra(
        run_node,
        auth_server,
        [stream_step("support", "hi", memory=memory)],
        headers=alice(),
    )
    assert failed(result)["status"] == 403


def test_missing_or_bad_credentials_are_refused(run_node: RunNode, auth_server: Served) -> None:
    list_agents = [{"op": "listAgents"}]
    expired = token("bob", expires_in=-60)
    forged = token("bob", secret="another-secret-of-at-least-32-bytes!")
    for headers in ({}, bearer("not-a-key"), bearer(expired), bearer(forged)):
        (result,) = mastra(run_node, auth_server, list_agents, headers=headers)
        assert failed(result)["status"] == 401, headers
    (listed,) = mastra(run_node, auth_server, list_agents, headers=bearer(token("carol")))
    assert "support" in ok(listed)


def test_the_chat_transport_sends_an_api_key(run_node: RunNode, auth_server: Served) -> None:
    seen = chat(run_node, auth_server, "support", "hello", headers={"X-API-Key": API_KEY})
    assert seen["error"] is None
    assert page_text(seen["message"]) == "You said: hello"
    refused = chat(run_node, auth_server, "support", "hello")
    assert refused["message"] is None
    assert refused["error"] is not None
    assert refused["error"]["statusCode"] == 401
