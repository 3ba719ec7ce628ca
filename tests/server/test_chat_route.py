"""The AI SDK UI message stream at POST /chat/{agentId}, on a real socket."""

from __future__ import annotations

import json
from typing import Any

import pytest

from procession import Memory, Processor, tool
from procession.server import create_app
from procession.testing import Reply, ToolCallScript

from .conftest import live_server, scripted_agent
from .helpers import read_events

pytestmark = pytest.mark.asyncio


def ui(text: str, message_id: str, role: str = "user") -> dict[str, Any]:
    """A UI message as useChat sends it."""
    return {"id": message_id, "role": role, "parts": [{"type": "text", "text": text}]}


def chat_body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"id": "chat-1", "messages": list(messages), "trigger": "submit-message", **extra}


@tool
async def weather(city: str) -> dict[str, Any]:
    """The weather in a city."""
    return {"city": city, "celsius": 21}


class WantsLonger(Processor):
    id = "wants-longer"

    def process_output_step(
        self, *, tool_calls: Any, retry_count: int, abort: Any, **_: Any
    ) -> None:
        if not tool_calls and retry_count == 0:
            abort("Answer in a full sentence.", retry=True)


class Progress(Processor):
    id = "progress"

    async def process_input_step(self, *, writer: Any, step_number: int, **_: Any) -> None:
        await writer.custom({"type": "data-progress", "data": {"step": step_number}})


async def test_the_stream_is_the_ui_message_protocol() -> None:
    agent = scripted_agent(
        "support",
        Reply(tool_calls=[ToolCallScript("weather", {"city": "Paris"}, id="w1")]),
        Reply(text=["It is ", "21°C."]),
        tools=[weather],
        input_processors=[Progress()],
    )
    async with live_server(create_app(agent)) as live, live.client() as client:
        response, events = await read_events(client, "/chat/support", chat_body(ui("Paris?", "u1")))
    assert response.status_code == 200
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert response.headers["content-type"].startswith("text/event-stream")
    assert events[-1] == "[DONE]"
    kinds = [e["type"] for e in events[:-1]]
    assert kinds == [
        "start",
        "data-progress",
        "start-step",
        "tool-input-available",
        "tool-output-available",
        "finish-step",
        "data-progress",
        "start-step",
        "text-start",
        "text-delta",
        "text-delta",
        "text-end",
        "finish-step",
        "finish",
    ]
    call = events[3]
    assert call == {
        "type": "tool-input-available",
        "toolCallId": "w1",
        "toolName": "weather",
        "input": {"city": "Paris"},
    }
    assert events[4] == {
        "type": "tool-output-available",
        "toolCallId": "w1",
        "output": {"city": "Paris", "celsius": 21},
    }
    assert [e["delta"] for e in events if isinstance(e, dict) and e["type"] == "text-delta"] == [
        "It is ",
        "21°C.",
    ]
    assert events[1]["data"] == {"step": 0}
    assert events[-2] == {"type": "finish", "finishReason": "stop"}
    assert events[0]["messageId"].endswith("-response")


async def test_a_rejected_attempt_never_reaches_the_page_by_default() -> None:  # D31
    def make() -> Any:
        return scripted_agent(
            "support",
            Reply(text=["Short."]),
            Reply(text=["A full sentence."]),
            output_processors=[WantsLonger()],
            max_processor_retries=1,
        )

    async with live_server(create_app(make())) as live, live.client() as client:
        _, held = await read_events(client, "/chat/support", chat_body(ui("hi", "u1")))
    async with live_server(create_app(make())) as live, live.client() as client:
        body = chat_body(ui("hi", "u1"), release="live")
        _, live_events = await read_events(client, "/chat/support", body)
    deltas = [e["delta"] for e in held if isinstance(e, dict) and e["type"] == "text-delta"]
    assert deltas == ["A full sentence."]
    assert "reset-step" not in [e["type"] for e in held[:-1]]
    live_kinds = [e["type"] for e in live_events[:-1]]
    # live: the rejected attempt streamed, then reset-step takes it back (AI SDK 7)
    assert live_kinds.index("reset-step") < live_kinds.index("finish")
    assert [e["delta"] for e in live_events[:-1] if e["type"] == "text-delta"] == [
        "Short.",
        "A full sentence.",
    ]


async def test_a_tripwire_is_a_data_tripwire_part_then_finish() -> None:  # D12
    class Block(Processor):
        id = "block"

        def process_input(self, *, abort: Any, **_: Any) -> None:
            abort("Blocked content detected in input")

    agent = scripted_agent("support", input_processors=[Block()])
    async with live_server(create_app(agent)) as live, live.client() as client:
        response, events = await read_events(client, "/chat/support", chat_body(ui("x", "u1")))
    assert response.status_code == 200
    assert events[0] == {
        "type": "data-tripwire",
        "data": {
            "reason": "Blocked content detected in input",
            "retry": False,
            "metadata": None,
            "processorId": "block",
        },
    }
    assert events[1:] == [{"type": "finish", "finishReason": "other"}, "[DONE]"]


