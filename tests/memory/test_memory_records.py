"""Message ids and storage limits through an Agent with memory, on SQLite and PostgreSQL (D34),
and invalid in-place edits failing as the editing processor's error (D30)."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from procession import Agent, Message
from procession.context import RequestContext
from procession.errors import (
    InvalidRecordError,
    MessageThreadError,
    ProcessorError,
    ThreadOwnershipError,
)
from procession.memory import Memory, Storage
from procession.testing import RecordingProcessor, Reply, ScriptedModel


def ids() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:8]
    return f"thread-{tag}", f"user-{tag}"


def _agent(storage: Storage, replies: list[Any]) -> tuple[Agent, ScriptedModel, RecordingProcessor]:
    model = ScriptedModel(replies)
    recorder = RecordingProcessor("recorder", ["process_input"])
    agent = Agent(id="a", model=model, memory=Memory(storage), input_processors=[recorder])
    return agent, model, recorder


async def _texts(storage: Storage, thread_id: str, resource_id: str) -> list[str]:
    return [m.text for m in await storage.list_messages(thread_id, resource_id=resource_id)]


@pytest.mark.asyncio
async def test_an_input_message_of_another_thread_fails_the_run_and_stays_put(  # D34
    backend: Storage,
) -> None:
    first, resource_id = ids()
    second = f"{first}-b"
    agent, _, _ = _agent(backend, ["one", "two"])
    question = Message.user("the first question", id=f"q-{first}")
    await agent.generate([question], thread_id=first, resource_id=resource_id)
    with pytest.raises(MessageThreadError) as caught:
        await agent.generate([question], thread_id=second, resource_id=resource_id)
    assert (caught.value.message_id, caught.value.stored_thread_id) == (question.id, first)
    assert await _texts(backend, first, resource_id) == ["the first question", "one"]
    assert await backend.get_thread(second, resource_id=resource_id) is None


@pytest.mark.asyncio
async def test_an_input_message_of_another_resource_fails_the_run(backend: Storage) -> None:  # D34
    thread_id, alice = ids()
    agent, _, _ = _agent(backend, ["alice's answer", "never stored"])
    secret = Message.user("alice's secret", id=f"s-{thread_id}")
    await agent.generate([secret], thread_id=thread_id, resource_id=alice)
    stolen = Message.user("overwritten", id=secret.id)
    with pytest.raises(ThreadOwnershipError, match=f"message {secret.id!r} belongs to resource"):
        await agent.generate([stolen], thread_id=f"{thread_id}-m", resource_id="mallory")
    assert await _texts(backend, thread_id, alice) == ["alice's secret", "alice's answer"]
    assert await backend.list_threads("mallory") == []


@pytest.mark.asyncio
async def test_a_nul_in_the_input_fails_the_run_and_stores_nothing(backend: Storage) -> None:  # D34
    thread_id, resource_id = ids()
    agent, _, _ = _agent(backend, ["never stored"])
    with pytest.raises(InvalidRecordError, match=r"content\.parts\[0\]\.text: contains a NUL"):
        await agent.generate("a\x00b", thread_id=thread_id, resource_id=resource_id)
    assert await backend.get_thread(thread_id, resource_id=resource_id) is None


@pytest.mark.asyncio
async def test_a_nul_in_the_models_output_fails_the_run_and_stores_nothing(  # D34
    backend: Storage,
) -> None:
    thread_id, resource_id = ids()
    agent, model, _ = _agent(backend, [Reply(text=["an answer with a ", "\x00", " inside"])])
    with pytest.raises(InvalidRecordError, match=r"text: contains a NUL character") as caught:
        await agent.generate("hi", thread_id=thread_id, resource_id=resource_id)
    assert caught.value.thread_id == thread_id
    assert caught.value.message_id is not None
    assert len(model.calls) == 1
    assert await backend.get_thread(thread_id, resource_id=resource_id) is None


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("thread_id", "resource_id", "field"),
    [("t\x00", "r", "thread_id"), ("t", "r\x00", "resource_id"), ("t", "\udfff", "resource_id")],
)
async def test_ids_no_backend_can_store_fail_before_any_hook(  # D34
    backend: Storage, thread_id: str, resource_id: str, field: str
) -> None:
    agent, model, recorder = _agent(backend, ["never"])
    with pytest.raises(InvalidRecordError) as caught:
        await agent.generate("hi", thread_id=thread_id, resource_id=resource_id)
    assert caught.value.path == field
    assert model.calls == []
    assert recorder.trace.calls == []


@pytest.mark.asyncio
async def test_an_invalid_in_place_edit_stores_nothing(backend: Storage) -> None:  # D30
    thread_id, resource_id = ids()

    def break_it(message_list: Any, **_: Any) -> None:
        for message in message_list.get.response.db():
            message.content.parts[-1].provider_metadata = "not an object"

    breaker = RecordingProcessor("breaker", process_output_result=break_it)
    agent = Agent(
        id="a",
        model=ScriptedModel(["fine"]),
        memory=Memory(backend),
        output_processors=[breaker],
    )
    # Memory's commit refuses it today; once the runner checks each hook's edits (D30) the
    # run fails earlier as the processor's error. Both name the message and the field.
    with pytest.raises((InvalidRecordError, ProcessorError)) as caught:
        await agent.generate("q", thread_id=thread_id, resource_id=resource_id)
    assert "-response" in str(caught.value)  # the message id
    assert re.search(r"content\.parts\[\d+\]\.providerMetadata", str(caught.value))
    assert await backend.get_thread(thread_id, resource_id=resource_id) is None


# -- Memory.prepare with the input messages: what the runner will call (D34) -------------------


@pytest.mark.asyncio
async def test_prepare_refuses_input_messages_before_anything_runs(backend: Storage) -> None:
    first, resource_id = ids()
    memory = Memory(backend)
    kept = Message.user("kept", id=f"k-{first}")
    await backend.save_turn(first, resource_id, [kept])
    context = RequestContext()
    context.thread_id, context.resource_id = f"{first}-b", resource_id
    await memory.prepare(context, [Message.user("new")])
    with pytest.raises(MessageThreadError):
        await memory.prepare(context, [Message.user("new"), kept])
    with pytest.raises(InvalidRecordError, match="NUL"):
        await memory.prepare(context, [Message.user("\x00")])
    context.resource_id = "mallory"
    with pytest.raises(ThreadOwnershipError):
        await memory.prepare(context, [kept])
    context.thread_id = first
    with pytest.raises(ThreadOwnershipError, match=f"thread {first!r}"):
        await memory.prepare(context)  # a foreign thread, with or without messages
    assert await backend.list_threads("mallory") == []
    assert await backend.get_thread(f"{first}-b", resource_id=resource_id) is None


@pytest.mark.asyncio
async def test_a_read_only_memory_does_not_check_what_it_will_not_store(
    backend: Storage,
) -> None:
    first, resource_id = ids()
    kept = Message.user("kept", id=f"k-{first}")
    await backend.save_turn(first, resource_id, [kept])
    context = RequestContext()
    context.thread_id, context.resource_id = f"{first}-b", resource_id
    await Memory(backend, read_only=True).prepare(context, [kept, Message.user("\x00")])
    context.thread_id = "t\x00"
    with pytest.raises(InvalidRecordError):  # ids are read with, so they are still checked
        await Memory(backend, read_only=True).prepare(context)


@pytest.mark.asyncio
async def test_a_message_of_another_thread_fails_before_any_hook(backend: Storage) -> None:
    first, resource_id = ids()
    agent, model, recorder = _agent(backend, ["one", "never"])
    question = Message.user("q", id=f"q-{first}")
    await agent.generate([question], thread_id=first, resource_id=resource_id)
    recorder.trace.calls.clear()
    with pytest.raises(MessageThreadError):
        await agent.generate([question], thread_id=f"{first}-b", resource_id=resource_id)
    assert len(model.calls) == 1
    assert recorder.trace.calls == []


@pytest.mark.asyncio
async def test_a_nul_in_the_input_fails_before_the_model_is_called(backend: Storage) -> None:
    thread_id, resource_id = ids()
    agent, model, recorder = _agent(backend, ["never"])
    with pytest.raises(InvalidRecordError, match="NUL"):
        await agent.generate("a\x00b", thread_id=thread_id, resource_id=resource_id)
    assert model.calls == []
    assert recorder.trace.calls == []


@pytest.mark.asyncio
async def test_an_invalid_edit_fails_as_the_processors_error(backend: Storage) -> None:  # D30
    thread_id, resource_id = ids()

    def break_it(messages: list[Message], **_: Any) -> None:
        messages[-1].content.parts[-1].text = None  # type: ignore[union-attr]

    breaker = RecordingProcessor("breaker", process_output_step=break_it)
    agent = Agent(
        id="a", model=ScriptedModel(["fine"]), memory=Memory(backend), output_processors=[breaker]
    )
    with pytest.raises(ProcessorError) as caught:
        await agent.generate("q", thread_id=thread_id, resource_id=resource_id)
    assert (caught.value.processor_id, caught.value.hook) == ("breaker", "process_output_step")
    assert "-response'].content.parts[" in str(caught.value)
    assert ".text: must be a string (got None)" in str(caught.value)
    assert await backend.get_thread(thread_id, resource_id=resource_id) is None
