"""A reloaded chat renders as the live one: the stored UI messages keep the first step's
``step-start`` (issue 24), read back through the memory route on a real socket."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Memory, tool
from procession.server import create_app
from procession.testing import Reply, ToolCallScript

from .conftest import live_server, scripted_agent
from .helpers import read_events

pytestmark = pytest.mark.asyncio


@tool
async def weather(city: str) -> dict[str, Any]:
    """The weather in a city."""
    return {"city": city, "celsius": 21}


def live_parts(events: list[Any]) -> list[str]:
    """The part types useChat builds from the UI message stream: a ``step-start`` per
    ``start-step``, one part per text, reasoning or tool call."""
    parts: list[str] = []
    tools: set[str] = set()
    for event in events:
        if not isinstance(event, dict):
            continue
        kind = event["type"]
        if kind == "start-step":
            parts.append("step-start")
        elif kind in ("text-start", "reasoning-start"):
            parts.append(kind.removesuffix("-start"))
        elif kind == "tool-input-available" and event["toolCallId"] not in tools:
            tools.add(event["toolCallId"])
            parts.append(f"tool-{event['toolName']}")
    return parts


async def test_reloaded_parts_equal_live_parts(memory: Memory) -> None:
    agent = scripted_agent(
        "support",
        Reply(tool_calls=[ToolCallScript("weather", {"city": "Paris"}, id="w1")]),
        Reply(text=["It is 21°C."]),
        tools=[weather],
        memory=memory,
    )
    body = {
        "id": "chat-1",
        "trigger": "submit-message",
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Paris?"}]}],
    }
    async with live_server(create_app(agent)) as live, live.client() as client:
        response, events = await read_events(client, "/chat/support", body)
        stored = await client.get(
            "/api/memory/threads/chat-1/messages", params={"resourceId": "local"}
        )
    assert response.status_code == 200
    parts = live_parts(events)
    assert parts == ["step-start", "tool-weather", "step-start", "text"]
    reloaded = [m for m in stored.json()["uiMessages"] if m["role"] == "assistant"]
    assert [[p["type"] for p in m["parts"]] for m in reloaded] == [parts]
    db_parts = [m for m in stored.json()["messages"] if m["role"] == "assistant"]
    assert db_parts[0]["content"]["parts"][0]["type"] != "step-start"  # stored as Mastra does
