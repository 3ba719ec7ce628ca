"""Disconnects, graceful shutdown, body limits and CORS, on a real socket."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx2 as httpx
import pytest

from procession import ConfigurationError, Memory, tool
from procession.server import CORS, ServerLimits, create_app
from procession.testing import Reply, ToolCallScript

from .conftest import live_server, scripted_agent

pytestmark = pytest.mark.asyncio


class SlowTool:
    """A tool that waits until cancelled, and says when it started and was cancelled."""

    def __init__(self, seconds: float = 30) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()
        self.seconds = seconds

        @tool
        async def slow_lookup(query: str) -> str:
            """Look something up, slowly."""
            self.started.set()
            try:
                await asyncio.sleep(self.seconds)
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
            return "found"

        self.tool = slow_lookup


def tool_agent(slow: SlowTool, memory: Memory | None = None) -> Any:
    return scripted_agent(
        "support",
        Reply(tool_calls=[ToolCallScript("slow_lookup", {"query": "x"})]),
        Reply(text=["Done."]),
        tools=[slow.tool],
        memory=memory,
    )


async def test_a_client_leaving_a_stream_cancels_the_run_at_once(memory: Memory) -> None:  # D32
    slow = SlowTool()
    app = create_app(tool_agent(slow, memory))
    async with live_server(app) as live, live.client() as client:
        body = {"messages": "go", "memory": {"thread": "t", "resource": "ada"}}
        async with client.stream("POST", "/api/agents/support/stream", json=body) as response:
            async for line in response.aiter_lines():
                if '"tool-call"' in line:
                    break
        await asyncio.wait_for(slow.started.wait(), 5)
        await asyncio.wait_for(slow.cancelled.wait(), 2)
    assert await memory.list_threads("ada") == []  # D13: a cancelled run stores nothing


async def test_a_client_leaving_a_generate_call_cancels_the_run(memory: Memory) -> None:  # D32
    slow = SlowTool()
    app = create_app(tool_agent(slow, memory))
    async with live_server(app) as live, live.client(timeout=0.5) as client:
        body = {"messages": "go", "memory": {"thread": "t", "resource": "ada"}}
        with pytest.raises(httpx.ReadTimeout):
            await client.post("/api/agents/support/generate", json=body)
        await asyncio.wait_for(slow.cancelled.wait(), 2)
    assert await memory.list_threads("ada") == []


async def test_shutdown_lets_a_run_in_flight_finish_and_store_its_turn(memory: Memory) -> None:
    agent = scripted_agent(
        "support", Reply(text=["one ", "two ", "three"], delay=0.2), memory=memory
    )
    app = create_app(agent)
    async with live_server(app, timeout_graceful_shutdown=10) as live, live.client() as client:
        body = {"messages": "go", "memory": {"thread": "t", "resource": "ada"}}
        async with client.stream("POST", "/api/agents/support/stream", json=body) as response:
            lines = []
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    lines.append(line)
                    if len(lines) == 1:
                        live.server.should_exit = True  # what SIGTERM does
    assert lines[-1] == "data: [DONE]"
    assert sum('"text-delta"' in line for line in lines) == 3
    stored = await memory.list_messages("t", resource_id="ada")
    assert [m.text for m in stored] == ["go", "one two three"]


async def test_shutdown_past_its_grace_cancels_the_run_and_stores_nothing(memory: Memory) -> None:
    slow = SlowTool()
    app = create_app(tool_agent(slow, memory))
    async with live_server(app, timeout_graceful_shutdown=1) as live, live.client() as client:
        body = {"messages": "go", "memory": {"thread": "t", "resource": "ada"}}
        async with client.stream("POST", "/api/agents/support/stream", json=body) as response:
            lines = []
            with contextlib.suppress(httpx.HTTPError):
                async for line in response.aiter_lines():
                    lines.append(line)
                    if '"tool-call"' in line:
                        live.server.should_exit = True
        assert slow.cancelled.is_set()
    assert "data: [DONE]" not in lines
    assert await memory.list_threads("ada") == []


async def _chunks(size: int, count: int) -> AsyncIterator[bytes]:
    for _ in range(count):
        yield b" " * size


async def test_bodies_over_the_limit_are_413_with_a_json_error() -> None:
    app = create_app(scripted_agent(), limits=ServerLimits(max_body_bytes=1000))
    async with live_server(app) as live, live.client() as client:
        json_type = {"content-type": "application/json"}
        declared = await client.post(
            "/api/agents/support/generate", content=b"x" * 1001, headers=json_type
        )
        chunked = await client.post(
            "/api/agents/support/generate", content=_chunks(400, 5), headers=json_type
        )
        fits = await client.post("/api/agents/support/generate", json={"messages": "hi"})
    for response in (declared, chunked):
        assert response.status_code == 413
        assert response.json() == {"error": "Request body is larger than the limit of 1000 bytes"}
    assert fits.status_code == 200


async def test_cors_answers_allowed_origins_only() -> None:
    app = create_app(scripted_agent(), cors=CORS(allow_origins=["http://localhost:3000"]))
    preflight = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    }
    async with live_server(app) as live, live.client() as client:
        allowed = await client.options(
            "/chat/support", headers={"Origin": "http://localhost:3000", **preflight}
        )
        denied = await client.options(
            "/chat/support", headers={"Origin": "http://evil.test", **preflight}
        )
        simple = await client.get("/api/agents", headers={"Origin": "http://localhost:3000"})
        plain = await client.get("/api/agents", headers={"Origin": "http://evil.test"})
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "http://localhost:3000"
    assert "content-type" in allowed.headers["access-control-allow-headers"].lower()
    assert denied.status_code == 400
    assert simple.headers["access-control-allow-origin"] == "http://localhost:3000"
    assert "access-control-allow-origin" not in plain.headers


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: ServerLimits(max_body_bytes=0), "ServerLimits.max_body_bytes"),
        (lambda: ServerLimits(max_body_bytes=True), "ServerLimits.max_body_bytes"),
        (lambda: CORS(allow_origins="http://a"), "CORS.allow_origins"),
        (lambda: CORS(allow_origins=[]), "CORS.allow_origins"),
        (lambda: CORS(allow_origins=["*"], allow_credentials=True), "explicit origins"),
        (lambda: create_app([]), "agents"),
        (lambda: create_app(["not an agent"]), "an Agent"),  # type: ignore[list-item]
        (lambda: create_app([scripted_agent("a"), scripted_agent("a")]), "unique"),
        (lambda: create_app(scripted_agent(), limits=1000), "limits"),  # type: ignore[arg-type]
        (lambda: create_app(scripted_agent(), expose_instructions=1), "expose_instructions"),  # type: ignore[arg-type]
    ],
)
async def test_bad_server_settings_are_configuration_errors(build: Any, words: str) -> None:  # D35
    with pytest.raises(ConfigurationError, match=words):
        build()
