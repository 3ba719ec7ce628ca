"""Message history end to end through an Agent, on SQLite and PostgreSQL (D13, D17, D20)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from procession import Agent, Chunk, ConfigurationError, Message, tool
from procession._engine.stages.persist import run_messages
from procession.errors import ThreadOwnershipError
from procession.memory import Memory, SQLiteStorage, Storage
from procession.memory.processors import messages_to_store
from procession.messages.message import MessageContent
from procession.messages.message_list import MessageList
from procession.messages.parts import StepStartPart, TextPart, ToolInvocation, ToolInvocationPart
from procession.testing import RecordingProcessor, Reply, ScriptedModel, ToolCallScript


def ids() -> tuple[str, str]:
    """A fresh (thread_id, resource_id): PostgreSQL tests share one schema per session."""
    tag = uuid.uuid4().hex[:8]
    return f"thread-{tag}", f"user-{tag}"


def conversation(prompt: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The non-system prompt messages as ``(role, text)``."""
    out: list[tuple[str, str]] = []
    for message in prompt:
        if message["role"] == "system":
            continue
        content = message["content"]
        text = "".join(p.get("text", "") for p in content if p.get("type") == "text")
        out.append((message["role"], text))
    return out


def system_texts(prompt: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in prompt if m["role"] == "system"]


async def stored(storage: Storage, thread_id: str, resource_id: str) -> list[tuple[str, str]]:
    messages = await storage.list_messages(thread_id, resource_id=resource_id)
    return [(m.role, m.text) for m in messages]


@pytest.mark.asyncio
async def test_history_loads_the_last_n_in_order_into_the_prompt(backend: Storage) -> None:
    thread_id, resource_id = ids()
    model = ScriptedModel(["one", "two", "three", "four"])
    agent = Agent(id="a", model=model, memory=Memory(backend, last_messages=4))
    for question in ("q1", "q2", "q3", "q4"):
        await agent.generate(question, thread_id=thread_id, resource_id=resource_id)
    assert conversation(model.calls[3].prompt) == [
        ("user", "q2"),
        ("assistant", "two"),
        ("user", "q3"),
        ("assistant", "three"),
        ("user", "q4"),
    ]
    assert conversation(model.calls[0].prompt) == [("user", "q1")]
    assert await stored(backend, thread_id, resource_id) == [
        ("user", "q1"),
        ("assistant", "one"),
        ("user", "q2"),
        ("assistant", "two"),
        ("user", "q3"),
        ("assistant", "three"),
        ("user", "q4"),
        ("assistant", "four"),
    ]


@pytest.mark.asyncio
async def test_remembered_messages_reach_hooks_as_memory_and_are_not_stored_again(
    backend: Storage,
) -> None:
    thread_id, resource_id = ids()
    seen: list[list[str]] = []

    def look(**kw: Any) -> None:
        seen.append([m.text for m in kw["message_list"].get.remembered.db()])

    spy = RecordingProcessor("spy", process_input=look)
    agent = Agent(
        id="a",
        model=ScriptedModel(["a1", "a2"]),
        memory=Memory(backend),
        input_processors=[spy],
    )
    await agent.generate("q1", thread_id=thread_id, resource_id=resource_id)
    first = await backend.list_messages(thread_id, resource_id=resource_id)
    await agent.generate("q2", thread_id=thread_id, resource_id=resource_id)
    assert seen == [[], ["q1", "a1"]]
    after = await backend.list_messages(thread_id, resource_id=resource_id)
    assert [m.id for m in after[:2]] == [m.id for m in first]
    assert len(after) == 4


@pytest.mark.asyncio
async def test_stored_text_is_what_the_stream_processors_let_through(backend: Storage) -> None:
    thread_id, resource_id = ids()

    def redact(**kw: Any) -> Chunk:
        part: Chunk = kw["part"]
        if part.type == "text-delta":
            return Chunk(
                part.type, {**part.payload, "text": part.payload["text"].replace("s3cr3t", "***")}
            )
        return part

    redactor = RecordingProcessor("redactor", process_output_stream=redact)
    model = ScriptedModel([Reply(text=["the code is ", "s3cr3t", "."])])
    agent = Agent(id="a", model=model, memory=Memory(backend), output_processors=[redactor])
    result = await agent.generate("code?", thread_id=thread_id, resource_id=resource_id)
    assert result.text == "the code is ***."
    assert await stored(backend, thread_id, resource_id) == [
        ("user", "code?"),
        ("assistant", "the code is ***."),
    ]


