"""Two tenants on one server (issue 20, "Strangers and other tenants"): run ids, approvals,
cache scopes and ids the caller supplies are bound to the authenticated resource, on SQLite
and PostgreSQL. Alice and Bob are two resources of the server's API keys."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from procession import InMemoryCache, Memory, ResponseCache, tool
from procession.approvals import LocalApprovals
from procession.guardrails import INTERNAL_RUN, RESPONSE_CACHE, TOOL_SEARCH_KEY
from procession.memory import SQLiteStorage
from procession.memory.postgres import PostgresStorage
from procession.server import Auth, create_app
from procession.testing import Reply, ScriptedModel, ToolCallScript

from .conftest import live_server, scripted_agent

pytestmark = pytest.mark.asyncio

ALICE = {"Authorization": "Bearer alice-key-0123456789abcdef"}
BOB = {"X-API-Key": "bob-key-0123456789abcdef"}
AUTH = Auth(api_keys={"alice-key-0123456789abcdef": "alice", "bob-key-0123456789abcdef": "bob"})


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str | None:
    """``None`` for SQLite, else the PostgreSQL DSN."""
    if request.param == "sqlite":
        return None
    dsn: str = request.getfixturevalue("postgres_dsn")
    return dsn


@pytest_asyncio.fixture
async def memory(backend: str | None, tmp_path: Path) -> AsyncIterator[Memory]:
    """A memory on SQLite or on PostgreSQL (a schema of the test's own), closed after."""
    from tests.memory.crash_harness import drop_schema

    schema = f"test_{uuid.uuid4().hex[:10]}"
    storage: Any = (
        SQLiteStorage(str(tmp_path / "memory.db"))
        if backend is None
        else PostgresStorage(backend, schema=schema)
    )
    memory = Memory(storage)
    yield memory
    await storage.close()
    if backend is not None:
        await drop_schema(backend, schema)


@tool(requires_approval=True)
async def refund(amount: int) -> str:
    """Refund an amount."""
    return f"refunded {amount}"


def _approval_agent(memory: Memory) -> Any:
    return scripted_agent(
        "support",
        Reply(tool_calls=[ToolCallScript("refund", {"amount": 9}, id="r1")]),
        Reply(text=["Done for you."]),
        tools=[refund],
        approvals=LocalApprovals(),
        memory=memory,
    )


async def test_another_tenant_cannot_take_a_live_run_id_nor_approve_its_call(
    memory: Memory,
) -> None:
    async with (
        live_server(create_app(_approval_agent(memory), auth=AUTH)) as live,
        live.client() as client,
    ):
        path = "/api/agents/support/send-tool-approval"
        body = {"messages": "refund me", "runId": "run-shared", "memory": {"thread": "a-t"}}
        seen: list[Any] = []
        answers: dict[str, Any] = {}
        async with client.stream(
            "POST", "/api/agents/support/stream", json=body, headers=ALICE
        ) as response:
            async for line in response.aiter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                seen.append(json.loads(line[6:]))
                if seen[-1]["type"] != "tool-call-approval":
                    continue
                squat = {**body, "memory": {"thread": "b-t"}}
                answers["start"] = await client.post(
                    "/api/agents/support/stream", json=squat, headers=BOB
                )
                decision = {"runId": "run-shared", "toolCallId": "r1", "approved": True}
                answers["bob"] = await client.post(path, json=decision, headers=BOB)
                answers["alice"] = await client.post(
                    path, json={**decision, "approved": False, "reason": "no"}, headers=ALICE
                )
    assert answers["start"].status_code == 409
    assert "run-shared" in answers["start"].json()["error"]  # the error names the id
    assert answers["bob"].status_code == 404
    assert answers["alice"].json()["accepted"] is True
    kinds = [e["type"] for e in seen]
    assert "tool-output-denied" in kinds  # alice's decision, not bob's, reached the call
    assert "tool-result" not in kinds


async def test_local_approvals_answer_only_the_named_resource_s_call() -> None:
    from procession.approvals import ApprovalRequest

    broker = LocalApprovals()
    alice = asyncio.ensure_future(broker.decide(ApprovalRequest("r", "c", "t", {}, "alice")))
    bob = asyncio.ensure_future(broker.decide(ApprovalRequest("r", "c", "t", {}, "bob")))
    await asyncio.sleep(0)
    assert broker.find("r", "c", resource_id="bob") is not None
    broker.approve("r", "c", resource_id="bob")
    assert (await bob).approved is True
    await asyncio.sleep(0)
    assert not alice.done()  # bob's decision did not reach alice's call
    broker.decline("r", "c", "no", resource_id="alice")
    assert (await alice).approved is False


async def test_the_cache_is_scoped_by_the_authenticated_resource(memory: Memory) -> None:
    model = ScriptedModel(["alice's answer", "bob's answer", "bob's second"], repeat_last=True)
    from procession import Agent

    agent = Agent(
        id="support",
        model=model,
        memory=memory,
        input_processors=[ResponseCache(InMemoryCache(), ttl=600)],
    )
    async with live_server(create_app(agent, auth=AUTH)) as live, live.client() as client:

        async def ask(who: dict[str, str], thread: str, **extra: Any) -> Any:
            body = {"messages": "same question", "memory": {"thread": thread}, **extra}
            return await client.post("/api/agents/support/generate", json=body, headers=who)

        first = await ask(ALICE, "a1")
        by_bob = await ask(BOB, "b1")
        planted = await ask(BOB, "b2", requestContext={"response_cache": {"scope": "alice"}})
        again = await ask(ALICE, "a2")
    assert first.json()["text"] == "alice's answer"
    assert by_bob.json()["text"] == "bob's answer"  # not alice's cached answer
    assert planted.status_code == 422
    assert planted.json()["issues"][0]["field"] == "requestContext.response_cache"
    assert again.json()["text"] == "alice's answer"  # alice's own entry, untouched by bob


@pytest.mark.parametrize(
    "key",
    [RESPONSE_CACHE.name, TOOL_SEARCH_KEY.name, INTERNAL_RUN.name, "procession.x", "mastra__x"],
)
async def test_server_set_request_context_keys_are_refused_from_a_body(
    key: str, tmp_path: Path
) -> None:
    async with (
        live_server(create_app(scripted_agent("support"), auth=AUTH)) as live,
        live.client() as client,
    ):
        body = {"messages": "hi", "requestContext": {key: {"scope": "alice"}}}
        refused = await client.post("/api/agents/support/generate", json=body, headers=BOB)
        fine = await client.post(
            "/api/agents/support/generate",
            json={"messages": "hi", "requestContext": {"plan": "pro"}},
            headers=BOB,
        )
    assert refused.status_code == 422
    assert refused.json()["issues"][0]["field"] == f"requestContext.{key}"
    assert fine.status_code == 200


async def test_id_squatting_never_fails_another_tenant_s_turns(memory: Memory) -> None:
    # D34: a message id stored for another resource is refused for the caller who names it
    async with (
        live_server(
            create_app(scripted_agent("support", "Noted.", memory=memory), auth=AUTH)
        ) as live,
        live.client() as client,
    ):
        first = await client.post(
            "/api/agents/support/generate",
            json={"messages": "hello", "memory": {"thread": "a-t"}},
            headers=ALICE,
        )
        stored = await client.get("/api/memory/threads/a-t/messages", headers=ALICE)
        alice_ids = [m["id"] for m in stored.json()["messages"]]
        # bob names one of alice's ids, then stores many messages under guessed ids
        taken = await client.post(
            "/api/agents/support/generate",
            json={
                "messages": [{"id": alice_ids[0], "role": "user", "content": "mine now"}],
                "memory": {"thread": "b-t"},
            },
            headers=BOB,
        )
        guesses = [f"msg_{i:032x}" for i in range(200)]
        squat = await client.post(
            "/api/agents/support/generate",
            json={
                "messages": [{"id": g, "role": "user", "content": "x"} for g in guesses],
                "memory": {"thread": "b-t"},
            },
            headers=BOB,
        )
        turns = [
            await client.post(
                "/api/agents/support/generate",
                json={"messages": f"turn {i}", "memory": {"thread": "a-t"}},
                headers=ALICE,
            )
            for i in range(10)
        ]
        after = await client.get("/api/memory/threads/a-t/messages", headers=ALICE)
    assert first.status_code == 200
    assert taken.status_code == 409
    assert alice_ids[0] in taken.json()["error"]  # names the id, not a missing thread
    assert "alice" not in taken.json()["error"]  # nor whose it is
    assert squat.status_code == 200
    assert [t.status_code for t in turns] == [200] * 10
    assert len(after.json()["messages"]) == 2 + 20
    assert all(m["id"] not in guesses for m in after.json()["messages"])
