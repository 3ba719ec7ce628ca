"""The AG-UI event stream at POST /ag-ui/{agentId}, on a real socket (issue 26).

Every event is parsed by ``ag-ui-protocol``'s own pydantic types, and every stream is run
through ``ag-ui-validate`` 0.4.0's transport validator (its SSE framing and content-type
checks included), which must find nothing at error or warning level.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import Event, EventType, RunAgentInput
from ag_ui_validate.transport import TransportOptions, validate_endpoint
from pydantic import TypeAdapter
from starlette.applications import Starlette
from starlette.routing import Mount

from procession import Agent, Memory, Processor, StreamRedactor, tool
from procession.approvals import LocalApprovals
from procession.memory import SQLiteStorage
from procession.server import create_app
from procession.testing import FunctionModel, Reply, ToolCallScript

from .conftest import live_server, scripted_agent
from .helpers import events as sse_events
from .helpers import read_events

pytestmark = pytest.mark.asyncio

EVENTS: TypeAdapter[Any] = TypeAdapter(Event)
DATA_NAMES = "AGUI903"
"""The one finding allowed, at info level: a ``CUSTOM`` event named by its data chunk's
type (``data-progress``) has no vendor namespace (decision 0365)."""


def run_input(*messages: dict[str, Any], check: bool = True, **extra: Any) -> dict[str, Any]:
    """A ``RunAgentInput`` as ``HttpAgent`` posts it, checked against the protocol's model
    unless ``check`` is false (a body the protocol itself refuses)."""
    body = {
        "threadId": extra.pop("threadId", "thread-1"),
        "runId": extra.pop("runId", str(uuid.uuid4())),
        "messages": list(messages),
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
        **extra,
    }
    if check:
        RunAgentInput.model_validate(body)
    return body


def user(text: str) -> dict[str, Any]:
    return {"id": str(uuid.uuid4()), "role": "user", "content": text}


def parsed(events: list[Any]) -> list[Any]:
    """Each event as ``ag-ui-protocol`` reads it (a validation error fails the test)."""
    return [EVENTS.validate_python(event) for event in events]


def types(events: list[Any]) -> list[str]:
    return [e["type"] for e in events]


async def validated(url: str, body: dict[str, Any], headers: Any = None) -> list[str]:
    """``ag-ui-validate``'s findings on the live stream: ``["AGUI903:info", ...]``."""
    options = TransportOptions(input=body, headers=headers or {}, timeout_ms=10_000)
    result = await validate_endpoint(url, options)
    assert result.report.internal_errors == []
    return [f"{d.rule}:{d.severity}" for d in result.report.diagnostics]


@tool
async def weather(city: str) -> dict[str, Any]:
    """The weather in a city."""
    return {"city": city, "celsius": 21}


class Plan(Processor):
    """Shared state and a custom event after every step."""

    id = "plan"

    async def process_output_step(self, *, text: str, writer: Any, **_: Any) -> None:
        await writer.custom({"type": "data-plan-state", "data": {"plan": text}})
        await writer.custom({"type": "data-progress", "data": {"done": True}})


def weather_agent() -> Agent:
    return scripted_agent(
        "weather",
        Reply(tool_calls=[ToolCallScript("weather", {"city": "Paris"}, id="w1")]),
        Reply(text=["It is ", "21°C."]),
        tools=[weather],
        output_processors=[Plan()],
    )


async def test_a_run_is_the_ag_ui_event_stream() -> None:
    async with live_server(create_app(weather_agent())) as live, live.client() as client:
        body = run_input(user("weather in Paris?"), threadId="t-7")
        response, events = await read_events(client, "/ag-ui/weather", body)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    models = parsed(events)
    assert types(events) == [
        "RUN_STARTED",
        "STEP_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "STATE_SNAPSHOT",  # process_output_step runs before the tools
        "CUSTOM",
        "TOOL_CALL_RESULT",
        "STEP_FINISHED",
        "STEP_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "STATE_SNAPSHOT",
        "CUSTOM",
        "STEP_FINISHED",
        "RUN_FINISHED",
    ]
    assert models[0].thread_id == "t-7"
    assert models[0].run_id == body["runId"]
    assert models[0].protocol_version == "1.0"
    assert models[-1].type == EventType.RUN_FINISHED
    assert models[-1].run_id == body["runId"]
    call = models[2]
    assert (call.tool_call_id, call.tool_call_name) == ("w1", "weather")
    assert json.loads(models[3].delta) == {"city": "Paris"}
    assert json.loads(models[7].content) == {"city": "Paris", "celsius": 21}
    assert models[14].snapshot == {"plan": "It is 21°C."}
    assert (models[15].name, models[15].value) == ("data-progress", {"done": True})
    assert "".join(m.delta for m in models if m.type == EventType.TEXT_MESSAGE_CONTENT) == (
        "It is 21°C."
    )
    assert [m.step_name for m in models if m.type == EventType.STEP_STARTED] == [
        "step-0",
        "step-1",
    ]
    assert models[-1].usage is not None
    assert models[-1].usage[0].total_tokens is not None