@pytest.mark.asyncio
async def test_an_edit_in_process_output_result_is_stored(backend: Storage) -> None:  # D24
    thread_id, resource_id = ids()

    def shout(**kw: Any) -> None:
        for message in kw["messages"]:
            for part in message.content.parts:
                if isinstance(part, TextPart):
                    part.text = part.text.upper()

    agent = Agent(
        id="a",
        model=ScriptedModel(["quiet"]),
        memory=Memory(backend),
        output_processors=[RecordingProcessor("shout", process_output_result=shout)],
    )
    await agent.generate("hi", thread_id=thread_id, resource_id=resource_id)
    assert await stored(backend, thread_id, resource_id) == [("user", "hi"), ("assistant", "QUIET")]


@pytest.mark.parametrize(
    "where",
    ["process_input", "process_output_stream", "process_output_step", "process_output_result"],
)
@pytest.mark.asyncio
async def test_a_tripwire_stores_nothing(backend: Storage, where: str) -> None:  # D11, D13
    thread_id, resource_id = ids()
    blocker = RecordingProcessor("blocker", behaviours={where: lambda **kw: kw["abort"]("no")})
    lane = "input_processors" if where == "process_input" else "output_processors"
    lanes: dict[str, Any] = {lane: [blocker]}
    agent = Agent(
        id="a",
        model=ScriptedModel(["blocked answer"]),
        memory=Memory(backend),
        **lanes,
    )
    result = await agent.generate("hello", thread_id=thread_id, resource_id=resource_id)
    assert result.tripwire is not None
    assert await backend.get_thread(thread_id, resource_id=resource_id) is None
    assert await stored(backend, thread_id, resource_id) == []


@pytest.mark.asyncio
async def test_a_failed_run_stores_nothing(backend: Storage) -> None:  # D13, D21
    thread_id, resource_id = ids()
    model = ScriptedModel([Reply(text=["partial"], stream_error=RuntimeError("boom"))])
    agent = Agent(id="a", model=model, memory=Memory(backend), max_retries=0)
    with pytest.raises(Exception, match="boom"):
        await agent.generate("hello", thread_id=thread_id, resource_id=resource_id)
    assert await stored(backend, thread_id, resource_id) == []


@pytest.mark.asyncio
async def test_only_the_accepted_attempt_is_stored(backend: Storage) -> None:  # D1, D3
    thread_id, resource_id = ids()
    attempts = {"n": 0}

    def reject_first(**kw: Any) -> None:
        attempts["n"] += 1
        if attempts["n"] == 1:
            kw["abort"]("too rude", retry=True)

    guard = RecordingProcessor("guard", process_output_step=reject_first)
    model = ScriptedModel(["rude draft", "polite answer"])
    agent = Agent(
        id="a",
        model=model,
        memory=Memory(backend),
        output_processors=[guard],
        max_processor_retries=1,
    )
    result = await agent.generate("hello", thread_id=thread_id, resource_id=resource_id)
    assert result.text == "polite answer"
    messages = await backend.list_messages(thread_id, resource_id=resource_id)
    assert [(m.role, m.text) for m in messages] == [
        ("user", "hello"),
        ("assistant", "polite answer"),
    ]
    assert "rude" not in repr(messages)
    assert "Processor Feedback" not in repr(messages)


@pytest.mark.asyncio
async def test_transient_data_is_not_stored_and_other_data_is(backend: Storage) -> None:  # D13
    thread_id, resource_id = ids()

    def write(**kw: Any) -> None:
        kw["writer"].custom({"type": "data-progress", "data": {"pct": 50}, "transient": True})
        kw["writer"].custom({"type": "data-citation", "data": {"url": "doc-7"}})

    writer = RecordingProcessor("writer", process_output_step=write)
    agent = Agent(
        id="a", model=ScriptedModel(["answer"]), memory=Memory(backend), output_processors=[writer]
    )
    result = await agent.generate("hi", thread_id=thread_id, resource_id=resource_id)
    assert [p.type for p in result.messages[0].content.parts] == ["text", "data-citation"]
    [_, answer] = await backend.list_messages(thread_id, resource_id=resource_id)
    assert [p.type for p in answer.content.parts] == ["text", "data-citation"]
    assert "data-progress" not in repr(answer)


