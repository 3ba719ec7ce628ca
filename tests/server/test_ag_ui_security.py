"""The security issue's checks on POST /ag-ui/{agentId} (issue 26): credentials, resources
always from the credential, run ids bound to the resource, Host and Origin, body limits."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from procession import Agent, Memory
from procession.memory import SQLiteStorage
from procession.server import Auth, ServerLimits, create_app
from procession.testing import FunctionModel, Reply, ScriptedModel

from .conftest import live_server
from .helpers import events

pytestmark = pytest.mark.asyncio

ALICE = {"authorization": "Bearer alice-key-0123456789abcdef"}
BOB = {"authorization": "Bearer bob-key-0123456789abcdef0"}
AUTH = Auth(api_keys={ALICE["authorization"][7:]: "alice", BOB["authorization"][7:]: "bob"})


def run_input(text: str, thread: str = "th", **extra: Any) -> dict[str, Any]:
    message = {"id": str(uuid.uuid4()), "role": "user", "content": text}
    return {"threadId": thread, "runId": str(uuid.uuid4()), "messages": [message], **extra}


def app(tmp: Path, **options: Any) -> tuple[Any, Memory, ScriptedModel]:
    memory = Memory(SQLiteStorage(str(tmp / "m.db")))
    model = ScriptedModel([Reply(text=["Hel", "lo"])], repeat_last=True)
    agent = Agent(id="support", model=model, memory=memory)
    return create_app(agent, **{"auth": AUTH, **options}), memory, model


async def test_a_run_needs_a_valid_credential(tmp_path: Path) -> None:
    served, memory, model = app(tmp_path)
    async with live_server(served) as live, live.client() as client:
        missing = await client.post("/ag-ui/support", json=run_input("hi"))
        wrong = await client.post(
            "/ag-ui/support", json=run_input("hi"), headers={"authorization": "Bearer nope"}
        )
        unknown_agent = await client.post("/ag-ui/nobody", json=run_input("hi"))
    assert missing.status_code == wrong.status_code == unknown_agent.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert model.calls == []
    assert list(await memory.list_threads("alice")) == []


async def test_the_resource_is_always_the_credential_s(tmp_path: Path) -> None:
    served, memory, _ = app(tmp_path)
    async with live_server(served) as live, live.client() as client:
        mine = await client.post("/ag-ui/support", json=run_input("hi"), headers=ALICE)
        # bob names alice every way a body could: none of it is read
        forged = run_input("let me in", resourceId="alice", forwardedProps={"resourceId": "alice"})
        forged["state"] = {"resource_id": "alice"}
        theirs = await client.post("/ag-ui/support", json=forged, headers=BOB)
    assert mine.status_code == 200
    assert [e["type"] for e in events(mine.text)][-1] == "RUN_FINISHED"
    assert theirs.status_code == 404  # alice's thread is not bob's, and looks missing
    assert theirs.json() == {"error": "Thread not found"}
    (thread,) = await memory.list_threads("alice")
    assert thread.id == "th"
    stored = await memory.list_messages("th", resource_id="alice")
    assert [m.text for m in stored] == ["hi", "Hello"]
    assert list(await memory.list_threads("bob")) == []


async def test_a_run_id_held_by_another_resource_is_409(tmp_path: Path) -> None:
    gate = asyncio.Event()

    async def waits(options: Any) -> Reply:  # alice's run holds its id until the gate opens
        await gate.wait()
        return Reply(text=["done"])

    agent = Agent(id="support", model=FunctionModel(waits))
    async with live_server(create_app(agent, auth=AUTH)) as live, live.client() as client:
        held = run_input("slow", thread="alice-thread")
        async with client.stream("POST", "/ag-ui/support", json=held, headers=ALICE) as running:
            chunks = running.aiter_bytes()
            rest = await anext(chunks)
            assert b"RUN_STARTED" in rest
            taken = run_input("me too", thread="bob-thread", runId=held["runId"])
            clash = await client.post("/ag-ui/support", json=taken, headers=BOB)
            gate.set()
            async for chunk in chunks:
                rest += chunk
    assert clash.status_code == 409
    assert held["runId"] in clash.json()["error"]
    assert [e["type"] for e in events(rest.decode())][-1] == "RUN_FINISHED"


async def test_strangers_are_refused(tmp_path: Path) -> None:
    served, _, model = app(tmp_path, limits=ServerLimits(max_body_bytes=2048))
    body = run_input("hi")
    async with live_server(served) as live, live.client(headers=ALICE) as client:
        rebound = await client.post(
            "/ag-ui/support", json=body, headers={"host": "rebind.evil.example"}
        )
        foreign = await client.post(
            "/ag-ui/support", json=body, headers={"origin": "https://evil.example"}
        )
        plain = await client.post(
            "/ag-ui/support", content=b'{"a": 1}', headers={"content-type": "text/plain"}
        )
        large = await client.post("/ag-ui/support", json=run_input("x" * 4096))
        deep = await client.post("/ag-ui/support", json=run_input("hi", state=_nested(80)))
    assert rebound.status_code == 400
    assert foreign.status_code == 403
    assert plain.status_code == 415
    assert large.status_code == 413
    assert deep.status_code == 422
    assert model.calls == []


def _nested(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"a": value}
    return value
