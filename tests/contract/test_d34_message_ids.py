"""D34 seen from a stream: a message id stored elsewhere, or a value no backend can store, ends
the run with an error chunk that is data, in both release modes, before any hook or model call
for input (storage's side, on both backends, is in ``tests/memory/test_memory_records.py``)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from procession import Agent, Memory, Message
from procession.memory import SQLiteStorage
from procession.testing import RecordingProcessor, Reply, ScriptedModel

from .kit import run


@pytest_asyncio.fixture
async def memory() -> AsyncIterator[Memory]:
    store = Memory(SQLiteStorage(":memory:"))
    yield store
    await store.storage.close()


@pytest.mark.parametrize("release", ["live", "step"])
@pytest.mark.asyncio
async def test_a_message_of_another_thread_ends_the_stream_before_any_hook(
    memory: Memory, release: str
) -> None:  # D34
    model = ScriptedModel(["first answer", "never"])
    recorder = RecordingProcessor("recorder", "all")
    agent = Agent(id="a", model=model, memory=memory)
    question = Message.user("q", id="q-1")
    await agent.generate([question], thread_id="t1", resource_id="ada")
    done = await run(
        agent,
        release,
        [question],
        thread_id="t2",
        resource_id="ada",
        input_processors=[recorder],
        output_processors=[recorder],
    )
    assert done.types == ["error"]
    detail = json.loads(json.dumps(done.chunks[-1].to_dict()))["payload"]["error"]
    assert detail["name"] == "MessageThreadError"
    assert "q-1" in detail["message"]
    assert recorder.trace.calls == []
    assert len(model.calls) == 1
    stored = await memory.storage.list_messages("t1", resource_id="ada")
    assert [m.text for m in stored] == ["q", "first answer"]


@pytest.mark.parametrize("release", ["live", "step"])
@pytest.mark.asyncio
async def test_a_nul_in_the_models_output_stores_nothing_in_either_mode(
    memory: Memory, release: str
) -> None:  # D34, D13
    model = ScriptedModel([Reply(text=["an answer with ", "\x00", " inside"])])
    agent = Agent(id="a", model=model, memory=memory)
    done = await run(agent, release, "hi", thread_id="t", resource_id="ada")
    assert done.types[-1] == "error"
    assert done.chunks[-1].payload["error"]["name"] == "InvalidRecordError"
    assert await memory.storage.list_messages("t", resource_id="ada") == []
