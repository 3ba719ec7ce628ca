"""Gemini 3's server-side tools (``toolCall`` / ``toolResponse``) and code execution beside a
function call, through an agent on loopback, and the model turn they make on the next step.

The fixture ``google/server-tool-combination-gemini3.sse`` is written to the documented part
shapes (see ``fixtures/README.md``), not recorded.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from procession import Agent, tool
from procession.models.google import GoogleModel
from tests.models.gemini_server import text_reply
from tests.models.scripted_server import ScriptedServer
from tests.models.wire_fixtures import fixture_reply, fixture_text

pytest.importorskip("httpx2")

NAME = "google/server-tool-combination-gemini3.sse"


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return "sunny, 20 C"


@pytest_asyncio.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    async with ScriptedServer() as scripted:
        yield scripted


def _parts() -> list[dict[str, Any]]:
    events = [json.loads(b[6:]) for b in fixture_text(NAME).split("\n\n") if b.strip()]
    return [part for e in events for part in e["candidates"][0]["content"]["parts"]]


async def _run(server: ScriptedServer) -> tuple[list[Any], Any]:
    model = GoogleModel("gemini-3-flash-preview", api_key="g-key", base_url=f"{server.url}/v1beta")
    agent = Agent(id="weather", instructions="Answer.", model=model, tools=[weather])
    server.script(fixture_reply(NAME), text_reply("Sunny, 20 C, no warning."))
    stream = agent.stream("Any weather warning in Lisbon? In Celsius.")
    chunks = [chunk async for chunk in stream]
    result = await stream.result()
    await model.aclose()
    return chunks, result


@pytest.mark.asyncio
async def test_server_tool_parts_become_provider_executed_calls_and_results(
    server: ScriptedServer,
) -> None:
    chunks, result = await _run(server)
    calls = [c.payload for c in chunks if c.type == "tool-call"]
    assert [(c["toolName"], c.get("providerExecuted")) for c in calls] == [
        ("GOOGLE_SEARCH_WEB", True),
        ("code_execution", True),
        ("weather", None),
    ]
    search = _parts()[0]
    assert calls[0]["toolCallId"] == "k3x9sq1a"
    assert calls[0]["args"] == {"queries": ["Lisbon weather warning today"]}
    assert calls[0]["providerMetadata"] == {
        "google": {
            "serverToolType": "GOOGLE_SEARCH_WEB",
            "thoughtSignature": search["thoughtSignature"],
        }
    }
    results = [c.payload for c in chunks if c.type == "tool-result"]
    assert [r.get("providerExecuted") for r in results] == [True, True, None]
    assert results[0]["result"] == _parts()[1]["toolResponse"]["response"]
    assert result.text == "Sunny, 20 C, no warning."


@pytest.mark.asyncio
async def test_server_tool_parts_go_back_as_they_came_with_their_signatures(
    server: ScriptedServer,
) -> None:
    await _run(server)
    turn = server.requests[1].body["contents"][1]
    assert turn["role"] == "model"
    # every part of the signed turn, in order: no functionCall invented for a server tool
    assert turn["parts"] == _parts()[:5]
    reply = server.requests[1].body["contents"][2]
    assert [p["functionResponse"]["name"] for p in reply["parts"]] == ["weather"]
