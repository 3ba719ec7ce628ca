"""A stranger's requests against the real server (uvicorn on 127.0.0.1, built by the same
``uvicorn_config`` that ``serve()`` runs): foreign ``Host`` headers (DNS rebinding),
cross-origin state changes (CSRF), non-JSON bodies, the access token of a server without
credentials, and malformed ids and JSON answered with a 4xx naming the field (issue 20)."""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from procession import Agent, Memory
from procession.errors import ConfigurationError
from procession.memory import SQLiteStorage
from procession.server import CORS, Auth, Scaling, create_app
from procession.server.chunk_log import ChunkLog
from procession.server.run import uvicorn_config
from procession.testing import ScriptedModel
from tests.memory.crash_harness import drop_schema
from tests.server.conftest import live_config, live_server

TOKEN = "tok-" + uuid.uuid4().hex
BEARER = {"authorization": f"Bearer {TOKEN}"}
BODY = {"messages": "hi", "memory": {"thread": "t1", "resource": "ada"}}


class Served:
    """A running server: its URL, and the model and memory behind it."""

    def __init__(self, url: str, model: ScriptedModel, memory: Memory, token: str | None):
        self.url, self.model, self.memory, self.token = url, model, memory, token

    def client(self, **kwargs: Any) -> httpx.AsyncClient:
        """A client for the server, sending no credential unless given."""
        return httpx.AsyncClient(base_url=self.url, timeout=10, **kwargs)

    async def stored_threads(self) -> list[Any]:
        """The threads of resource ``ada`` (what a forged request would have written)."""
        return list(await self.memory.list_threads("ada"))


@contextlib.asynccontextmanager
async def served(tmp: Path, **options: Any) -> AsyncIterator[Served]:
    """``serve()``'s server for an agent with memory, on a free loopback port."""
    model = ScriptedModel(["Hello there"], repeat_last=True)
    memory = Memory(SQLiteStorage(str(tmp / "memory.db")))
    app_options = {k: options.pop(k) for k in ("cors", "allowed_hosts", "auth") if k in options}
    app = create_app(Agent(id="support", model=model, memory=memory), **app_options)
    config, token = uvicorn_config(app, host="127.0.0.1", port=0, log_level="warning", **options)
    async with live_config(config) as live:
        yield Served(live.url, model, memory, token)


# --- Host: DNS rebinding -------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_foreign_host_is_refused_on_every_route(tmp_path: Path) -> None:
    async with served(tmp_path, token=TOKEN) as live, live.client(headers=BEARER) as client:
        rebound = {"host": "rebind.evil.example"}
        answers = [
            await client.get("/api/memory/threads?resourceId=ada", headers=rebound),
            await client.get("/studio", headers=rebound),
            await client.get("/api/studio/runs", headers=rebound),
            await client.post("/api/agents/support/generate", json=BODY, headers=rebound),
        ]
        for name in ("localhost", "127.0.0.1", "[::1]", "LOCALHOST:9"):
            ok = await client.get("/api/agents", headers={"host": name})
            assert ok.status_code == 200, name
        assert live.model.calls == []
        assert await live.stored_threads() == []
    for answer in answers:
        assert answer.status_code == 400
        assert "'rebind.evil.example' is not allowed" in answer.json()["error"]


@pytest.mark.asyncio
async def test_allowed_hosts_name_a_deployment(tmp_path: Path) -> None:
    hosts = ["api.example.com", "*.internal.example"]
    async with served(tmp_path, token=False, allowed_hosts=hosts) as live, live.client() as c:
        named = await c.get("/api/agents", headers={"host": "api.example.com:443"})
        sub = await c.get("/api/agents", headers={"host": "a.internal.example"})
        loopback = await c.get("/api/agents", headers={"host": "127.0.0.1"})
    assert named.status_code == sub.status_code == 200
    assert loopback.status_code == 400  # the list replaces the loopback default


def test_allowed_hosts_are_checked_when_the_app_is_built() -> None:
    agent = Agent(id="a", model=ScriptedModel(["x"]))
    for bad in ("localhost", ["http://x.example"], ["x.example:80"], []):
        with pytest.raises(ConfigurationError, match="allowed_hosts"):
            create_app(agent, allowed_hosts=bad)