async def test_malformed_ui_messages_are_422_before_any_stream() -> None:
    async with live_server(create_app(scripted_agent())) as live, live.client() as client:
        bad_part = await client.post(
            "/chat/support",
            json=chat_body({"id": "u1", "role": "user", "parts": [{"type": "text"}]}),
        )
        no_messages = await client.post("/chat/support", json={"id": "c", "messages": []})
        bad_trigger = await client.post(
            "/chat/support", json=chat_body(ui("x", "u1"), trigger="again")
        )
    assert bad_part.status_code == 422
    assert bad_part.json()["issues"][0]["field"] == "messages[0].parts[0].text"
    assert no_messages.status_code == 422
    assert no_messages.json()["issues"][0]["field"] == "messages"
    assert bad_trigger.status_code == 422
    assert bad_trigger.json()["issues"][0]["field"] == "trigger"


async def test_with_memory_the_chat_id_is_the_thread_and_history_is_not_duplicated(
    memory: Memory,
) -> None:
    agent = scripted_agent(
        "support", Reply(text=["First answer."]), Reply(text=["Second answer."]), memory=memory
    )
    async with live_server(create_app(agent)) as live, live.client() as client:
        _, first = await read_events(client, "/chat/support", chat_body(ui("One", "u1")))
        answer = ui("First answer.", first[0]["messageId"], role="assistant")
        _, second = await read_events(
            client, "/chat/support", chat_body(ui("One", "u1"), answer, ui("Two", "u2"))
        )
    assert second[-2] == {"type": "finish", "finishReason": "stop"}
    stored = await memory.list_messages("chat-1", resource_id="local")
    assert [(m.role, m.text) for m in stored] == [
        ("user", "One"),
        ("assistant", "First answer."),
        ("user", "Two"),
        ("assistant", "Second answer."),
    ]
    assert stored[1].id == first[0]["messageId"]  # the page's message id is the stored one
    prompt = agent.model.calls[-1].prompt  # type: ignore[union-attr]
    texts = [str(m["content"]) for m in prompt if m["role"] != "system"]
    assert sum("One" in t for t in texts) == 1  # the history came from memory, once


async def test_a_tool_that_needs_approval_waits_for_the_caller_s_decision() -> None:
    from procession.approvals import LocalApprovals
    from procession.server import Auth

    @tool(requires_approval=True)
    async def refund(order_id: str) -> str:
        """Refund an order."""
        return f"refunded {order_id}"

    def make() -> Any:
        return scripted_agent(
            "support",
            Reply(tool_calls=[ToolCallScript("refund", {"order_id": "A-1"}, id="r1")]),
            Reply(text=["Done."]),
            tools=[refund],
            approvals=LocalApprovals(),
        )

    auth = Auth(api_keys={"alice-key-0123456789ab": "alice", "bob-key-0123456789abcd": "bob"})
    alice = {"Authorization": "Bearer alice-key-0123456789ab"}
    bob = {"Authorization": "Bearer bob-key-0123456789abcd"}
    outcomes: dict[bool, list[Any]] = {}
    for approved in (True, False):
        async with live_server(create_app(make(), auth=auth)) as live, live.client() as client:
            events: list[Any] = []
            body = chat_body(ui("Refund A-1", "u1"))
            async with client.stream("POST", "/chat/support", json=body, headers=alice) as response:
                async for line in response.aiter_lines():
                    if not line.startswith("data: "):
                        continue
                    events.append(line[6:])
                    if '"tool-approval-request"' in line:
                        decision = {"toolCallId": "r1", "approved": approved, "reason": "no"}
                        path = "/api/agents/support/send-tool-approval"
                        by_bob = await client.post(path, json=decision, headers=bob)
                        assert by_bob.status_code == 404  # not bob's run
                        accepted = await client.post(path, json=decision, headers=alice)
                        assert accepted.json()["accepted"] is True
                        assert accepted.json()["toolCallId"] == "r1"
        outcomes[approved] = [e if e == "[DONE]" else json.loads(e) for e in events]
    kinds = {k: [e["type"] for e in v[:-1]] for k, v in outcomes.items()}
    assert "tool-approval-request" in kinds[True]
    assert kinds[True].index("tool-approval-request") < kinds[True].index("tool-output-available")
    assert "tool-output-denied" in kinds[False]
    assert "tool-output-available" not in kinds[False]
    assert outcomes[True][-2] == {"type": "finish", "finishReason": "stop"}
