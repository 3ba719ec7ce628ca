"""Durable runs behind ``procession serve`` (issue 16): two real replicas on one PostgreSQL
and one DBOS database. A tool that needs approval suspends the run durably; the approval is
posted to the other replica; the run finishes once. And with the replica that executes the
run SIGKILLed while it waits, the other replica resumes it, still waiting; it is approved
there, the client reconnects there, the tool runs once and the turn is stored once (D13)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx2 as httpx
import pytest

from tests.durable.test_dbos_kills import _database_url, _drop_database
from tests.server.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "tests" / "durable" / "serve_app.py")
BODY = {"messages": "Refund order 7", "memory": {"thread": "t1", "resource": "ada"}}


class Replicas:
    """``procession serve`` processes of one deployment (started by name)."""

    def __init__(self, dsn: str, url: str, schema: str, effects: Path) -> None:
        self.dsn, self.url, self.schema, self.effects = dsn, url, schema, effects
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.urls: dict[str, str] = {}

    def start(self, name: str) -> str:
        port = free_port()
        command = [sys.executable, "-m", "procession", "serve", APP, "--port", str(port)]
        command += ["--no-token"]  # replicas behind one address: the token is not under test
        command += ["--durable", self.url, "--executor-id", name]
        command += ["--chunk-log", self.dsn, "--chunk-log-schema", self.schema]
        env = {
            **os.environ,
            "SERVE_DSN": self.dsn,
            "SERVE_SCHEMA": self.schema,
            "SERVE_EFFECTS": str(self.effects),
        }
        process = subprocess.Popen(command, cwd=ROOT, env=env)
        self.processes[name] = process
        base = self.urls[name] = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"replica {name} exited with {process.returncode}")
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    return base
            except httpx.HTTPError:
                time.sleep(0.1)
        raise TimeoutError(base)

    def kill(self, name: str) -> None:
        self.processes[name].send_signal(signal.SIGKILL)
        self.processes[name].wait()

    def close(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture
def replicas(postgres_dsn: str, new_schema: str, tmp_path: Path) -> Iterator[Replicas]:
    name = f"procession_dbos_{uuid.uuid4().hex[:8]}"
    group = Replicas(postgres_dsn, _database_url(postgres_dsn, name), new_schema, tmp_path / "fx")
    group.effects.touch()
    try:
        yield group
    finally:
        group.close()
        asyncio.run(_drop_database(postgres_dsn, name))


async def _events(response: httpx.Response) -> AsyncIterator[Any]:
    async for line in response.aiter_lines():
        if line.startswith("data: "):
            data = line[len("data: ") :]
            yield data if data == "[DONE]" else json.loads(data)


async def _until_approval(events: AsyncIterator[Any], seen: list[Any]) -> Any:
    async for event in events:
        seen.append(event)
        if isinstance(event, dict) and event.get("type") == "tool-call-approval":
            return event
    raise AssertionError(f"no approval was asked for: {seen}")


async def _approve(client: httpx.AsyncClient, base: str, asked: Any) -> None:
    body = {
        "runId": asked["runId"],
        "toolCallId": asked["payload"]["toolCallId"],
        "approved": True,
        "resourceId": "ada",
    }
    response = await client.post(f"{base}/api/agents/desk/send-tool-approval", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["runId"] == asked["runId"]


async def _stored(client: httpx.AsyncClient, base: str) -> list[str]:
    response = await client.get(
        f"{base}/api/memory/threads/t1/messages", params={"agentId": "desk", "resourceId": "ada"}
    )
    assert response.status_code == 200, response.text
    return [m["role"] for m in response.json()["messages"]]


def _text(events: list[Any]) -> str:
    return "".join(
        e["payload"]["text"] for e in events if isinstance(e, dict) and e["type"] == "text-delta"
    )


@pytest.mark.asyncio
async def test_an_approval_posted_to_another_replica_resumes_the_run(replicas: Replicas) -> None:
    first, second = replicas.start("a"), replicas.start("b")
    seen: list[Any] = []
    async with httpx.AsyncClient(timeout=60) as client:
        async with client.stream("POST", f"{first}/api/agents/desk/stream", json=BODY) as response:
            assert response.status_code == 200
            events = _events(response)
            asked = await _until_approval(events, seen)
            assert asked["payload"]["toolName"] == "refund"
            await _approve(client, second, asked)
            seen += [event async for event in events]
        assert seen[-1] == "[DONE]"
        assert _text(seen) == "Checking.Refund done."
        assert await _stored(client, second) == ["user", "assistant"]
        assert await _stored(client, first) == ["user", "assistant"]
    assert len(replicas.effects.read_text().splitlines()) == 1  # the tool ran once


async def _executor_of(url: str, run_id: str) -> tuple[str, str]:
    conn = await asyncpg.connect(url)
    try:
        row = await conn.fetchrow(
            "SELECT status, executor_id FROM dbos.workflow_status WHERE workflow_uuid = $1", run_id
        )
    finally:
        await conn.close()
    assert row is not None
    return row["status"], row["executor_id"]


async def _taken_over(url: str, run_id: str, executor: str) -> None:
    deadline = time.monotonic() + 60
    while (found := await _executor_of(url, run_id)) != ("PENDING", executor):
        assert time.monotonic() < deadline, found
        await asyncio.sleep(0.2)


@pytest.mark.asyncio
async def test_a_run_waiting_for_approval_survives_its_replica(replicas: Replicas) -> None:
    first, second = replicas.start("a"), replicas.start("b")
    seen: list[Any] = []
    async with httpx.AsyncClient(timeout=60) as client:
        async with client.stream("POST", f"{first}/api/agents/desk/stream", json=BODY) as response:
            asked = await _until_approval(_events(response), seen)
            replicas.kill("a")
        run_id = asked["runId"]
        await _taken_over(replicas.url, run_id, "b")  # resumed on b, waiting again
        await asyncio.sleep(0.5)
        assert await _executor_of(replicas.url, run_id) == ("PENDING", "b")
        path = f"{second}/api/agents/desk/stream/{run_id}"
        query: dict[str, str | int] = {"after": len(seen), "resourceId": "ada"}
        async with client.stream("GET", path, params=query) as response:
            assert response.status_code == 200, await response.aread()
            events = _events(response)
            await _approve(client, second, asked)
            rest = [event async for event in events]
        assert rest[-1] == "[DONE]"
        assert "tool-call-approval" not in [e["type"] for e in rest[:-1]]  # not shown twice
        assert _text(seen + rest) == "Checking.Refund done."
        assert await _stored(client, second) == ["user", "assistant"]
    assert await _executor_of(replicas.url, run_id) == ("SUCCESS", "b")
    assert len(replicas.effects.read_text().splitlines()) == 1  # the tool ran once
