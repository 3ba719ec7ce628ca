"""Resumable streams across replicas (issue 16): a client cut off at a random event
reconnects to any replica with the run id and the number of events it had, and gets exactly
the rest; a disconnect detaches (the run goes on and is stored), and a run nobody re-attaches
to is cancelled and stores nothing (D32, D13)."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest

from tests.scaling.test_replicas import start_replicas
from tests.server.helpers import events


@pytest.fixture
def replicas(postgres_dsn: str, new_schema: str) -> Iterator[list[str]]:
    yield from start_replicas(postgres_dsn, new_schema, 3, SCALING_DELAY="0.03")


def _body(thread: str, resource: str = "ada") -> dict[str, Any]:
    return {"messages": "hello", "memory": {"thread": thread, "resource": resource}}


async def _first(
    client: httpx.AsyncClient, url: str, body: Any, count: int
) -> tuple[str, list[Any]]:
    """Read ``count`` events of a new stream, then drop the connection."""
    got: list[Any] = []
    buffer = ""
    async with client.stream("POST", f"{url}/api/agents/counter/stream", json=body) as response:
        assert response.status_code == 200
        run_id = response.headers["x-procession-run-id"]
        async for text in response.aiter_text():
            buffer += text
            while "\n\n" in buffer and len(got) < count:
                event, buffer = buffer.split("\n\n", 1)
                got.extend(events(event + "\n\n"))
            if len(got) >= count:
                break
    return run_id, got


def _text(received: list[Any]) -> str:
    return "".join(
        e["payload"]["text"] for e in received if isinstance(e, dict) and e["type"] == "text-delta"
    )


@pytest.mark.asyncio
async def test_a_cut_stream_continues_on_any_replica(replicas: list[str]) -> None:
    rng = random.Random(7)
    async with httpx.AsyncClient(timeout=30) as client:
        _, whole = await _first(client, replicas[0], _body("reference"), 10**6)
        total = len(whole)
        assert whole[-1] == "[DONE]"
        for case in range(8):
            cut = rng.randrange(1, total - 1)
            first_url, second_url = rng.sample(replicas, 2)
            run_id, head = await _first(client, first_url, _body(f"t{case}"), cut)
            assert len(head) == cut
            response = await client.get(
                f"{second_url}/api/agents/counter/stream/{run_id}",
                params={"after": cut, "resourceId": "ada"},
            )
            assert response.status_code == 200, response.text
            received = head + events(response.text)
            assert [e if e == "[DONE]" else e["type"] for e in received] == [
                e if e == "[DONE]" else e["type"] for e in whole
            ], f"cut at {cut}"
            assert all(e == "[DONE]" or e["runId"] == run_id for e in received if "runId" in e)
            stored = await client.get(
                f"{second_url}/api/memory/threads/t{case}/messages",
                params={"agentId": "counter", "resourceId": "ada"},
            )
            assert _text(received) == stored.json()["messages"][-1]["content"]["parts"][0]["text"]
            other = await client.get(  # another resource cannot read the run
                f"{first_url}/api/agents/counter/stream/{run_id}", params={"resourceId": "bob"}
            )
            assert other.status_code == 404


@pytest.mark.asyncio
async def test_runs_nobody_reattaches_to_are_cancelled(postgres_dsn: str, new_schema: str) -> None:
    urls = start_replicas(postgres_dsn, new_schema, 2, SCALING_DELAY="0.3", SCALING_DETACH="0.5")
    replicas = next(urls)
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            await _first(client, replicas[0], _body("left"), 2)  # then gone for good
            run_id, _ = await _first(client, replicas[0], _body("back"), 2)
            response = await client.get(  # back in time, on the other replica: detached only
                f"{replicas[1]}/api/agents/counter/stream/{run_id}",
                params={"after": 2, "resourceId": "ada"},
            )
            assert events(response.text)[-1] == "[DONE]"
            await asyncio.sleep(4)
            for thread, stored in (("left", 0), ("back", 2)):
                listed = await client.get(
                    f"{replicas[1]}/api/memory/threads/{thread}/messages",
                    params={"agentId": "counter", "resourceId": "ada"},
                )
                found = listed.json()["messages"] if listed.status_code == 200 else []
                assert len(found) == stored, json.dumps(found)[:300]
    finally:
        urls.close()