async def test_the_stream_passes_ag_ui_validate() -> None:
    async with live_server(create_app(weather_agent())) as live:
        findings = await validated(f"{live.url}/ag-ui/weather", run_input(user("weather?")))
    assert findings == [f"{DATA_NAMES}:info"] * 2  # the two data-progress CUSTOM events


async def test_the_validator_s_command_line_passes_the_stream(tmp_path: Path) -> None:
    # its own default RunAgentInput, its own HTTP client, exit 0 unless it finds an error
    app = create_app(scripted_agent("support", Reply(text=["Hi ", "there"])))
    async with live_server(app) as live:
        exe = Path(sys.executable).with_name("ag-ui-validate")
        proc = await asyncio.create_subprocess_exec(
            str(exe),
            f"{live.url}/ag-ui/support",
            "--json",
            "--fail-on",
            "warning",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, (out.decode(), err.decode())
    report = json.loads(out)
    assert report["summary"]["errors"] == report["summary"]["warnings"] == 0
    assert report["diagnostics"] == []


async def test_message_ids_are_new_and_random_per_text_message() -> None:
    agent = scripted_agent("support", Reply(text=["Hi"]))
    async with live_server(create_app(agent)) as live, live.client() as client:
        seen = [
            (await read_events(client, "/ag-ui/support", run_input(user("hi"))))[1]
            for _ in range(2)
        ]
    ids = [e["messageId"] for events in seen for e in events if e["type"] == "TEXT_MESSAGE_START"]
    assert len(ids) == len(set(ids)) == 2
    assert all(re.fullmatch(r"msg_[0-9a-f]{32}", i) for i in ids)


class NoSecrets(Processor):
    id = "no-secrets"

    def process_input(self, *, messages: list[Any], abort: Any, **_: Any) -> None:
        if any("secret" in m.text for m in messages):
            abort("Blocked: secrets are not discussed", metadata={"rule": "s1"})


async def test_a_tripwire_is_run_error_with_its_code() -> None:
    # D12: a tripwire ends the stream with its reason, metadata and processor id
    agent = scripted_agent("support", Reply(text=["never"]), input_processors=[NoSecrets()])
    async with live_server(create_app(agent)) as live, live.client() as client:
        body = run_input(user("tell me the secret"))
        response, events = await read_events(client, "/ag-ui/support", body)
        findings = await validated(f"{live.url}/ag-ui/support", run_input(user("a secret")))
    assert response.status_code == 200
    started, error = parsed(events)
    assert started.type == EventType.RUN_STARTED
    assert error.type == EventType.RUN_ERROR
    assert (error.code, error.message) == ("tripwire", "Blocked: secrets are not discussed")
    assert error.metadata == {
        "processorId": "no-secrets",
        "retry": False,
        "metadata": {"rule": "s1"},
    }
    assert "never" not in str(events)
    assert findings == []


class Polite(Processor):
    id = "polite"

    def process_output_step(self, *, text: str, abort: Any, **_: Any) -> None:
        if "rude" in text:
            abort("Answer politely.", retry=True)


async def test_a_retry_is_never_visible() -> None:
    # D31: the route holds each step until it is accepted (release="step")
    agent = scripted_agent(
        "support",
        Reply(text=["That is ", "rude."]),
        Reply(text=["Happy ", "to help."]),
        output_processors=[Polite()],
        max_processor_retries=1,
    )
    async with live_server(create_app(agent)) as live, live.client() as client:
        _, events = await read_events(client, "/ag-ui/support", run_input(user("hm")))
    parsed(events)
    assert "rude" not in str(events)
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "Happy to help."
    assert types(events).count("STEP_STARTED") == 1


async def test_output_processors_redact_mid_stream() -> None:
    # D31: the redactor's output is what each released step carries
    agent = scripted_agent(
        "support",
        Reply(text=["card 4111 ", "1111 1111", " 1111 ok"]),
        output_processors=[StreamRedactor()],
    )
    async with live_server(create_app(agent)) as live, live.client() as client:
        _, events = await read_events(client, "/ag-ui/support", run_input(user("card?")))
    parsed(events)
    assert "4111" not in str(events)
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "card [REDACTED] ok"


async def test_front_end_tools_and_resume_are_refused_with_400() -> None:
    agent = scripted_agent("support", Reply(text=["Hi"]))
    tools = [{"name": "confirm", "description": "Ask the user", "parameters": {}}]
    resume = [{"interruptId": "i1", "status": "resolved"}]
    async with live_server(create_app(agent)) as live, live.client() as client:
        refused = await client.post("/ag-ui/support", json=run_input(user("hi"), tools=tools))
        resumed = await client.post("/ag-ui/support", json=run_input(user("hi"), resume=resume))
    assert refused.status_code == resumed.status_code == 400
    assert refused.json()["issues"][0]["field"] == "tools"
    assert "front-end tools are not supported (confirm)" in refused.json()["error"]
    assert resumed.json()["issues"][0]["field"] == "resume"


async def test_a_malformed_input_names_the_field() -> None:
    agent = scripted_agent("support", Reply(text=["Hi"]))
    orphan = {"id": "t1", "role": "tool", "toolCallId": "nope", "content": "x"}
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{oops"}}
    bad_args = {"id": "a1", "role": "assistant", "toolCalls": [call]}
    cases = {
        "messages[1].toolCallId": [user("hi"), orphan],
        "messages[0].toolCalls[0].function.arguments": [bad_args, user("hi")],
        "messages[0].role": [{"id": "x", "role": "robot", "content": "hi"}],
        "messages": [],
    }
    async with live_server(create_app(agent)) as live, live.client() as client:
        answers = {
            field: await client.post("/ag-ui/support", json=run_input(*messages, check=False))
            for field, messages in cases.items()
        }
        no_run = await client.post("/ag-ui/support", json={"threadId": "t", "messages": []})
    for field, answer in answers.items():
        assert answer.status_code == 422, field
        assert answer.json()["issues"][0]["field"] == field
    assert no_run.status_code == 422
    assert no_run.json()["issues"][0]["field"] == "runId"


async def test_history_tool_calls_context_and_state_reach_the_run() -> None:
    seen: dict[str, Any] = {}

    def model(options: Any) -> Reply:
        seen["prompt"] = options.prompt
        return Reply(text=["ok"])

    class Reader(Processor):
        id = "reader"

        def process_input(self, *, request_context: Any, **_: Any) -> None:
            seen["ag_ui"] = request_context.get("ag_ui")

    agent = Agent(id="a", model=FunctionModel(model), input_processors=[Reader()])
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
    history = [
        user("first"),
        {"id": "a1", "role": "assistant", "content": "calling", "toolCalls": [call]},
        {"id": "r1", "role": "tool", "toolCallId": "c1", "content": "42"},
        {"id": "a2", "role": "assistant", "content": "It is 42."},
        {"id": "act", "role": "activity", "activityType": "x", "content": {}},
        user("second"),
    ]
    body = run_input(
        *history,
        context=[{"description": "The user's plan", "value": "gold"}],
        state={"count": 3},
        forwardedProps={"page": "home"},
    )
    async with live_server(create_app(agent)) as live, live.client() as client:
        response, events = await read_events(client, "/ag-ui/a", body)
    assert response.status_code == 200, events
    roles = [m["role"] for m in seen["prompt"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert seen["prompt"][0]["content"] == "The user's plan:\ngold"
    assert seen["ag_ui"] == {"state": {"count": 3}, "forwardedProps": {"page": "home"}}


async def test_the_thread_is_memory_and_the_history_is_stored_once(tmp_path: Path) -> None:
    memory = Memory(SQLiteStorage(str(tmp_path / "m.db")))
    agent = Agent(
        id="support",
        model=FunctionModel(lambda o: Reply(text=[f"turn {len(o.prompt)}"])),
        memory=memory,
    )
    async with live_server(create_app(agent)) as live, live.client() as client:
        first = user("one")
        _, events = await read_events(client, "/ag-ui/support", run_input(first, threadId="th"))
        answer = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
        again = [first, {"id": "x1", "role": "assistant", "content": answer}, user("two")]
        await read_events(client, "/ag-ui/support", run_input(*again, threadId="th"))
    stored = await memory.list_messages("th", resource_id="local")
    assert [(m.role, m.text) for m in stored] == [
        ("user", "one"),
        ("assistant", "turn 1"),
        ("user", "two"),
        ("assistant", "turn 3"),
    ]


async def test_the_route_is_relative_to_the_mount_point() -> None:
    inner = create_app(scripted_agent("support", Reply(text=["Hi"])))
    outer = Starlette(routes=[Mount("/agents", app=inner)], lifespan=inner.router.lifespan_context)
    async with live_server(outer) as live, live.client() as client:
        response, events = await read_events(client, "/agents/ag-ui/support", run_input(user("hi")))
        direct = await client.post("/ag-ui/support", json=run_input(user("hi")))
    assert response.status_code == 200
    assert types(events)[-1] == "RUN_FINISHED"
    assert direct.status_code == 404


async def test_reasoning_and_a_mid_stream_error_are_their_events() -> None:
    agent = scripted_agent(
        "support",
        Reply(reasoning=["Let me ", "think."], text=["Fine."]),
        Reply(text=["Partial"], stream_error=RuntimeError("connection cut")),
    )
    async with live_server(create_app(agent)) as live, live.client() as client:
        _, thinking = await read_events(client, "/ag-ui/support", run_input(user("hm")))
        _, failing = await read_events(client, "/ag-ui/support", run_input(user("hm")))
    models = parsed(thinking)
    assert types(thinking)[:4] == [
        "RUN_STARTED",
        "STEP_STARTED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
    ]
    thought = [m.delta for m in models if m.type == EventType.REASONING_MESSAGE_CONTENT]
    assert thought == ["Let me ", "think."]
    assert "REASONING_END" in types(thinking)
    # the failed step is never released (D31): the client sees the error, not its text
    failed = parsed(failing)
    assert types(failing) == ["RUN_STARTED", "RUN_ERROR"]
    assert "connection cut" in failed[-1].message
    assert failed[-1].code
    assert "Partial" not in str(failing)


@tool(requires_approval=True)
async def refund(amount: int) -> str:
    """Refund an amount."""
    return f"refunded {amount}"


async def test_a_tool_approval_is_a_custom_event_answered_on_its_route() -> None:
    agent = scripted_agent(
        "refunds",
        Reply(tool_calls=[ToolCallScript("refund", {"amount": 9}, id="r1")]),
        Reply(text=["Done."]),
        tools=[refund],
        approvals=LocalApprovals(),
    )
    body = run_input(user("refund me"))
    async with (
        live_server(create_app(agent)) as live,
        live.client() as client,
        client.stream("POST", "/ag-ui/refunds", json=body) as response,
    ):
        text = ""
        chunks = response.aiter_text()
        while "procession:tool-call-approval" not in text:
            text += await anext(chunks)
        decision = {"toolCallId": "r1", "approved": True, "runId": body["runId"]}
        answered = await client.post("/api/agents/refunds/send-tool-approval", json=decision)
        async for chunk in chunks:
            text += chunk
    assert answered.status_code == 200
    models = parsed(sse_events(text))
    (asked,) = [m for m in models if m.type == EventType.CUSTOM]
    assert asked.name == "procession:tool-call-approval"
    assert asked.value == {"toolCallId": "r1", "toolName": "refund", "args": {"amount": 9}}
    (result,) = [m for m in models if m.type == EventType.TOOL_CALL_RESULT]
    assert result.content == "refunded 9"
    assert models[-1].type == EventType.RUN_FINISHED


async def test_a_client_that_leaves_cancels_the_run(tmp_path: Path) -> None:
    # D32: leaving the stream cancels the model call at once; D13: a cancelled run stores nothing
    called, cancelled = asyncio.Event(), asyncio.Event()

    async def thinks(options: Any) -> Reply:
        called.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return Reply(text=["too late"])

    memory = Memory(SQLiteStorage(str(tmp_path / "m.db")))
    agent = Agent(id="slow", model=FunctionModel(thinks), memory=memory)
    body = run_input(user("take your time"), threadId="left")
    async with live_server(create_app(agent)) as live:
        async with live.client() as client, client.stream("POST", "/ag-ui/slow", json=body) as r:
            assert b"RUN_STARTED" in await anext(r.aiter_bytes())
            await asyncio.wait_for(called.wait(), 10)
        await asyncio.wait_for(cancelled.wait(), 10)  # the client closed its connection
    assert await memory.list_messages("left", resource_id="local") == []
