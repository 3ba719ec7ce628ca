"""Working memory end to end: the tool, the system message, scopes, schemas (D13, D17)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from pydantic import BaseModel

from procession import Agent, ConfigurationError
from procession.memory import Memory, SQLiteStorage, Storage, WorkingMemoryConfig
from procession.testing import RecordingProcessor, Reply, ScriptedModel, ToolCallScript

TOOL = "update_working_memory"


def ids() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:8]
    return f"thread-{tag}", f"user-{tag}"


def update(memory: Any, call_id: str = "wm-1") -> Reply:
    """A reply that calls the working-memory tool (the scripted model forces the call)."""
    return Reply(tool_calls=[ToolCallScript(TOOL, {"memory": memory}, call_id)])


def memory_system_text(prompt: list[dict[str, Any]]) -> str:
    [text] = [
        m["content"] for m in prompt if m["role"] == "system" and "working memory" in m["content"]
    ]
    return str(text)


def tool_results(prompt: list[dict[str, Any]]) -> list[Any]:
    return [p for m in prompt if m["role"] == "tool" for p in m["content"]]


@pytest.mark.asyncio
async def test_the_tool_updates_working_memory_shown_in_the_next_run(backend: Storage) -> None:
    thread_id, resource_id = ids()
    model = ScriptedModel([update("- **First Name**: Ada"), Reply(text=["Noted."]), "Hi Ada"])
    memory = Memory(backend, working_memory=True)
    agent = Agent(id="a", model=model, memory=memory)
    first = await agent.generate("I'm Ada", thread_id=thread_id, resource_id=resource_id)
    assert first.text == "Noted."
    assert [t["name"] for t in model.calls[0].tools] == [TOOL]
    assert "<working_memory_template>" in memory_system_text(model.calls[0].prompt)
    assert await memory.get_working_memory(resource_id=resource_id) == "- **First Name**: Ada"
    await agent.generate("who am I?", thread_id=thread_id, resource_id=resource_id)
    shown = memory_system_text(model.calls[2].prompt)
    assert "<working_memory_data>\n- **First Name**: Ada\n</working_memory_data>" in shown
    stored = await backend.list_messages(thread_id, resource_id=resource_id)
    assert TOOL not in repr(stored)  # the tool call is working memory's, not the history's
    assert [(m.role, m.text) for m in stored][:2] == [("user", "I'm Ada"), ("assistant", "Noted.")]


@pytest.mark.asyncio
async def test_resource_scope_is_shared_by_threads_and_thread_scope_is_not(
    backend: Storage,
) -> None:
    _, resource_id = ids()
    for scope, visible in (("resource", True), ("thread", False)):
        t1, t2 = f"t1-{scope}-{resource_id}", f"t2-{scope}-{resource_id}"
        model = ScriptedModel([update(f"likes {scope}"), "ok", "next"])
        memory = Memory(backend, working_memory=WorkingMemoryConfig(scope=scope))  # type: ignore[arg-type]
        agent = Agent(id="a", model=model, memory=memory)
        await agent.generate("remember", thread_id=t1, resource_id=resource_id)
        await agent.generate("other thread", thread_id=t2, resource_id=resource_id)
        assert (f"likes {scope}" in memory_system_text(model.calls[2].prompt)) is visible
        if scope == "thread":
            assert await memory.get_working_memory(resource_id=resource_id, thread_id=t1) == (
                "likes thread"
            )
            assert await memory.get_working_memory(resource_id=resource_id, thread_id=t2) is None


@pytest.mark.asyncio
async def test_an_update_from_a_blocked_run_is_not_kept(backend: Storage) -> None:  # D13
    thread_id, resource_id = ids()
    blocker = RecordingProcessor("blocker", process_output_result=lambda **kw: kw["abort"]("no"))
    model = ScriptedModel([update("secret plan"), "text"])
    memory = Memory(backend, working_memory=True)
    agent = Agent(id="a", model=model, memory=memory, output_processors=[blocker])
    result = await agent.generate("hi", thread_id=thread_id, resource_id=resource_id)
    assert result.tripwire is not None
    assert await memory.get_working_memory(resource_id=resource_id) is None


@pytest.mark.asyncio
async def test_an_update_from_a_rolled_back_attempt_is_not_kept(backend: Storage) -> None:  # D1
    thread_id, resource_id = ids()
    rejected = {"n": 0}

    def reject_first(**kw: Any) -> Any:
        rejected["n"] += 1
        if rejected["n"] == 1:
            kw["abort"]("not that", retry=True)
        return None

    guard = RecordingProcessor("guard", process_tool_result=reject_first)
    model = ScriptedModel([update("wrong fact"), Reply(text=["Fine."])])
    memory = Memory(backend, working_memory=True)
    agent = Agent(
        id="a", model=model, memory=memory, output_processors=[guard], max_processor_retries=1
    )
    result = await agent.generate("hi", thread_id=thread_id, resource_id=resource_id)
    assert result.text == "Fine."
    assert rejected["n"] == 1  # the tool ran, then its step was rolled back
    assert await memory.get_working_memory(resource_id=resource_id) is None


class Profile(BaseModel):
    name: str
    age: int | None = None


@pytest.mark.asyncio
async def test_schema_mode_validates_updates(backend: Storage) -> None:
    thread_id, resource_id = ids()
    model = ScriptedModel(
        [
            update({"name": "Ada", "age": "old"}, "bad"),
            update({"name": "Ada", "age": 36}, "good"),
            Reply(text=["Saved."]),
        ]
    )
    memory = Memory(backend, working_memory=WorkingMemoryConfig(schema=Profile))
    agent = Agent(id="a", model=model, memory=memory)
    await agent.generate("I'm Ada, 36", thread_id=thread_id, resource_id=resource_id)
    [refused] = tool_results(model.calls[1].prompt)
    assert refused["output"]["type"] == "error-text"
    assert "age" in refused["output"]["value"]
    stored = await memory.get_working_memory(resource_id=resource_id)
    assert stored is not None
    assert json.loads(stored) == {"name": "Ada", "age": 36}
    schema = model.calls[0].tools[0]["inputSchema"]
    assert "Profile" in json.dumps(schema)


@pytest.mark.asyncio
async def test_json_schema_mode_and_the_helpers(tmp_path: Any) -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    }
    storage = SQLiteStorage(tmp_path / "wm.db")
    memory = Memory(storage, working_memory=WorkingMemoryConfig(schema=schema))
    await memory.set_working_memory({"city": "Oslo"}, resource_id="r")
    assert await memory.get_working_memory(resource_id="r") == '{"city": "Oslo"}'
    with pytest.raises(ConfigurationError, match=r"\$\.city is required"):
        await memory.set_working_memory({"town": "Oslo"}, resource_id="r")
    model = ScriptedModel([update({"city": "Bergen"}), update({"city": 7}, "c2"), "ok"])
    agent = Agent(id="a", model=model, memory=memory)
    await agent.generate("I moved", thread_id="t", resource_id="r")
    assert await memory.get_working_memory(resource_id="r") == '{"city": "Bergen"}'
    assert '{"city": "Bergen"}' in memory_system_text(await _next_prompt(agent, model, "t", "r"))
    await storage.close()


async def _next_prompt(
    agent: Agent, model: ScriptedModel, thread_id: str, resource_id: str
) -> list[dict[str, Any]]:
    model.replies.append(Reply(text=["again"]))
    await agent.generate("again", thread_id=thread_id, resource_id=resource_id)
    return model.calls[-1].prompt


def test_working_memory_config_is_checked() -> None:
    with pytest.raises(ConfigurationError, match="not both"):
        WorkingMemoryConfig(template="x", schema=Profile)
    with pytest.raises(ConfigurationError, match="scope"):
        WorkingMemoryConfig(scope="user")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="schema must be"):
        WorkingMemoryConfig(schema=42)


@pytest.mark.asyncio
async def test_thread_scoped_helpers_need_a_thread(tmp_path: Any) -> None:
    storage = SQLiteStorage(tmp_path / "wm.db")
    memory = Memory(storage, working_memory=WorkingMemoryConfig(scope="thread"))
    with pytest.raises(ConfigurationError, match="thread_id"):
        await memory.get_working_memory(resource_id="r")
    await memory.set_working_memory("notes", resource_id="r", thread_id="t")
    assert await memory.get_working_memory(resource_id="r", thread_id="t") == "notes"
    await storage.close()


@pytest.mark.asyncio
async def test_a_custom_template_is_shown_until_there_is_data(tmp_path: Any) -> None:
    storage = SQLiteStorage(tmp_path / "wm.db")
    memory = Memory(storage, working_memory=WorkingMemoryConfig(template="## Plan\n- step:"))
    model = ScriptedModel(["ok"])
    await Agent(id="a", model=model, memory=memory).generate("hi", thread_id="t", resource_id="r")
    text = memory_system_text(model.calls[0].prompt)
    assert "<working_memory_data>\n## Plan\n- step:\n</working_memory_data>" in text
    await storage.close()


@pytest.mark.asyncio
async def test_the_tool_is_built_once_per_configuration_not_per_run(tmp_path: Any) -> None:
    # issue 25: its argument model and JSON schema were rebuilt with pydantic on every run
    from procession import Processor

    seen: list[Any] = []

    class ToolSeen(Processor):
        id = "tool-seen"

        def process_input_step(self, *, tools: dict[str, Any], **_: Any) -> None:
            seen.append(tools.get(TOOL))

    storage = SQLiteStorage(tmp_path / "wm.db")
    memory = Memory(storage, working_memory=WorkingMemoryConfig(scope="thread"))
    agent = Agent(
        id="wm-once",
        model=ScriptedModel([Reply(text=["ok"])], repeat_last=True),
        memory=memory,
        input_processors=[ToolSeen()],
    )
    try:
        for _ in range(2):
            await agent.generate("hi", thread_id="t-once", resource_id="r-once")
    finally:
        await storage.close()
    assert len(seen) == 2
    assert seen[0] is not None
    assert seen[0] is seen[1]