@pytest.mark.asyncio
async def test_system_messages_are_never_stored(backend: Storage) -> None:  # D13, D17
    thread_id, resource_id = ids()
    agent = Agent(
        id="a",
        model=ScriptedModel(["ok"]),
        instructions="INSTRUCTIONS-TEXT",
        memory=Memory(backend, working_memory=True),
    )
    await agent.generate(
        [{"role": "system", "content": "CALLER-SYSTEM"}, {"role": "user", "content": "hi"}],
        system="USER-PROVIDED-SYSTEM",
        thread_id=thread_id,
        resource_id=resource_id,
    )
    messages = await backend.list_messages(thread_id, resource_id=resource_id)
    assert [m.role for m in messages] == ["user", "assistant"]
    dump = repr(messages)
    for text in ("INSTRUCTIONS-TEXT", "CALLER-SYSTEM", "USER-PROVIDED-SYSTEM", "working memory"):
        assert text not in dump


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@pytest.mark.asyncio
async def test_tool_calls_are_stored_with_their_results_and_replayed(backend: Storage) -> None:
    thread_id, resource_id = ids()
    model = ScriptedModel(
        [
            Reply(tool_calls=[ToolCallScript("weather", {"city": "Oslo"}, "call-w")]),
            Reply(text=["It is sunny."]),
            Reply(text=["You asked about Oslo."]),
        ]
    )
    agent = Agent(id="a", model=model, tools=[weather], memory=Memory(backend))
    await agent.generate("weather in Oslo?", thread_id=thread_id, resource_id=resource_id)
    await agent.generate("what did I ask?", thread_id=thread_id, resource_id=resource_id)
    [_, answer, _, _] = await backend.list_messages(thread_id, resource_id=resource_id)
    [call] = [p for p in answer.content.parts if isinstance(p, ToolInvocationPart)]
    assert call.tool_invocation.state == "result"
    assert call.tool_invocation.result == "sunny in Oslo"
    replayed = model.calls[2].prompt
    assert any(m["role"] == "tool" for m in replayed)
    assert ("assistant", "It is sunny.") in conversation(replayed)


@pytest.mark.asyncio
async def test_another_resources_thread_is_refused_and_nothing_leaks(backend: Storage) -> None:
    thread_id, alice = ids()
    model = ScriptedModel(["alice's answer"])
    agent = Agent(id="a", model=model, memory=Memory(backend))
    await agent.generate("alice's secret", thread_id=thread_id, resource_id=alice)
    with pytest.raises(ThreadOwnershipError, match="belongs to resource"):
        await agent.generate("show me", thread_id=thread_id, resource_id="mallory")
    assert len(model.calls) == 1  # the model never saw alice's thread on mallory's behalf
    assert await stored(backend, thread_id, alice) == [
        ("user", "alice's secret"),
        ("assistant", "alice's answer"),
    ]
    assert await backend.list_threads("mallory") == []


@pytest.mark.parametrize(
    ("options", "missing"),
    [
        ({}, "thread_id and resource_id"),
        ({"thread_id": "t"}, "resource_id"),
        ({"resource_id": "r"}, "thread_id"),
    ],
)
@pytest.mark.asyncio
async def test_missing_ids_are_a_configuration_error(
    tmp_path: Any, options: dict[str, str], missing: str
) -> None:
    storage = SQLiteStorage(tmp_path / "m.db")
    model = ScriptedModel(["never"])
    agent = Agent(id="a", model=model, memory=Memory(storage))
    with pytest.raises(ConfigurationError, match=f"memory needs {missing}:"):
        await agent.generate("hi", **options)  # type: ignore[call-overload]
    assert model.calls == []
    await storage.close()


@pytest.mark.asyncio
async def test_concurrent_runs_on_one_thread_never_show_half_a_turn(backend: Storage) -> None:
    thread_id, resource_id = ids()
    memory = Memory(backend)
    runs = ("run-a", "run-b", "run-c")
    agents = [
        Agent(id=run, model=ScriptedModel([Reply(text=["x"] * 5, delay=0.002)]), memory=memory)
        for run in runs
    ]
    done = asyncio.Event()
    snapshots = 0

    async def watch() -> None:
        nonlocal snapshots
        while not done.is_set():
            present = {
                m.id for m in await backend.list_messages(thread_id, resource_id=resource_id)
            }
            for run in runs:
                assert (f"q-{run}" in present) == (f"{run}-response" in present), present
            snapshots += 1
            await asyncio.sleep(0)

    watcher = asyncio.create_task(watch())
    await asyncio.gather(
        *(
            agent.generate(
                Message.user(f"question {run}", id=f"q-{run}"),
                run_id=run,
                thread_id=thread_id,
                resource_id=resource_id,
            )
            for agent, run in zip(agents, runs, strict=True)
        )
    )
    done.set()
    await watcher
    assert snapshots > 1
    messages = await backend.list_messages(thread_id, resource_id=resource_id)
    assert sorted(m.id for m in messages) == sorted(
        [f"q-{run}" for run in runs] + [f"{run}-response" for run in runs]
    )


