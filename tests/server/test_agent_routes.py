"""Mastra's agent routes on a real socket: list, get, generate and the chunk stream."""

from __future__ import annotations

import json
from typing import Any

import pytest

from procession import Processor, tool
from procession.server import create_app
from procession.testing import Reply, ToolCallScript

from .conftest import live_server, scripted_agent
from .helpers import read_events

pytestmark = pytest.mark.asyncio


@tool
def lookup_order(order_id: str) -> dict[str, str]:
    """Look up an order by its id."""
    return {"order_id": order_id, "status": "shipped"}


class Redact(Processor):
    id = "redact"
    name = "Redactor"

    def process_output_stream(self, *, part: Any, **_: Any) -> Any:
        if part.type == "text-delta":
            part.payload["text"] = part.payload["text"].replace("4111", "****")
        return part


class WantsLonger(Processor):
    """Rejects the first answer once (D1), so the run retries."""

    id = "wants-longer"

    def process_output_step(
        self, *, tool_calls: Any, retry_count: int, abort: Any, **_: Any
    ) -> None:
        if not tool_calls and retry_count == 0:
            abort("Answer in a full sentence.", retry=True)


async def test_list_and_get_agents_in_mastras_shape() -> None:
    support = scripted_agent(
        "support",
        description="Helps customers",
        instructions="You are the secret support prompt.",
        tools=[lookup_order],
        output_processors=[Redact()],
    )
    app = create_app([support, scripted_agent("billing")])
    async with live_server(app) as live, live.client() as client:
        listed = (await client.get("/api/agents")).json()
        one = await client.get("/api/agents/support")
    assert sorted(listed) == ["billing", "support"]
    agent = one.json()
    assert agent == listed["support"]
    assert agent["name"] == "support"
    assert agent["description"] == "Helps customers"
    assert agent["provider"] == "scripted"
    assert agent["modelId"] == "scripted-model"
    assert agent["outputProcessors"] == [{"id": "redact", "name": "Redactor"}]
    schema = json.loads(agent["tools"]["lookup_order"]["inputSchema"])["json"]  # superjson
    assert schema["properties"]["order_id"]["type"] == "string"
    assert "instructions" not in agent  # the system prompt stays on the server by default


async def test_instructions_are_exposed_only_when_asked() -> None:
    agent = scripted_agent("support", instructions="Be brief.")
    app = create_app(agent, expose_instructions=True)
    async with live_server(app) as live, live.client() as client:
        body = (await client.get("/api/agents/support")).json()
    assert body["instructions"] == "Be brief."


async def test_an_unknown_agent_is_404_with_a_json_error() -> None:
    async with live_server(create_app(scripted_agent())) as live, live.client() as client:
        got = await client.get("/api/agents/nobody")
        posted = await client.post("/api/agents/nobody/generate", json={"messages": "hi"})
    assert got.status_code == posted.status_code == 404
    assert got.json() == {"error": "Agent with id nobody not found"}


async def test_generate_answers_mastras_full_output_with_tool_calls_as_chunks() -> None:
    agent = scripted_agent(
        "support",
        Reply(tool_calls=[ToolCallScript("lookup_order", {"order_id": "A-1"}, id="c1")]),
        Reply(text=["Order A-1 ", "has shipped."]),
        tools=[lookup_order],
    )
    async with live_server(create_app(agent)) as live, live.client() as client:
        response = await client.post(
            "/api/agents/support/generate", json={"messages": [{"role": "user", "content": "A-1?"}]}
        )
    assert response.status_code == 200
    out = response.json()
    assert out["text"] == "Order A-1 has shipped."
    assert out["finishReason"] == "stop"
    assert [s["finishReason"] for s in out["steps"]] == ["tool-calls", "stop"]
    call = out["toolCalls"][0]
    assert call["type"] == "tool-call"  # client-js reads toolCall.payload.toolName
    assert call["payload"] == {
        "toolCallId": "c1",
        "toolName": "lookup_order",
        "args": {"order_id": "A-1"},
    }
    assert out["toolResults"][0]["payload"]["result"] == {"order_id": "A-1", "status": "shipped"}
    assert out["usage"]["totalTokens"] == out["usage"]["inputTokens"] + out["usage"]["outputTokens"]
    roles = [m["role"] for m in out["response"]["messages"]]
    assert roles == ["assistant", "tool", "assistant"]


async def test_a_blocked_run_is_a_200_with_the_tripwire_and_no_text() -> None:  # D12
    class Block(Processor):
        id = "block"

        def process_input(self, *, messages: Any, abort: Any, **_: Any) -> None:
            abort("No secrets here", metadata={"rule": "s1"})

    agent = scripted_agent("support", input_processors=[Block()])
    async with live_server(create_app(agent)) as live, live.client() as client:
        out = (await client.post("/api/agents/support/generate", json={"messages": "x"})).json()
    assert out["text"] == ""
    assert out["finishReason"] == "other"
    assert out["tripwire"]["reason"] == "No secrets here"
    assert out["tripwire"]["processorId"] == "block"
    assert out["tripwire"]["metadata"] == {"rule": "s1"}


async def test_stream_is_mastras_sse_framing_with_the_request_redacted() -> None:  # D22
    agent = scripted_agent(
        "support", Reply(text=["Card 4111 ", "ok"]), output_processors=[Redact()]
    )
    async with live_server(create_app(agent)) as live, live.client() as client:
        response, chunks = await read_events(
            client, "/api/agents/support/stream", {"messages": "hi"}
        )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert chunks[-1] == "[DONE]"
    kinds = [c["type"] for c in chunks[:-1]]
    assert kinds == [
        "start",
        "step-start",
        "text-start",
        "text-delta",
        "text-delta",
        "text-end",
        "step-finish",
        "finish",
    ]
    run_ids = {c["runId"] for c in chunks[:-1]}
    assert len(run_ids) == 1
    assert all(c["from"] == "AGENT" for c in chunks[:-1])
    assert chunks[1]["payload"]["request"] == {}  # the provider request never leaves the server
    text = "".join(c["payload"]["text"] for c in chunks[:-1] if c["type"] == "text-delta")
    assert text == "Card **** ok"
    assert chunks[-2]["payload"]["stepResult"]["reason"] == "stop"


