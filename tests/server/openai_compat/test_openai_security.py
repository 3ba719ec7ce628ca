"""The security issue's tests on every OpenAI-compatible route (issue 26): credentials, the
resource and its threads, ``Host``/``Origin``, body limits, all answered in OpenAI's error
shape, against uvicorn on 127.0.0.1 (``serve()``'s own config where the token matters)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import openai
import pytest
import pytest_asyncio
from openai import AsyncOpenAI

from procession import Memory
from procession.memory import SQLiteStorage
from procession.server import Auth, ServerLimits, create_app
from procession.server.run import uvicorn_config
from procession.testing import Reply
from tests.server.conftest import live_config, live_server, scripted_agent

pytestmark = pytest.mark.asyncio

ALICE_KEY = "sk-alice-0123456789abcdef"
BOB_KEY = "sk-bob-0123456789abcdef00"
AUTH = Auth(api_keys={ALICE_KEY: "alice", BOB_KEY: "bob"})
ALICE = {"authorization": f"Bearer {ALICE_KEY}"}
CHAT = {"model": "support", "messages": [{"role": "user", "content": "hi"}]}
RESPONSE = {"model": "support", "input": "hi"}
ROUTES: list[tuple[str, str, Any]] = [
    ("POST", "/v1/chat/completions", CHAT),
    ("POST", "/v1/chat/completions", {**CHAT, "stream": True}),
    ("POST", "/v1/responses", RESPONSE),
    ("POST", "/v1/responses", {**RESPONSE, "stream": True}),
    ("GET", "/v1/models", None),
    ("GET", "/v1/models/support", None),
]
POSTS = [r for r in ROUTES if r[0] == "POST"]


def _openai_shaped(answer: Any) -> dict[str, Any]:
    body = answer.json()
    assert set(body) == {"error"}, body
    error: dict[str, Any] = body["error"]
    assert set(error) == {"message", "type", "param", "code"}, error
    assert isinstance(error["message"], str)
    assert error["message"]
    return error


async def _send(client: Any, method: str, path: str, body: Any, **kwargs: Any) -> Any:
    if method == "GET":
        return await client.get(path, **kwargs)
    return await client.post(path, json=body, **kwargs)


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    """A memory on a fresh SQLite file."""
    return Memory(SQLiteStorage(str(tmp_path / "memory.db")))


@pytest_asyncio.fixture
async def guarded(memory: Memory) -> AsyncIterator[Any]:
    """A server with API keys, an agent with memory, and small bodies."""
    agent = scripted_agent("support", "Noted.", memory=memory)
    app = create_app(agent, auth=AUTH, limits=ServerLimits(max_body_bytes=4096))
    async with live_server(app) as live:
        yield live, agent


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
async def test_no_or_a_wrong_credential_is_401(
    guarded: Any, method: str, path: str, body: Any
) -> None:
    live, agent = guarded
    async with live.client() as client:
        missing = await _send(client, method, path, body)
        wrong = await _send(client, method, path, body, headers={"authorization": "Bearer x" * 9})
    for answer in (missing, wrong):
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"].startswith("Bearer")
        error = _openai_shaped(answer)
        assert (error["type"], error["code"]) == ("authentication_error", "invalid_api_key")
    assert agent.model.calls == []


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
async def test_serve_s_access_token_gates_the_openai_routes(
    method: str, path: str, body: Any
) -> None:
    token = "tok-0123456789abcdef0123"
    config, _ = uvicorn_config(
        create_app(scripted_agent("support", "Hi")),
        host="127.0.0.1",
        port=0,
        log_level="warning",
        token=token,
    )
    async with live_config(config) as live, live.client() as client:
        refused = await _send(client, method, path, body)
        allowed = await _send(
            client, method, path, body, headers={"authorization": f"Bearer {token}"}
        )
    assert refused.status_code == 401
    assert "Missing access token" in _openai_shaped(refused)["message"]
    assert allowed.status_code == 200


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
async def test_a_foreign_host_is_400(guarded: Any, method: str, path: str, body: Any) -> None:
    live, agent = guarded
    async with live.client(headers=ALICE) as client:
        answer = await _send(client, method, path, body, headers={"host": "rebind.evil.example"})
    assert answer.status_code == 400
    assert "'rebind.evil.example' is not allowed" in _openai_shaped(answer)["message"]
    assert agent.model.calls == []


@pytest.mark.parametrize(("method", "path", "body"), POSTS)
async def test_a_foreign_origin_and_a_non_json_body_change_nothing(
    guarded: Any, method: str, path: str, body: Any
) -> None:
    live, agent = guarded
    async with live.client(headers=ALICE) as client:
        forged = await client.post(path, json=body, headers={"origin": "http://evil.example"})
        text = await client.post(
            path, content=json.dumps(body), headers={"content-type": "text/plain"}
        )
    assert forged.status_code == 403
    assert _openai_shaped(forged)["type"] == "permission_error"
    assert text.status_code == 415
    _openai_shaped(text)
    assert agent.model.calls == []


@pytest.mark.parametrize(("method", "path", "body"), POSTS)
async def test_a_body_over_the_limit_is_413_declared_or_chunked(
    guarded: Any, method: str, path: str, body: Any
) -> None:
    live, agent = guarded
    big = {**body, "metadata": {"note": "x" * 500}, "padding": "y" * 8000}
    raw = json.dumps(big).encode()

    async def chunked() -> AsyncIterator[bytes]:
        for start in range(0, len(raw), 1000):
            yield raw[start : start + 1000]

    async with live.client(headers=ALICE) as client:
        declared = await client.post(path, json=big)
        streamed = await client.post(
            path, content=chunked(), headers={"content-type": "application/json"}
        )
    for answer in (declared, streamed):
        assert answer.status_code == 413
        error = _openai_shaped(answer)
        assert error["code"] == "request_too_large"
        assert "4096 bytes" in error["message"]
    assert agent.model.calls == []


async def test_a_missing_path_and_malformed_json_are_openai_shaped(guarded: Any) -> None:
    live, _ = guarded
    async with live.client(headers=ALICE) as client:
        missing = await client.get("/v1/nothing-here")
        broken = await client.post(
            "/v1/chat/completions", content=b"{", headers={"content-type": "application/json"}
        )
        elsewhere = await client.get("/api/agents/nobody")
    assert missing.status_code == 404
    _openai_shaped(missing)
    assert broken.status_code == 400
    assert _openai_shaped(broken)["param"] == "body"
    assert elsewhere.json()["error"].startswith("Agent with id")  # Mastra's shape stays


def _sdk(url: str, key: str) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0)


async def test_another_tenant_s_thread_is_404_on_both_routes(guarded: Any, memory: Memory) -> None:
    live, _ = guarded
    thread = {"thread_id": "alice-chat"}
    async with _sdk(live.url, ALICE_KEY) as alice, _sdk(live.url, BOB_KEY) as bob:
        first = await alice.chat.completions.create(
            model="support",
            messages=[{"role": "user", "content": "my secret plan"}],
            metadata=thread,
        )
        assert first.choices[0].message.content == "Noted."
        refused: list[Exception] = []
        for stream in (False, True):
            with pytest.raises(openai.NotFoundError) as chat:
                await bob.chat.completions.create(
                    model="support",
                    messages=[{"role": "user", "content": "x"}],
                    metadata=thread,
                    stream=stream,
                )
            with pytest.raises(openai.NotFoundError) as response:
                await bob.responses.create(
                    model="support", input="x", metadata=thread, stream=stream
                )
            refused += [chat.value, response.value]
    for error in refused:
        assert "Thread not found" in str(error)
    stored = await memory.list_messages("alice-chat", resource_id="alice")
    assert [m.text for m in stored] == ["my secret plan", "Noted."]
    assert list(await memory.list_threads("bob")) == []


async def test_the_resource_is_the_credential_s_never_the_body_s(
    guarded: Any, memory: Memory
) -> None:
    live, _ = guarded
    async with _sdk(live.url, ALICE_KEY) as alice:
        await alice.chat.completions.create(
            model="support",
            messages=[{"role": "user", "content": "hello"}],
            metadata={"thread_id": "t1"},
            extra_body={"resourceId": "bob", "resource_id": "bob", "user": "bob"},
        )
    assert [t.id for t in await memory.list_threads("alice")] == ["t1"]
    assert list(await memory.list_threads("bob")) == []


async def test_without_a_thread_memory_is_neither_read_nor_written(
    guarded: Any, memory: Memory
) -> None:
    live, agent = guarded
    history = [
        {"role": "user", "content": "One"},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Two"},
    ]
    async with _sdk(live.url, ALICE_KEY) as alice:
        await alice.chat.completions.create(model="support", messages=history)  # type: ignore[arg-type]
        await alice.responses.create(model="support", input="Three")
    assert list(await memory.list_threads("alice")) == []
    prompt = agent.model.calls[0].prompt
    assert [m["role"] for m in prompt if m["role"] != "system"] == ["user", "assistant", "user"]


async def test_with_a_thread_the_history_comes_from_memory_once(
    guarded: Any, memory: Memory
) -> None:
    live, agent = guarded
    thread = {"thread_id": "t-history"}
    async with _sdk(live.url, ALICE_KEY) as alice:
        await alice.chat.completions.create(
            model="support", messages=[{"role": "user", "content": "One"}], metadata=thread
        )
        await alice.chat.completions.create(
            model="support",
            messages=[
                {"role": "user", "content": "One"},
                {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": "Two"},
            ],
            metadata=thread,
        )
    stored = await memory.list_messages("t-history", resource_id="alice")
    assert [(m.role, m.text) for m in stored] == [
        ("user", "One"),
        ("assistant", "Noted."),
        ("user", "Two"),
        ("assistant", "Noted."),
    ]
    texts = [str(m["content"]) for m in agent.model.calls[-1].prompt if m["role"] != "system"]
    assert sum("One" in t for t in texts) == 1


async def test_a_malformed_thread_id_is_400(guarded: Any) -> None:
    live, agent = guarded
    async with _sdk(live.url, ALICE_KEY) as alice:
        for bad in ("", "t\x00x", "t" * 513):
            with pytest.raises(openai.BadRequestError) as caught:
                await alice.chat.completions.create(
                    model="support",
                    messages=[{"role": "user", "content": "x"}],
                    metadata={"thread_id": bad},
                )
            assert caught.value.body["param"] == "metadata.thread_id"  # type: ignore[index]
    assert agent.model.calls == []


async def test_a_thread_for_an_agent_without_memory_is_400() -> None:
    agent = scripted_agent("support", "Hi")
    async with live_server(create_app(agent)) as live, _sdk(live.url, "unused") as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await client.chat.completions.create(
                model="support",
                messages=[{"role": "user", "content": "x"}],
                metadata={"thread_id": "t1"},
            )
    assert caught.value.body["param"] == "metadata.thread_id"  # type: ignore[index]
    assert agent.model.calls == []  # type: ignore[union-attr]


async def test_models_list_the_agents() -> None:
    agents = [scripted_agent("support", "Hi"), scripted_agent("billing", "Hi")]
    async with live_server(create_app(agents, auth=AUTH)) as live, _sdk(live.url, BOB_KEY) as c:
        listed = [m.id async for m in c.models.list()]
        one = await c.models.retrieve("billing")
        with pytest.raises(openai.NotFoundError) as caught:
            await c.models.retrieve("gpt-4o")
    assert listed == ["support", "billing"]
    assert (one.id, one.object, one.owned_by) == ("billing", "model", "procession")
    assert caught.value.code == "model_not_found"


async def test_a_failing_model_is_an_error_the_sdk_raises() -> None:
    reply = Reply(text=["Partial "], stream_error=RuntimeError("provider went away"))
    agent = scripted_agent("support", reply)
    async with live_server(create_app(agent)) as live, _sdk(live.url, "unused") as client:
        stream = await client.chat.completions.create(
            model="support", messages=[{"role": "user", "content": "x"}], stream=True
        )
        with pytest.raises(openai.APIError, match="provider went away"):
            _ = [chunk async for chunk in stream]
        events = await client.responses.create(model="support", input="x", stream=True)
        kinds = [e.type async for e in events]
    assert kinds[-1] == "response.failed"


async def test_the_routes_answer_relative_to_where_the_app_is_mounted() -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    inner = create_app(scripted_agent("support", "Hi"), auth=AUTH)
    outer = Starlette(routes=[Mount("/agents", app=inner)])
    async with live_server(outer) as live, _sdk(f"{live.url}/agents", ALICE_KEY) as client:
        completion = await client.chat.completions.create(
            model="support", messages=[{"role": "user", "content": "x"}]
        )
        models = [m.id async for m in client.models.list()]
        with pytest.raises(openai.AuthenticationError) as caught:
            await client.with_options(api_key="sk-wrong-0123456789abcdef").models.list()
    assert completion.choices[0].message.content == "Hi"
    assert models == ["support"]
    assert caught.value.code == "invalid_api_key"
