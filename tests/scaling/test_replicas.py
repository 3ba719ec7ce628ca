"""Three server processes on one PostgreSQL under load (issue 16): turns on one thread are
serialised across replicas (none lost, doubled or interleaved), threads run in parallel, and
a caller only ever reaches its own resource's threads."""

from __future__ import annotations

import asyncio
import os
import random
import re
import socket
import subprocess
import sys
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.server.helpers import events

ROOT = Path(__file__).resolve().parents[2]


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_up(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"replica exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise TimeoutError(url)


def start_replicas(
    dsn: str, schema: str, count: int, **env: str
) -> Generator[list[str], None, None]:
    """``count`` uvicorn processes serving ``replica_app``; their base URLs."""
    processes: list[subprocess.Popen[bytes]] = []
    urls = []
    try:
        for n in range(count):
            port = _port()
            variables = {"SCALING_DSN": dsn, "SCALING_SCHEMA": schema, "SCALING_REPLICA": str(n)}
            processes.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "uvicorn",
                        "--factory",
                        "tests.scaling.replica_app:app",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        str(port),
                        "--log-level",
                        "warning",
                    ],
                    cwd=ROOT,
                    env={**os.environ, **variables, **env},
                )
            )
            urls.append(f"http://127.0.0.1:{port}")
        for url, process in zip(urls, processes, strict=True):
            _wait_up(url, process)
        yield urls
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture
def replicas(postgres_dsn: str, new_schema: str) -> Iterator[list[str]]:
    yield from start_replicas(postgres_dsn, new_schema, 3)


async def _turn(client: httpx.AsyncClient, url: str, resource: str, thread: str, n: int) -> str:
    body = {
        "messages": f"turn {n}",
        "resourceId": resource,
        "memory": {"thread": thread, "resource": resource},
    }
    async with client.stream("POST", f"{url}/api/agents/counter/stream", json=body) as response:
        assert response.status_code == 200, await response.aread()
        text = (await response.aread()).decode()
    return "".join(
        e["payload"]["text"]
        for e in events(text)
        if isinstance(e, dict) and e["type"] == "text-delta"
    )


@pytest.mark.asyncio
async def test_three_replicas_serialise_each_thread(replicas: list[str]) -> None:
    rng = random.Random(16)
    threads = [(f"res-{r}", f"thread-{r}-{t}") for r in range(3) for t in range(4)]
    turns = 5
    async with httpx.AsyncClient(timeout=60) as client:
        jobs = [
            _turn(client, rng.choice(replicas), resource, thread, n)
            for n in range(turns)
            for resource, thread in threads
        ]
        rng.shuffle(jobs)
        started = time.monotonic()
        answers = await asyncio.gather(*jobs)
        elapsed = time.monotonic() - started
        assert len(answers) == len(threads) * turns
        for resource, thread in threads:
            url = rng.choice(replicas)
            listed = await client.get(
                f"{url}/api/memory/threads/{thread}/messages",
                params={"agentId": "counter", "resourceId": resource, "perPage": 100},
            )
            assert listed.status_code == 200, listed.text
            messages = listed.json()["messages"]
            roles = [m["role"] for m in messages]
            assert roles == ["user", "assistant"] * turns  # none lost or doubled
            texts = [_text(m) for m in messages]
            assert sorted(texts[0::2]) == sorted(f"turn {n}" for n in range(turns))
            seen = [int(re.search(r"seen=(\d+)", t).group(1)) for t in texts[1::2]]  # type: ignore[union-attr]
            assert seen == [2 * i + 1 for i in range(turns)]  # never interleaved
            other = "res-0" if resource != "res-0" else "res-1"
            foreign = await client.get(
                f"{url}/api/memory/threads/{thread}/messages",
                params={"agentId": "counter", "resourceId": other},
            )
            assert foreign.status_code == 404  # per-resource isolation
        mine = await client.get(
            f"{replicas[0]}/api/memory/threads",
            params={"agentId": "counter", "resourceId": "res-2"},
        )
        assert sorted(t["id"] for t in mine.json()["threads"]) == [
            f"thread-2-{t}" for t in range(4)
        ]
    # 12 threads x 5 turns of >= 0.1 s each: in parallel across threads, far below serial
    assert elapsed < len(threads) * turns * 0.1


def _text(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    parts = content["parts"] if isinstance(content, dict) else content
    return "".join(p.get("text", "") for p in parts if isinstance(p, dict))


@pytest.mark.asyncio
async def test_a_busy_thread_answers_409(postgres_dsn: str, new_schema: str) -> None:
    urls = start_replicas(
        postgres_dsn, new_schema, 2, SCALING_LOCK_TIMEOUT="0.2", SCALING_DELAY="0.1"
    )
    replicas = next(urls)
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            body = {
                "messages": "slow",
                "resourceId": "ada",
                "memory": {"thread": "t", "resource": "ada"},
            }
            async with client.stream(
                "POST", f"{replicas[0]}/api/agents/counter/stream", json=body
            ) as first:
                assert first.status_code == 200
                second = await client.post(f"{replicas[1]}/api/agents/counter/generate", json=body)
                await first.aread()
            assert second.status_code == 409
            assert "busy" in second.json()["error"]
    finally:
        urls.close()