async def test_stream_live_marks_a_rejected_attempt_and_step_hides_it() -> None:  # D2, D31
    def make() -> Any:
        return scripted_agent(
            "support",
            Reply(text=["Short."]),
            Reply(text=["A full sentence."]),
            output_processors=[WantsLonger()],
            max_processor_retries=2,
        )

    texts: dict[str, list[str]] = {}
    reasons: dict[str, list[str]] = {}
    for release in ("live", "step"):
        async with live_server(create_app(make())) as live, live.client() as client:
            body = {"messages": "hi", "release": release}
            _, chunks = await read_events(client, "/api/agents/support/stream", body)
        texts[release] = [
            c["payload"]["text"] for c in chunks if c != "[DONE]" and c["type"] == "text-delta"
        ]
        reasons[release] = [
            c["payload"]["stepResult"]["reason"]
            for c in chunks
            if c != "[DONE]" and c["type"] == "step-finish"
        ]
    assert texts["live"] == ["Short.", "A full sentence."]
    assert reasons["live"] == ["retry", "stop"]
    assert texts["step"] == ["A full sentence."]
    assert reasons["step"] == ["stop"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"messages": [{"role": "bogus", "content": "x"}]}, "messages[0].role"),
        ({"messages": [{"role": "user", "content": 5}]}, "messages[0].content"),
        ({"messages": []}, "messages"),
        ({"messages": "hi", "maxSteps": 0}, "maxSteps"),
        ({"messages": "hi", "maxSteps": True}, "maxSteps"),  # a bool is not an int
        ({"messages": "hi", "clientTools": {"x": {}}}, "clientTools"),
        ({"messages": "hi", "model": "openai/gpt-5"}, "model"),
        ({"messages": "hi", "toolChoice": {"type": "tool"}}, "toolChoice.toolName"),
        ({"messages": "hi", "modelSettings": {"temperature": 9}}, "modelSettings.temperature"),
        ({"message": "hi"}, "messages"),
    ],
)
async def test_malformed_bodies_are_422_naming_the_field(body: Any, field: str) -> None:
    async with live_server(create_app(scripted_agent())) as live, live.client() as client:
        for route in ("generate", "stream"):
            response = await client.post(f"/api/agents/support/{route}", json=body)
            assert response.status_code == 422, response.text
            out = response.json()
            assert field in [i["field"] for i in out["issues"]], out
            assert out["error"].startswith("Invalid request: ")


async def test_a_body_that_is_not_json_is_422() -> None:
    json_type = {"content-type": "application/json"}
    async with live_server(create_app(scripted_agent())) as live, live.client() as client:
        bad = await client.post("/api/agents/support/generate", content=b"{nope", headers=json_type)
        empty = await client.post("/api/agents/support/stream", content=b"", headers=json_type)
        listed = await client.post("/api/agents/support/generate", json=["hi"])
    assert bad.status_code == empty.status_code == listed.status_code == 422
    assert bad.json()["issues"][0]["field"] == "body"
    assert listed.json()["issues"] == [{"field": "body", "message": "must be a JSON object"}]


async def test_request_options_reach_the_run() -> None:
    seen: dict[str, Any] = {}

    class Peek(Processor):
        id = "peek"

        def process_input(self, *, request_context: Any, **_: Any) -> None:
            seen.update(request_context.to_dict())

    agent = scripted_agent("support", input_processors=[Peek()])
    async with live_server(create_app(agent)) as live, live.client() as client:
        body = {
            "messages": "hi",
            "instructions": "Speak French.",
            "runId": "run-fixed-1",
            "modelSettings": {"temperature": 0.5, "maxOutputTokens": 7},
            "toolChoice": "none",
            "requestContext": {"tier": "gold", "resource_id": "mallory"},
        }
        out = (await client.post("/api/agents/support/generate", json=body)).json()
    call = agent.model.calls[-1]  # type: ignore[union-attr]
    assert out["runId"] == "run-fixed-1"
    assert call.settings.get("temperature") == 0.5
    assert call.settings.get("max_output_tokens") == 7
    assert call.tool_choice == {"type": "none"}
    assert any(
        "Speak French." in str(m.get("content")) for m in call.prompt if m["role"] == "system"
    )
    assert seen["tier"] == "gold"
    assert seen["resource_id"] == "local"  # the body's context cannot name the resource


async def test_structured_output_is_answered_as_the_object() -> None:
    agent = scripted_agent("support", Reply(text=['{"city": "Paris", "celsius": 21}']))
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "celsius": {"type": "integer"}},
        "required": ["city", "celsius"],
    }
    async with live_server(create_app(agent)) as live, live.client() as client:
        body = {"messages": "weather?", "structuredOutput": {"schema": schema}}
        good = await client.post("/api/agents/support/generate", json=body)
        body["structuredOutput"] = {"schema": {**schema, "required": ["city", "wind"]}}
        bad = await client.post("/api/agents/support/generate", json=body)
    assert good.json()["object"] == {"city": "Paris", "celsius": 21}
    assert bad.status_code == 500  # the model's answer, not the request, was wrong
    assert bad.json()["error"].startswith("StructuredOutputError: ")