# --- Origin and content type: CSRF ----------------------------------------------------------


@pytest.mark.asyncio
async def test_the_issue_s_cross_origin_text_plain_post_runs_nothing(tmp_path: Path) -> None:
    async with served(tmp_path, token=TOKEN) as live, live.client(headers=BEARER) as client:
        port = live.url.rsplit(":", 1)[1]
        forged = await client.post(
            "/api/agents/support/generate",
            content=json.dumps(BODY),
            headers={"content-type": "text/plain", "origin": "http://evil.example"},
        )
        rebound = await client.post(
            "/api/agents/support/generate",
            content=json.dumps(BODY),
            headers={
                "content-type": "text/plain",
                "origin": f"http://rebind.evil.example:{port}",
                "host": f"rebind.evil.example:{port}",
            },
        )
        assert live.model.calls == []
        assert await live.stored_threads() == []
    assert forged.status_code == 403
    assert "'http://evil.example' may not change anything" in forged.json()["error"]
    assert rebound.status_code == 400


@pytest.mark.asyncio
async def test_origins_other_than_the_server_s_and_the_cors_list_are_refused(
    tmp_path: Path,
) -> None:
    cors = CORS(allow_origins=["http://localhost:3000"])
    async with (
        served(tmp_path, token=TOKEN, cors=cors) as live,
        live.client(headers=BEARER) as client,
    ):
        path = "/api/agents/support/generate"
        refused = [
            await client.post(path, json=BODY, headers={"origin": origin})
            for origin in ("null", "http://evil.example", "http://localhost:3001", "file://")
        ]
        deleted = await client.delete("/api/memory/threads/t1", headers={"origin": "null"})
        assert live.model.calls == []
        none = await client.post(path, json=BODY)  # Node, curl, the openai SDK
        listed = await client.post(path, json=BODY, headers={"origin": "http://localhost:3000"})
        own = await client.post(path, json=BODY, headers={"origin": live.url})  # Studio
        read = await client.get("/api/agents", headers={"origin": "http://evil.example"})
    assert [r.status_code for r in refused] == [403, 403, 403, 403]
    assert deleted.status_code == 403
    assert none.status_code == listed.status_code == own.status_code == 200
    assert read.status_code == 200  # reading needs CORS to be readable: the browser enforces it
    assert len(live.model.calls) == 3


@pytest.mark.asyncio
async def test_only_json_bodies_are_accepted(tmp_path: Path) -> None:
    async with served(tmp_path, token=TOKEN) as live, live.client(headers=BEARER) as client:
        path = "/api/agents/support/generate"
        text = json.dumps(BODY)
        answers = {
            kind: await client.post(path, content=text, headers={"content-type": kind})
            for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data")
        }
        bare = await client.post(path, content=text)
        assert live.model.calls == []
        vendor = await client.post(
            path, content=text, headers={"content-type": "application/vnd.api+json"}
        )
        charset = await client.post(
            path, content=text, headers={"content-type": "application/json; charset=utf-8"}
        )
    for kind, answer in answers.items():
        assert answer.status_code == 415, kind
        assert f"Content-Type {kind!r} is not accepted" in answer.json()["error"]
    assert bare.status_code == 415
    assert vendor.status_code == charset.status_code == 200


# --- The access token ----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_token_gates_every_route_but_health(tmp_path: Path) -> None:
    async with served(tmp_path, token=TOKEN) as live, live.client() as client:
        missing = await client.get("/api/agents")
        wrong = await client.get("/api/agents", headers={"authorization": "Bearer nope" * 3})
        studio = await client.get("/studio")
        post = await client.post("/api/agents/support/generate", json=BODY)
        health = await client.get("/health")
        assert live.model.calls == []
        right = await client.post("/api/agents/support/generate", json=BODY, headers=BEARER)
        # the token only gates: the run acts as the resource its body names, as without it
        threads = await client.get("/api/memory/threads?resourceId=ada", headers=BEARER)
    for answer in (missing, wrong, studio, post):
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"].startswith("Bearer")
    assert "Missing access token" in missing.json()["error"]
    assert health.status_code == 200
    assert right.status_code == 200
    assert [t["id"] for t in threads.json()["threads"]] == ["t1"]


