"""Mastra's memory routes: threads and messages, each caller confined to its resource."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Memory
from procession.server import Auth, create_app

from .conftest import live_server, scripted_agent

pytestmark = pytest.mark.asyncio

ALICE = {"Authorization": "Bearer alice-key-0123456789abcdef"}
BOB = {"X-API-Key": "bob-key-0123456789abcdef"}
AUTH = Auth(api_keys={"alice-key-0123456789abcdef": "alice", "bob-key-0123456789abcdef": "bob"})


def app_with(memory: Memory, **options: Any) -> Any:
    return create_app(scripted_agent("support", "Noted.", memory=memory), **options)


async def test_threads_are_created_read_updated_listed_and_deleted(memory: Memory) -> None:
    async with live_server(app_with(memory)) as live, live.client() as client:
        created = await client.post(
            "/api/memory/threads?agentId=support",
            json={"resourceId": "ada", "threadId": "t-1", "title": "Plans", "metadata": {"k": 1}},
        )
        got = await client.get("/api/memory/threads/t-1?resourceId=ada")
        patched = await client.patch(
            "/api/memory/threads/t-1?agentId=support",
            json={"resourceId": "ada", "title": "Plans B", "metadata": {"j": 2}},
        )
        listed = await client.get("/api/memory/threads?resourceId=ada&perPage=10")
        deleted = await client.delete("/api/memory/threads/t-1?agentId=support&resourceId=ada")
        gone = await client.get("/api/memory/threads/t-1?resourceId=ada")
        status = await client.get("/api/memory/status?agentId=support")
    assert created.status_code == 200
    thread = created.json()
    assert thread["id"] == "t-1"
    assert thread["resourceId"] == "ada"
    assert thread["title"] == "Plans"
    assert thread["createdAt"].endswith("Z")
    assert got.json() == thread
    assert patched.json()["title"] == "Plans B"
    assert patched.json()["metadata"] == {"k": 1, "j": 2}
    page = listed.json()
    assert [t["id"] for t in page["threads"]] == ["t-1"]
    assert (page["total"], page["page"], page["perPage"], page["hasMore"]) == (1, 0, 10, False)
    assert deleted.json() == {"result": "Thread deleted"}
    assert gone.status_code == 404
    assert status.json() == {"result": True}


async def test_messages_of_a_thread_in_stored_and_ui_forms(memory: Memory) -> None:
    async with live_server(app_with(memory)) as live, live.client() as client:
        for text in ("one", "two", "three"):
            body = {"messages": text, "memory": {"thread": "t-2", "resource": "ada"}}
            assert (await client.post("/api/agents/support/generate", json=body)).status_code == 200
        first = (
            await client.get("/api/memory/threads/t-2/messages?resourceId=ada&perPage=4")
        ).json()
        second = await client.get(
            "/api/memory/threads/t-2/messages?resourceId=ada&perPage=4&page=1"
        )
        newest = await client.get(
            "/api/memory/threads/t-2/messages?resourceId=ada&perPage=1&orderBy[direction]=DESC"
        )
        client_js = await client.get(  # how @mastra/client-js asks: orderBy as JSON, perPage=false
            "/api/memory/threads/t-2/messages",
            params={"resourceId": "ada", "perPage": "false", "orderBy": '{"direction":"DESC"}'},
        )
        bad_order = await client.get(
            "/api/memory/threads/t-2/messages", params={"resourceId": "ada", "orderBy": "[1]"}
        )
    assert [m["content"]["parts"][0]["text"] for m in first["messages"]] == [
        "one",
        "Noted.",
        "two",
        "Noted.",
    ]
    assert first["uiMessages"][0] == {
        "id": first["messages"][0]["id"],
        "role": "user",
        "parts": [{"type": "text", "text": "one"}],
    }
    assert (first["total"], first["hasMore"]) == (6, True)
    assert [m["role"] for m in second.json()["messages"]] == ["user", "assistant"]
    assert second.json()["hasMore"] is False
    assert newest.json()["messages"][0]["role"] == "assistant"
    everything = client_js.json()
    assert (everything["total"], everything["hasMore"], len(everything["messages"])) == (
        6,
        False,
        6,
    )
    assert everything["messages"][0]["content"]["parts"][0]["text"] == "Noted."
    assert everything["messages"][-1]["content"]["parts"][0]["text"] == "one"
    assert bad_order.status_code == 422


async def test_a_caller_never_sees_or_touches_another_resources_thread(memory: Memory) -> None:
    async with live_server(app_with(memory, auth=AUTH)) as live, live.client() as client:
        body = {"messages": "secret plan", "memory": {"thread": "alice-t"}}
        made = await client.post("/api/agents/support/generate", json=body, headers=ALICE)
        listed_by_bob = await client.get("/api/memory/threads", headers=BOB)
        read_by_bob = await client.get("/api/memory/threads/alice-t", headers=BOB)
        messages_by_bob = await client.get("/api/memory/threads/alice-t/messages", headers=BOB)
        patch_by_bob = await client.patch(
            "/api/memory/threads/alice-t", json={"title": "x"}, headers=BOB
        )
        delete_by_bob = await client.delete("/api/memory/threads/alice-t", headers=BOB)
        run_by_bob = await client.post(
            "/api/agents/support/stream",
            json={"messages": "hi", "memory": {"thread": "alice-t"}},
            headers=BOB,
        )
        ids = [
            m["id"]
            for m in (
                await client.get("/api/memory/threads/alice-t/messages", headers=ALICE)
            ).json()["messages"]
        ]
        deleted_by_bob = await client.post(
            "/api/memory/messages/delete", json={"messageIds": ids}, headers=BOB
        )
        still = await client.get("/api/memory/threads/alice-t/messages", headers=ALICE)
    assert made.status_code == 200
    assert listed_by_bob.json()["threads"] == []
    for response in (read_by_bob, messages_by_bob, patch_by_bob, delete_by_bob, run_by_bob):
        assert response.status_code == 404, response.text
        assert response.json() == {"error": "Thread not found"}  # nothing about alice leaks
    assert deleted_by_bob.json()["message"] == "0 messages deleted successfully"
    assert len(still.json()["messages"]) == 2


async def test_credentials_decide_the_resource(memory: Memory) -> None:
    async with live_server(app_with(memory, auth=AUTH)) as live, live.client() as client:
        missing = await client.get("/api/agents")
        wrong = await client.get("/api/agents", headers={"Authorization": "Bearer nope-nope-nope"})
        basic = await client.get("/api/agents", headers={"Authorization": "Basic abc"})
        other = await client.post(
            "/api/agents/support/generate",
            json={"messages": "hi", "memory": {"thread": "t", "resource": "bob"}},
            headers=ALICE,
        )
        query_other = await client.get("/api/memory/threads?resourceId=bob", headers=ALICE)
        own = await client.post(
            "/api/memory/threads?agentId=support",
            json={"resourceId": "alice", "threadId": "t9"},
            headers=ALICE,
        )
        implicit = await client.post(
            "/api/memory/threads?agentId=support", json={"threadId": "t10"}, headers=ALICE
        )
        health = await client.get("/health")
        document = await client.get("/api/openapi.json")
    for response in (missing, wrong, basic):
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert "error" in response.json()
    assert other.status_code == query_other.status_code == 403
    assert own.json()["resourceId"] == implicit.json()["resourceId"] == "alice"
    assert health.status_code == document.status_code == 200


async def test_without_credentials_the_body_names_the_resource_or_local(memory: Memory) -> None:
    async with live_server(app_with(memory)) as live, live.client() as client:
        await client.post(
            "/api/agents/support/generate", json={"messages": "a", "memory": {"thread": "t1"}}
        )
        await client.post(
            "/api/agents/support/generate",
            json={"messages": "b", "memory": {"thread": "t2", "resource": "ada"}},
        )
        local = (await client.get("/api/memory/threads")).json()
        ada = (await client.get("/api/memory/threads?resourceId=ada")).json()
        clash = await client.post(
            "/api/agents/support/generate",
            json={"messages": "c", "resourceId": "x", "memory": {"thread": "t3", "resource": "y"}},
        )
        no_thread = await client.post("/api/agents/support/generate", json={"messages": "c"})
    assert [t["id"] for t in local["threads"]] == ["t1"]
    assert [t["id"] for t in ada["threads"]] == ["t2"]
    assert clash.status_code == 422
    assert no_thread.status_code == 422
    assert no_thread.json()["issues"][0]["field"] == "memory.thread"


async def test_working_memory_is_read_and_replaced(tmp_path: Any) -> None:
    from procession.memory import SQLiteStorage

    memory = Memory(SQLiteStorage(str(tmp_path / "wm.db")), working_memory=True)
    async with live_server(app_with(memory)) as live, live.client() as client:
        before = (await client.get("/api/memory/threads/t1/working-memory?resourceId=ada")).json()
        put = await client.post(
            "/api/memory/threads/t1/working-memory",
            json={"workingMemory": "# Ada\n- likes tea", "resourceId": "ada"},
        )
        after = (await client.get("/api/memory/threads/t1/working-memory?resourceId=ada")).json()
        other = (await client.get("/api/memory/threads/t1/working-memory?resourceId=bob")).json()
    assert before["workingMemory"] is None
    assert before["source"] == "resource"
    assert put.json() == {"success": True}
    assert after["workingMemory"] == "# Ada\n- likes tea"
    assert other["workingMemory"] is None


async def test_memory_routes_without_memory_say_so() -> None:
    async with live_server(create_app(scripted_agent())) as live, live.client() as client:
        status = await client.get("/api/memory/status")
        listed = await client.get("/api/memory/threads")
        bad_page = await client.get("/api/memory/threads?page=-1")
    assert status.json() == {"result": False}
    assert listed.status_code == 400
    assert "Memory is not initialized" in listed.json()["error"]
    assert bad_page.status_code == 422
    assert bad_page.json()["issues"][0]["field"] == "page"
