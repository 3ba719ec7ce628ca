"""Lone surrogates in model output become U+FFFD where text enters (D34, decision 0226): the
run finishes normally, on the public API and on the server's Mastra stream route, through the
real ``openai`` SDK reading a JSON-escaped ``\\ud800`` from a loopback provider. User input
with a lone surrogate is still refused with an error naming the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openai import AsyncOpenAI

from procession import Agent, Memory
from procession.errors import InvalidRecordError
from procession.memory import SQLiteStorage
from procession.models.openai import OpenAIChatModel
from procession.models.unicode import valid_text
from procession.server import create_app
from procession.testing import Reply, ScriptedModel, ToolCallScript
from tests.models.openai_server import OpenAIServer, chat_chunk, chat_stream, usage_chunk
from tests.server.conftest import live_server
from tests.server.helpers import read_events

BAD = "caf\ud800 ok"  # a lone high surrogate, as json.loads makes of "\ud800"


def test_valid_text_replaces_only_lone_surrogates() -> None:
    # D34: lone ones become U+FFFD, a pair is the character it encodes, valid text is kept
    assert valid_text(BAD) == "caf\ufffd ok"
    assert valid_text("\udc00x\ud800") == "\ufffdx\ufffd"
    assert valid_text("\ud83d\ude00") == "\U0001f600"
    plain = "déjà vu"
    assert valid_text(plain) is plain


def _stream_reply() -> Any:
    frames = [
        chat_chunk({"role": "assistant", "content": "caf\ud800"}),
        chat_chunk({"content": " ok"}),
        chat_chunk({}, finish_reason="stop"),
        usage_chunk(5, 2),
    ]
    reply = chat_stream(*frames)
    assert reply.frames is not None
    assert all("\\ud800" in f for f in reply.frames[:1])  # JSON-escaped on the wire
    return reply


@pytest.mark.asyncio
async def test_the_sdk_adapter_replaces_a_lone_surrogate_and_the_run_finishes(
    tmp_path: Path,
) -> None:
    # D34: the model's lone surrogate never reaches a hook or storage; the turn is stored
    async with OpenAIServer() as provider:
        provider.reply(_stream_reply())
        sdk = AsyncOpenAI(api_key="k", base_url=provider.base_url, max_retries=0)
        memory = Memory(SQLiteStorage(str(tmp_path / "m.db")))
        agent = Agent(id="a", model=OpenAIChatModel("gpt-test", client=sdk), memory=memory)
        result = await agent.generate("hi", thread_id="t", resource_id="r")
        await sdk.close()
    assert result.error is None
    assert result.text == "caf\ufffd ok"
    stored = await memory.storage.list_messages("t", resource_id="r")
    assert [m.text for m in stored] == ["hi", "caf\ufffd ok"]


@pytest.mark.asyncio
async def test_a_scripted_model_with_lone_surrogates_finishes_with_tools() -> None:
    # D34: text, reasoning and tool-call arguments are all made valid
    seen: list[str] = []

    def lookup(city: str) -> str:
        """Look a city up."""
        seen.append(city)
        return "sunny"

    model = ScriptedModel(
        [
            Reply(
                reasoning=["why\udfff"],
                tool_calls=[ToolCallScript("lookup", {"city": "Par\ud800is"})],
            ),
            Reply(text=[BAD]),
        ]
    )
    result = await Agent(id="a", model=model, tools=[lookup]).generate("weather?")
    assert result.error is None
    assert result.text == "caf\ufffd ok"
    assert seen == ["Par\ufffdis"]
    assert "why\ufffd" in result.reasoning


@pytest.mark.asyncio
async def test_the_mastra_stream_route_finishes_through_the_real_sdk(tmp_path: Path) -> None:
    # D34: the stream ends with finish, not a broken connection; generate answers 200
    async with OpenAIServer() as provider:
        provider.reply(_stream_reply(), _stream_reply())
        sdk = AsyncOpenAI(api_key="k", base_url=provider.base_url, max_retries=0)
        memory = Memory(SQLiteStorage(str(tmp_path / "m.db")))
        agent = Agent(id="a", model=OpenAIChatModel("gpt-test", client=sdk), memory=memory)
        async with live_server(create_app([agent])) as live, live.client() as client:
            body = {"messages": "hi", "memory": {"thread": "t", "resource": "r"}}
            response, events = await read_events(client, "/api/agents/a/stream", body)
            generated = await client.post("/api/agents/a/generate", json=body)
        await sdk.close()
    assert response.status_code == 200
    kinds = [e["type"] for e in events if isinstance(e, dict)]
    assert kinds[-1] == "finish"
    assert "error" not in kinds
    deltas = [e for e in events if isinstance(e, dict) and e["type"] == "text-delta"]
    text = "".join(e["payload"]["text"] for e in deltas)
    assert text == "caf\ufffd ok"
    assert generated.status_code == 200, generated.text
    assert generated.json()["text"] == "caf\ufffd ok"


@pytest.mark.asyncio
async def test_user_input_with_a_lone_surrogate_is_refused(tmp_path: Path) -> None:
    # D34: refused before the model is called, naming the field, in process and on the server
    model = ScriptedModel(["never"], repeat_last=True)
    memory = Memory(SQLiteStorage(str(tmp_path / "m.db")))
    agent = Agent(id="a", model=model, memory=memory)
    with pytest.raises(InvalidRecordError, match="lone surrogate"):
        await agent.generate("bad \udc00", thread_id="t", resource_id="r")
    raw = json.dumps({"messages": "bad \udc00", "memory": {"thread": "t", "resource": "r"}})
    assert "\\udc00" in raw
    async with live_server(create_app([agent])) as live, live.client() as client:
        headers = {"content-type": "application/json"}
        for route in ("generate", "stream"):
            answer = await client.post(f"/api/agents/a/{route}", content=raw, headers=headers)
            assert answer.status_code == 422, answer.text
            assert "surrogate" in answer.text  # the body's JSON is refused, naming it
    assert model.calls == []