@pytest.mark.asyncio
async def test_the_query_token_becomes_a_strict_http_only_cookie(tmp_path: Path) -> None:
    async with served(tmp_path, token=TOKEN) as live, live.client() as client:
        opened = await client.get(f"/studio?token={TOKEN}&x=1")
        bad = await client.get("/studio?token=not-the-token-at-all")
        cookie = opened.headers["set-cookie"]
        name, value = cookie.split(";")[0].split("=", 1)
        jar = {"cookie": f"{name}={value}"}
        page = await client.get("/studio", headers=jar)
        api = await client.get("/api/agents", headers=jar)
        other = await client.get("/api/agents", headers={"cookie": f"{name}=x{value}"})
    assert opened.status_code == 303
    assert opened.headers["location"] == "/studio?x=1"  # the token leaves the address bar
    assert value == TOKEN
    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    assert "Path=/" in cookie
    assert bad.status_code == 401
    assert "set-cookie" not in bad.headers
    assert page.status_code == api.status_code == 200
    assert other.status_code == 401


@pytest.mark.asyncio
async def test_a_token_is_random_unless_fixed_and_off_only_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PROCESSION_TOKEN", raising=False)
    async with served(tmp_path) as first, served(tmp_path) as second:
        assert first.token is not None
        assert second.token is not None
        assert first.token != second.token
        assert len(first.token) >= 43
        async with first.client() as client:
            assert (await client.get("/api/agents")).status_code == 401
            auth = {"authorization": f"Bearer {first.token}"}
            assert (await client.get("/api/agents", headers=auth)).status_code == 200
    monkeypatch.setenv("PROCESSION_TOKEN", TOKEN)
    async with served(tmp_path) as fixed, fixed.client(headers=BEARER) as client:
        assert fixed.token == TOKEN
        assert (await client.get("/api/agents")).status_code == 200
    async with served(tmp_path, token=False) as off, off.client() as client:
        assert off.token is None
        assert (await client.get("/api/agents")).status_code == 200


@pytest.mark.asyncio
async def test_an_app_with_credentials_has_no_token(tmp_path: Path) -> None:
    auth = Auth(api_keys={"sk-0123456789abcdef": "ada"})
    async with served(tmp_path, auth=auth) as live, live.client() as client:
        assert live.token is None
        keyed = await client.get("/api/agents", headers={"x-api-key": "sk-0123456789abcdef"})
        assert keyed.status_code == 200
        assert (await client.get("/api/agents")).status_code == 401
    with pytest.raises(ConfigurationError, match="token"):
        uvicorn_config(create_app(Agent(id="a"), auth=auth), token=TOKEN)


def test_serve_reads_the_app_s_own_credentials() -> None:
    open_app = create_app(Agent(id="a", model=ScriptedModel(["x"])))
    auth = Auth(api_keys={"sk-0123456789abcdef": "ada"})
    with pytest.raises(ConfigurationError, match="without credentials"):
        uvicorn_config(open_app, host="0.0.0.0")
    with pytest.raises(ConfigurationError, match="not the app's credentials"):
        uvicorn_config(open_app, host="0.0.0.0", auth=auth)  # the old hole: auth= was trusted
    guarded_app = create_app(Agent(id="a", model=ScriptedModel(["x"])), auth=auth)
    config, token = uvicorn_config(guarded_app, host="0.0.0.0", port=0)
    assert token is None
    assert config.host == "0.0.0.0"


# --- Malformed input: a 4xx naming the field ----------------------------------------------


def _field(response: httpx.Response) -> str:
    issues = response.json().get("issues") or [{"field": ""}]
    return str(issues[0]["field"])


