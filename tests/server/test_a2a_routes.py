"""The A2A routes on a real socket (uvicorn on 127.0.0.1): JSON-RPC errors with A2A's codes,
the security issue's checks (credentials, the resource from the credential only, ``Host``,
``Origin``, content type, body limits), background tasks and a client leaving (issue 26)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from procession import Agent, Memory
from procession.memory import SQLiteStorage
from procession.server import Auth, ServerLimits, create_app
from procession.server.a2a_tasks import MAX_RUNNING
from procession.server.a2a_wire import V03, V10, Said, Status, TaskView
from procession.testing import Reply, ScriptedModel
from tests.server.conftest import Live, live_server

KEY = "ada-key-0123456789abcdef"
ADA = {"authorization": f"Bearer {KEY}"}
RPC = "/api/a2a/support"
CARD = "/api/.well-known/support/agent-card.json"


@contextlib.asynccontextmanager
async def served(
    tmp_path: Path, *, delay: float = 0.0, remembers: bool = True
) -> AsyncIterator[tuple[Live, Memory]]:
    """An app with an API key for ``ada`` and an agent (with memory unless ``remembers`` is
    false)."""
    memory = Memory(SQLiteStorage(str(tmp_path / "a2a.db")))
    reply = Reply(text=[f"w{i} " for i in range(40)], delay=delay)
    agent = Agent(
        id="support",
        instructions="The secret prompt.",
        model=ScriptedModel([reply], repeat_last=True),
        memory=memory if remembers else None,
    )
    app = create_app(
        agent, auth=Auth(api_keys={KEY: "ada"}), limits=ServerLimits(max_body_bytes=4096)
    )
    async with live_server(app) as live:
        yield live, memory


def call(method: str, params: Any = None, request_id: Any = 1) -> dict[str, Any]:
    """A JSON-RPC request."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    return body


def send(text: str, **message: Any) -> dict[str, Any]:
    """``SendMessage`` params of a user's text message (1.0's shape)."""
    said = {"role": "ROLE_USER", "messageId": str(uuid.uuid4()), "parts": [{"text": text}]}
    return {"message": {**said, **message}}


async def rpc_error(client: httpx.AsyncClient, body: Any, **headers: str) -> dict[str, Any]:
    """The JSON-RPC error a request is answered with (``200``, as JSON-RPC over HTTP)."""
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = await client.post(
        RPC, content=content, headers={**ADA, "content-type": "application/json", **headers}
    )
    assert response.status_code == 200, response.text
    error: dict[str, Any] = response.json()["error"]
    return error


@pytest.mark.asyncio
async def test_malformed_requests_get_json_rpc_errors_with_a2a_codes(tmp_path: Path) -> None:
    async with served(tmp_path) as (live, _), live.client() as client:
        assert (await rpc_error(client, b"{not json"))["code"] == -32700
        assert (await rpc_error(client, [1, 2]))["code"] == -32600
        assert (await rpc_error(client, {"jsonrpc": "1.0", "id": 1, "method": "GetTask"}))[
            "code"
        ] == -32600
        unknown = await rpc_error(client, call("DoSomething", {}))
        assert unknown["code"] == -32601
        assert "DoSomething" in unknown["message"]
        version = await rpc_error(client, call("GetTask", {"id": "x"}), **{"A2A-Version": "9.1"})
        assert version["code"] == -32009
        mixed = await rpc_error(client, call("message/send", {}), **{"A2A-Version": "1.0"})
        assert mixed["code"] == -32601  # a 0.3 method in a request that says 1.0
        no_parts = await rpc_error(client, call("SendMessage", send("hi") | {"message": {}}))
        assert no_parts["code"] == -32602
        assert "params.message.role" in no_parts["message"]
        empty = send("hi")
        empty["message"]["parts"] = []
        assert (
            "params.message.parts"
            in (await rpc_error(client, call("SendMessage", empty)))["message"]
        )
        file_part = send("hi")
        file_part["message"]["parts"] = [{"url": "https://example.com/a.pdf"}]
        assert (await rpc_error(client, call("SendMessage", file_part)))["code"] == -32005
        push = call("CreateTaskPushNotificationConfig", {"taskId": "t"})
        assert (await rpc_error(client, push))["code"] == -32003
        assert (await rpc_error(client, call("GetExtendedAgentCard", {})))["code"] == -32007
        assert (await rpc_error(client, call("GetTask", {"id": "nope"})))["code"] == -32001
        lost = await rpc_error(client, call("GetTask", {}))
        assert lost["code"] == -32602
        assert "params.id" in lost["message"]


@pytest.mark.asyncio
async def test_both_routes_need_a_valid_credential(tmp_path: Path) -> None:
    async with served(tmp_path) as (live, _), live.client() as client:
        for headers in ({}, {"authorization": "Bearer wrong-key-0123456789"}):
            card = await client.get(CARD, headers=headers)
            assert card.status_code == 401
            assert card.headers["www-authenticate"].startswith("Bearer")
            sent = await client.post(RPC, json=call("SendMessage", send("hi")), headers=headers)
            assert sent.status_code == 401
        assert (await client.get(CARD, headers=ADA)).status_code == 200
        missing = await client.get("/api/.well-known/nobody/agent-card.json", headers=ADA)
        assert missing.status_code == 404