@pytest.mark.asyncio
async def test_read_only_memory_reads_history_and_stores_nothing(backend: Storage) -> None:
    thread_id, resource_id = ids()
    writer = Agent(id="w", model=ScriptedModel(["a1"]), memory=Memory(backend))
    await writer.generate("q1", thread_id=thread_id, resource_id=resource_id)
    model = ScriptedModel(["a2"])
    reader = Agent(id="r", model=model, memory=Memory(backend, read_only=True, working_memory=True))
    await reader.generate("q2", thread_id=thread_id, resource_id=resource_id)
    assert conversation(model.calls[0].prompt) == [
        ("user", "q1"),
        ("assistant", "a1"),
        ("user", "q2"),
    ]
    assert model.calls[0].tools == []  # no update_working_memory when read-only
    assert "read-only" in system_texts(model.calls[0].prompt)[0]
    assert await stored(backend, thread_id, resource_id) == [("user", "q1"), ("assistant", "a1")]


@pytest.mark.asyncio
async def test_a_lane_processor_with_the_history_id_replaces_storing_too(
    backend: Storage,
) -> None:  # D20
    thread_id, resource_id = ids()
    mine = RecordingProcessor("message-history", ["process_output_result"])
    agent = Agent(
        id="a", model=ScriptedModel(["a"]), memory=Memory(backend), output_processors=[mine]
    )
    await agent.generate("q", thread_id=thread_id, resource_id=resource_id)
    assert len(mine.trace.calls) == 1
    assert await stored(backend, thread_id, resource_id) == []


@pytest.mark.asyncio
async def test_last_messages_zero_loads_nothing_but_stores(backend: Storage) -> None:
    thread_id, resource_id = ids()
    model = ScriptedModel(["a1", "a2"])
    agent = Agent(id="a", model=model, memory=Memory(backend, last_messages=0))
    await agent.generate("q1", thread_id=thread_id, resource_id=resource_id)
    await agent.generate("q2", thread_id=thread_id, resource_id=resource_id)
    assert conversation(model.calls[1].prompt) == [("user", "q2")]
    assert len(await backend.list_messages(thread_id, resource_id=resource_id)) == 4


def test_partial_calls_and_working_memory_calls_are_not_stored() -> None:
    def call(state: str, name: str, call_id: str) -> ToolInvocationPart:
        invocation = ToolInvocation(state=state, tool_call_id=call_id, tool_name=name, args={})  # type: ignore[arg-type]
        if state == "result":
            invocation.result = "ok"
        return ToolInvocationPart(tool_invocation=invocation)

    answer = Message(
        id="r",
        role="assistant",
        content=MessageContent(
            parts=[
                call("result", "update_working_memory", "c1"),
                StepStartPart(),
                call("partial-call", "search", "c2"),
                TextPart(text="done"),
                call("result", "search", "c3"),
            ]
        ),
    )
    only_memory = Message(
        id="r2",
        role="assistant",
        content=MessageContent(parts=[call("result", "update_working_memory", "c4")]),
    )
    message_list = MessageList(["hi"])
    message_list.add([answer, only_memory], "response")
    message_list.add(Message.user("old"), "memory")
    message_list.add(Message.user("ctx"), "context")
    stored_messages = messages_to_store(run_messages(message_list))
    assert [m.text for m in stored_messages] == ["hi", "done"]
    kept = stored_messages[1].content.parts
    assert [type(p).__name__ for p in kept] == ["TextPart", "ToolInvocationPart"]
    assert len(answer.content.parts) == 5  # the live message is untouched


@pytest.mark.asyncio
async def test_the_default_storage_is_a_sqlite_file_named_by_the_environment(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROCESSION_DB", str(tmp_path / "chat.db"))
    async with Memory() as memory:
        assert isinstance(memory.storage, SQLiteStorage)
        agent = Agent(id="a", model=ScriptedModel(["a"]), memory=memory)
        await agent.generate("q", thread_id="t", resource_id="r")
        assert [t.id for t in await memory.list_threads("r")] == ["t"]
        assert [m.text for m in await memory.list_messages("t", resource_id="r")] == ["q", "a"]
        assert await memory.delete_thread("t", resource_id="r")
        assert await memory.get_thread("t", resource_id="r") is None
    assert (tmp_path / "chat.db").is_file()
    with pytest.raises(ConfigurationError, match="storage must implement the Storage protocol"):
        Memory(object())  # type: ignore[arg-type]
