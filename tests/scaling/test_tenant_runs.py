"""Run ids across replicas (issue 20): a run id another resource holds in the chunk log is
refused on every replica, and the reconnect routes return a run only to its resource."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest

from tests.scaling.test_replicas import start_replicas
from tests.server.helpers import events


@pytest.fixture
def replicas(postgres_dsn: str, new_schema: str) -> Iterator[list[str]]:
    yield from start_replicas(postgres_dsn, new_schema, 2, SCALING_DELAY="0.03")


def _body(thread: str, resource: str) -> dict[str, Any]:
    return {
        "messages": "hello",
        "runId": "run-chosen-by-the-client",
        "memory": {"thread": thread, "resource": resource},
    }


def _text(received: list[Any]) -> str:
    return "".join(
        e["payload"]["text"] for e in received if isinstance(e, dict) and e["type"] == "text-delta"
    )


@pytest.mark.asyncio
async def test_another_resource_cannot_take_or_resume_a_run_on_any_replica(
    replicas: list[str],
) -> None:
    first, second = replicas
    path = "/api/agents/counter/stream"
    async with httpx.AsyncClient(timeout=30) as client:
        async with client.stream("POST", f"{first}{path}", json=_body("a-t", "ada")) as response:
            assert response.status_code == 200
            run_id = response.headers["x-procession-run-id"]
            head = ""
            async for text in response.aiter_text():
                head += text
                if head.count("\n\n") >= 3:
                    break
            taken = {
                url: await client.post(f"{url}{path}", json=_body("b-t", "bob")) for url in replicas
            }
            by_bob = await client.get(
                f"{second}{path}/{run_id}", params={"after": 0, "resourceId": "bob"}
            )
        by_ada = await client.get(
            f"{second}{path}/{run_id}", params={"after": 0, "resourceId": "ada"}
        )
    assert run_id == "run-chosen-by-the-client"
    for answer in taken.values():
        assert answer.status_code == 409, answer.text
        assert run_id in answer.json()["error"]
    assert by_bob.status_code == 404
    received = events(by_ada.text)
    assert received[-1] == "[DONE]"
    assert all(e == "[DONE]" or e["runId"] == run_id for e in received if "runId" in e)
    assert _text(received)  # ada's own run, from the log, untouched by bob's attempt