@pytest.mark.asyncio
async def test_the_resource_is_the_credential_s_never_the_body_s(tmp_path: Path) -> None:
    async with served(tmp_path) as (live, memory), live.client() as client:
        context = "ctx-" + uuid.uuid4().hex
        params = send("hi", contextId=context, metadata={"resourceId": "bob"})
        params["metadata"] = {"resourceId": "bob"}
        answer = await client.post(RPC, json=call("SendMessage", params), headers=ADA)
        task = answer.json()["result"]["task"]
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        thread = await memory.get_thread(context, resource_id="ada")
        assert thread is not None
        assert thread.resource_id == "ada"
        stored = await memory.list_messages(context, resource_id="ada")
        assert [m.role for m in stored] == ["user", "assistant"]


@pytest.mark.asyncio
async def test_foreign_hosts_origins_content_types_and_big_bodies_are_refused(
    tmp_path: Path,
) -> None:
    async with served(tmp_path) as (live, _), live.client() as client:
        body = call("SendMessage", send("hi"))
        rebinding = await client.get(CARD, headers={**ADA, "host": "evil.example"})
        assert rebinding.status_code == 400
        foreign = await client.post(RPC, json=body, headers={**ADA, "host": "evil.example:80"})
        assert foreign.status_code == 400
        csrf = await client.post(RPC, json=body, headers={**ADA, "origin": "https://evil.example"})
        assert csrf.status_code == 403
        plain = await client.post(
            RPC, content=json.dumps(body), headers={**ADA, "content-type": "text/plain"}
        )
        assert plain.status_code == 415
        big = call("SendMessage", send("x" * 5000))
        assert (await client.post(RPC, json=big, headers=ADA)).status_code == 413


@pytest.mark.asyncio
async def test_the_card_holds_no_instructions_and_the_request_s_own_url(tmp_path: Path) -> None:
    async with served(tmp_path) as (live, _), live.client() as client:
        for version in ("1.0", "0.3"):
            card = await client.get(CARD, headers={**ADA, "A2A-Version": version})
            assert "secret prompt" not in card.text
            urls = {i["url"] for i in card.json()["supportedInterfaces"]}
            assert urls == {live.url + RPC}
        assert "url" not in (await client.get(CARD, headers={**ADA, "A2A-Version": "1.0"})).json()


async def _state(client: httpx.AsyncClient, task_id: str) -> str:
    answer = await client.post(RPC, json=call("GetTask", {"id": task_id}), headers=ADA)
    state: str = answer.json()["result"]["status"]["state"]
    return state


async def _until_ended(client: httpx.AsyncClient, task_id: str) -> str:
    """Poll ``GetTask`` until the task ended (a bounded number of times)."""
    for _ in range(500):
        state = await _state(client, task_id)
        if state not in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"):
            return state
        await asyncio.sleep(0.02)
    raise AssertionError(f"task {task_id} never ended")