@pytest.mark.asyncio
async def test_deep_json_is_422_naming_the_field(tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    nested: Any = "x"
    for _ in range(100):
        nested = {"a": nested}
    async with served(tmp_path, token=TOKEN) as live, live.client(headers=BEARER) as client:
        base = "/api/memory/threads?resourceId=ada&agentId=support"
        metadata = await client.get(f"{base}&metadata={deep}")
        deep_object = await client.get(f"{base}&metadata=" + json.dumps(nested))
        body = await client.post(
            "/api/memory/threads?agentId=support",
            json={"resourceId": "ada", "metadata": nested},
        )
        generate = await client.post(
            "/api/agents/support/generate", json={**BODY, "requestContext": nested}
        )
        assert live.model.calls == []
        await client.post("/api/agents/support/generate", json=BODY)  # thread t1 exists now
        order = await client.get(
            f"/api/memory/threads/t1/messages?resourceId=ada&agentId=support&orderBy={deep}"
        )
    assert (metadata.status_code, _field(metadata)) == (422, "metadata")
    assert (deep_object.status_code, _field(deep_object)) == (422, "metadata")
    assert (order.status_code, _field(order)) == (422, "orderBy")
    assert (body.status_code, _field(body)) == (422, "body")
    assert (generate.status_code, _field(generate)) == (422, "body")


@pytest.mark.asyncio
async def test_control_characters_in_ids_are_refused_before_anything_runs(
    tmp_path: Path,
) -> None:
    async with served(tmp_path, token=TOKEN) as live, live.client(headers=BEARER) as client:
        path = "/api/agents/support/generate"
        crlf = await client.post(path, json={**BODY, "runId": "run-1\r\nX-Evil: 1"})
        nul = await client.post(path, json={**BODY, "runId": "run\x00"})
        long = await client.post(path, json={**BODY, "runId": "r" * 257})
        thread = await client.post(
            path, json={**BODY, "memory": {"thread": "t\x00", "resource": "a"}}
        )
        approval = await client.post(
            "/api/agents/support/send-tool-approval",
            json={"toolCallId": "c1", "approved": True, "runId": "r\n1"},
        )
        query = await client.get("/api/memory/threads?resourceId=ada%00&agentId=support")
        in_path = await client.get("/api/memory/threads/t%00x?agentId=support&resourceId=ada")
        assert live.model.calls == []
        fine = await client.post(path, json={**BODY, "runId": "run-ok-1"})
    for answer in (crlf, nul, long, approval):
        assert (answer.status_code, _field(answer)) == (422, "runId"), answer.text
    assert "control characters" in crlf.json()["issues"][0]["message"]
    assert "at most 256" in long.json()["issues"][0]["message"]
    assert (thread.status_code, _field(thread)) == (422, "memory.thread")
    assert (query.status_code, _field(query)) == (422, "resourceId")
    assert in_path.status_code == 400
    assert "path" in in_path.json()["error"]
    assert fine.status_code == 200


@pytest.mark.asyncio
async def test_a_reconnect_run_id_with_a_nul_or_too_long_is_4xx(
    tmp_path: Path, postgres_dsn: str
) -> None:
    schema = f"edge_{uuid.uuid4().hex[:10]}"
    scaling = Scaling(chunk_log=ChunkLog(postgres_dsn, schema=schema))
    app = create_app(Agent(id="support", model=ScriptedModel(["Hi"])), scaling=scaling)
    try:
        async with live_server(app) as live, live.client() as client:
            nul = await client.get("/api/agents/support/stream/run%00x")
            long = await client.get("/api/agents/support/stream/" + "r" * 300)
            unknown = await client.get("/api/agents/support/stream/no-such-run")
    finally:
        await drop_schema(postgres_dsn, schema)
    assert nul.status_code == 400
    assert "control characters" in nul.json()["error"]
    assert (long.status_code, _field(long)) == (422, "runId")
    assert unknown.status_code == 404


@pytest.mark.asyncio
async def test_a_missing_provider_key_is_a_server_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    app = create_app(Agent(id="support", model="openai/gpt-5-mini"))
    async with live_server(app) as live, live.client() as client:
        generate = await client.post("/api/agents/support/generate", json={"messages": "hi"})
        chat = await client.post(
            "/chat/support",
            json={
                "messages": [
                    {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}
                ]
            },
        )
    assert generate.status_code == 500
    error = generate.json()["error"]
    assert error.startswith("Server configuration error: ")
    assert "OPENAI_API_KEY" in error
    assert "issues" not in generate.json()
    assert chat.status_code == 500 or "OPENAI_API_KEY" in chat.text


def test_a_made_token_never_starts_with_a_dash() -> None:
    # pasted after --token, a leading dash would read as another option
    from procession.server.access import new_token

    assert not any(new_token().startswith("-") for _ in range(2000))
