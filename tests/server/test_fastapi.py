"""docs/fastapi.md: its example app, run as written, then driven over loopback with a real
FastAPI app on uvicorn: the mount under a prefix, the shared lifespan, one set of credentials
for the mounted API and your own routes, and an agent streamed from your own route."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import pytest

from procession import Agent, Memory
from procession.errors import StorageError
from procession.server import Auth
from procession.testing import RecordingProcessor, Reply, ScriptedModel

from .conftest import live_server

GUIDE = Path(__file__).parents[2] / "docs" / "fastapi.md"
KEY = "sk-ada-0123456789abcdef"
BEARER = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture(scope="module")
def guide() -> dict[str, Any]:
    """The guide's first Python block, run as written (it serves itself once and prints)."""
    pytest.importorskip("fastapi")
    block = re.search(r"^```python\n(.*?)^```", GUIDE.read_text(), re.S | re.M)
    assert block is not None
    namespace: dict[str, Any] = {"__name__": "fastapi_guide"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block.group(1), str(GUIDE), "exec", dont_inherit=True), namespace)
    namespace["printed"] = out.getvalue()
    return namespace


def _assistant(*replies: str, **options: Any) -> Agent:
    model = ScriptedModel([Reply(text=[r]) for r in replies])
    return Agent(id="assistant", model=model, **options)


def test_the_guides_example_runs_and_prints_what_it_says(guide: dict[str, Any]) -> None:
    assert guide["printed"].splitlines() == ["['assistant']", "Hello from procession."]


@pytest.mark.asyncio
async def test_one_set_of_credentials_guards_the_mount_and_your_routes(
    guide: dict[str, Any],
) -> None:
    api = guide["build_api"]({"assistant": _assistant("a", "b")}, Auth(api_keys={KEY: "ada"}))
    async with live_server(api) as live, live.client() as client:
        for path, body in (
            ("/ask", {"question": "hi"}),
            ("/ai/api/agents/assistant/generate", {"messages": "hi"}),
        ):
            refused = await client.post(path, json=body)
            assert refused.status_code == 401, path
            assert refused.headers["www-authenticate"].startswith("Bearer")
            wrong = await client.post(path, json=body, headers={"X-API-Key": "sk-wrong-key-000000"})
            assert wrong.status_code == 401, path
        mounted = await client.post(
            "/ai/api/agents/assistant/generate", json={"messages": "hi"}, headers=BEARER
        )
        assert mounted.status_code == 200
        assert mounted.json()["text"] == "a"
        own = await client.post("/ask", json={"question": "hi"}, headers={"X-API-Key": KEY})
        assert own.status_code == 200
        assert own.text == "b"


@pytest.mark.asyncio
async def test_your_route_streams_the_agent_as_the_credentials_resource(
    guide: dict[str, Any],
) -> None:
    seen: list[str | None] = []

    def look(**kw: Any) -> None:
        seen.append(kw["request_context"].resource_id)

    probe = RecordingProcessor("probe", process_input=look)
    agent = _assistant("streamed answer", input_processors=[probe])
    api = guide["build_api"]({"assistant": agent}, Auth(api_keys={KEY: "ada"}))
    async with live_server(api) as live, live.client() as client:
        body = {"question": "hi", "resource_id": "mallory"}  # not a field: ignored
        async with client.stream("POST", "/ask", json=body, headers=BEARER) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/plain")
            text = "".join([piece async for piece in response.aiter_text()])
    assert text == "streamed answer"
    assert seen == ["ada"]


@pytest.mark.asyncio
async def test_the_mounted_apps_lifespan_runs_inside_yours(
    guide: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROCESSION_DB", str(tmp_path / "app.db"))
    memory = Memory()  # owns its storage: procession's lifespan closes it at shutdown
    agent = _assistant("x", memory=memory)
    api = guide["build_api"]({"assistant": agent}, Auth(api_keys={KEY: "ada"}))
    async with live_server(api) as live, live.client() as client:
        health = await client.get("/ai/health")
        assert health.json() == {"status": "ok"}
        assert await memory.get_thread("t-1", resource_id="ada") is None  # open while serving
    with pytest.raises(StorageError, match="closed"):
        await memory.get_thread("t-1", resource_id="ada")