@pytest.mark.asyncio
async def test_a_background_task_runs_on_and_completes(tmp_path: Path) -> None:
    async with served(tmp_path, delay=0.002) as (live, _), live.client() as client:
        params = send("hi") | {"configuration": {"returnImmediately": True}}
        answer = await client.post(RPC, json=call("SendMessage", params), headers=ADA)
        task = answer.json()["result"]["task"]
        assert task["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
        assert await _until_ended(client, task["id"]) == "TASK_STATE_COMPLETED"


@pytest.mark.asyncio
async def test_a_subscriber_follows_a_background_task_to_its_end(
    tmp_path: Path,
) -> None:
    async with served(tmp_path, delay=0.01) as (live, _), live.client() as client:
        params = send("hi") | {"configuration": {"returnImmediately": True}}
        answer = await client.post(RPC, json=call("SendMessage", params), headers=ADA)
        task_id = answer.json()["result"]["task"]["id"]
        body = call("SubscribeToTask", {"id": task_id})
        async with client.stream("POST", RPC, json=body, headers=ADA) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            seen = [json.loads(line[6:])["result"] async for line in response.aiter_lines() if line]
        assert seen[0]["task"]["id"] == task_id
        last = seen[-1]["statusUpdate"] if len(seen) > 1 else seen[0]["task"]
        assert last["status"]["state"] == "TASK_STATE_COMPLETED"
        before = seen[0]["task"].get("artifacts", [])  # what was answered before the subscription
        pieces = [a["parts"][0]["text"] for a in before]
        pieces += [
            e["artifactUpdate"]["artifact"]["parts"][0]["text"]
            for e in seen[1:]
            if "artifactUpdate" in e
        ]
        assert "".join(pieces) == "".join(f"w{i} " for i in range(40))
        other = await rpc_error(client, call("SubscribeToTask", {"id": task_id + "x"}))
        assert other["code"] == -32001


@pytest.mark.asyncio
async def test_one_resource_may_run_only_so_many_tasks_at_once(tmp_path: Path) -> None:
    async with served(tmp_path, delay=0.5, remembers=False) as (live, _), live.client() as client:
        ids = []
        for _ in range(MAX_RUNNING):
            params = send("hi") | {"configuration": {"returnImmediately": True}}
            answer = await client.post(RPC, json=call("SendMessage", params), headers=ADA)
            ids.append(answer.json()["result"]["task"]["id"])
        for task_id in ids:  # all still running (each takes 40 deltas 0.5 s apart)
            assert await _state(client, task_id) in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
        refused = await rpc_error(client, call("SendMessage", send("one more")))
        assert refused["code"] == -32004
        assert "Too many tasks running" in refused["message"]
        for task_id in ids:
            await client.post(RPC, json=call("CancelTask", {"id": task_id}), headers=ADA)
        params = send("now") | {"configuration": {"returnImmediately": True}}
        again = await client.post(RPC, json=call("SendMessage", params), headers=ADA)
        task = again.json()["result"]["task"]  # accepted once the others ended
        assert task["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
        await client.post(RPC, json=call("CancelTask", {"id": task["id"]}), headers=ADA)


@pytest.mark.asyncio
async def test_a_client_leaving_its_stream_cancels_the_task(tmp_path: Path) -> None:  # D32
    async with served(tmp_path, delay=0.05) as (live, memory), live.client() as client:
        context = "ctx-" + uuid.uuid4().hex
        body = call("SendStreamingMessage", send("hi", contextId=context))
        async with client.stream("POST", RPC, json=body, headers=ADA) as response:
            lines = response.aiter_lines()
            first = json.loads((await anext(lines)).removeprefix("data: "))
        task_id = first["result"]["task"]["id"]
        assert await _until_ended(client, task_id) == "TASK_STATE_CANCELED"
        thread = await memory.get_thread(context, resource_id="ada")
        stored = [] if thread is None else await memory.list_messages(context, resource_id="ada")
        assert not stored  # D13: a canceled run stores nothing


def test_the_two_dialects_name_states_roles_and_events_their_own_way() -> None:
    said = Said("agent", "m1", [{"text": "hi"}, {"data": {"a": 1}}], "c1", "t1")
    view = TaskView(
        "t1", "c1", Status("input-required", said, "2026-01-01T00:00:00.000Z"), [], "a", ""
    )
    old, new = V03.status_event(view, view.status), V10.status_event(view, view.status)
    assert old["kind"] == "status-update"
    assert old["final"] is True
    assert old["status"]["state"] == "input-required"
    assert old["status"]["message"]["role"] == "agent"
    assert old["status"]["message"]["parts"] == [
        {"kind": "text", "text": "hi"},
        {"kind": "data", "data": {"a": 1}},
    ]
    assert new["statusUpdate"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert new["statusUpdate"]["status"]["message"]["role"] == "ROLE_AGENT"
    assert new["statusUpdate"]["status"]["message"]["parts"] == [{"text": "hi"}, {"data": {"a": 1}}]


@pytest.mark.asyncio
async def test_a_run_that_fails_ends_its_task_failed_with_the_reason() -> None:
    broken = Reply(text=["Par"], stream_error=RuntimeError("the stream broke"))
    agent = Agent(id="support", model=ScriptedModel([broken], repeat_last=True), max_retries=0)
    async with live_server(create_app(agent)) as live, live.client() as client:
        answer = await client.post(RPC, json=call("SendMessage", send("hi")))
        task = answer.json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_FAILED"
    (part,) = task["status"]["message"]["parts"]
    assert "the stream broke" in part["text"]
    assert task["status"]["message"]["role"] == "ROLE_AGENT"


@pytest.mark.asyncio
@pytest.mark.parametrize("version", ["1.0", "0.3"])
async def test_streamed_text_survives_quotes_newlines_and_any_request_id(version: str) -> None:
    pieces = ['say "hi"\n', "\\ ünï ", "\x00@ \u2028", "end"]
    agent = Agent(id="support", model=ScriptedModel([Reply(text=pieces)]))
    method = "SendStreamingMessage" if version == "1.0" else "message/stream"
    params = send("hi")
    if version == "0.3":
        params["message"] |= {"role": "user", "kind": "message"}
    request_id = '"\\u0000procession-a2a-text\\u0000"'  # looks like the server's own marker
    async with live_server(create_app(agent)) as live, live.client() as client:
        body = call(method, params, request_id=request_id)
        async with client.stream("POST", RPC, json=body) as response:
            lines = [line async for line in response.aiter_lines() if line]
    events = [json.loads(line.removeprefix("data: ")) for line in lines]
    assert {e["id"] for e in events} == {request_id}
    results = [e["result"] for e in events]
    updates = [r.get("artifactUpdate", r) for r in results]
    texts = [u["artifact"]["parts"][0]["text"] for u in updates if "artifact" in u]
    assert "".join(texts) == "".join(pieces)
