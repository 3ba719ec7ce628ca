"""ToolCallFilter: old tool calls leave the prompt, never the message list or memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from procession import Agent, ConfigurationError, ToolCallFilter, tool
from procession.memory import Memory
from procession.memory.sqlite import SQLiteStorage
from procession.testing import Reply, ScriptedModel, ToolCallScript


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@tool
def clock() -> str:
    """The time."""
    return "noon"


def _call(name: str, call_id: str, **args: Any) -> Reply:
    return Reply(tool_calls=[ToolCallScript(name, args, call_id)])


def _tool_ids(prompt: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [
        (part["type"], part["toolCallId"])
        for message in prompt
        if isinstance(message["content"], list)
        for part in message["content"]
        if part["type"] in ("tool-call", "tool-result")
    ]


async def _memory_with_a_tool_turn(tmp_path: Path) -> Memory:
    memory = Memory(SQLiteStorage(tmp_path / "m.db"))
    first = Agent(
        id="a",
        model=ScriptedModel(
            [_call("weather", "old-1", city="Oslo"), _call("clock", "old-2"), "ok"]
        ),
        tools=[weather, clock],
        memory=memory,
    )
    await first.generate("weather and time?", thread_id="t", resource_id="r")
    return memory


@pytest.mark.asyncio
async def test_history_calls_leave_the_prompt_but_this_runs_calls_stay(tmp_path: Path) -> None:
    memory = await _memory_with_a_tool_turn(tmp_path)
    model = ScriptedModel([_call("weather", "new-1", city="Rome"), "Rome is sunny"])
    agent = Agent(
        id="a",
        model=model,
        tools=[weather, clock],
        memory=memory,
        input_processors=[ToolCallFilter()],
    )
    await agent.generate("and Rome?", thread_id="t", resource_id="r")
    assert _tool_ids(model.calls[0].prompt) == []
    assert _tool_ids(model.calls[1].prompt) == [("tool-call", "new-1"), ("tool-result", "new-1")]
    roles = [m["role"] for m in model.calls[0].prompt]
    assert roles == ["user", "assistant", "user"]  # messages left empty were dropped
    stored = await memory.storage.list_messages("t", resource_id="r")
    calls = [p for m in stored for p in m.content.parts if p.type == "tool-invocation"]
    assert len(calls) == 3  # memory keeps every call
    await memory.storage.close()


@pytest.mark.asyncio
async def test_exclude_filters_only_the_named_tools(tmp_path: Path) -> None:
    memory = await _memory_with_a_tool_turn(tmp_path)
    model = ScriptedModel(["fine"])
    agent = Agent(
        id="a",
        model=model,
        tools=[weather, clock],
        memory=memory,
        input_processors=[ToolCallFilter(exclude=["clock"])],
    )
    await agent.generate("thanks", thread_id="t", resource_id="r")
    assert _tool_ids(model.calls[0].prompt) == [("tool-call", "old-1"), ("tool-result", "old-1")]
    await memory.storage.close()


@pytest.mark.asyncio
async def test_an_empty_exclude_filters_nothing(tmp_path: Path) -> None:
    memory = await _memory_with_a_tool_turn(tmp_path)
    model = ScriptedModel(["fine"])
    agent = Agent(
        id="a",
        model=model,
        tools=[weather, clock],
        memory=memory,
        input_processors=[ToolCallFilter(exclude=[])],
    )
    await agent.generate("thanks", thread_id="t", resource_id="r")
    kept = _tool_ids(model.calls[0].prompt)
    assert ("tool-call", "old-1") in kept
    assert len(kept) == 4  # both calls of the earlier turn and their results
    await memory.storage.close()


@pytest.mark.asyncio
async def test_filter_after_tool_steps_keeps_the_last_n_within_the_run() -> None:
    model = ScriptedModel(
        [_call("weather", f"c{i}", city=f"city{i}") for i in range(3)] + ["all sunny"]
    )
    agent = Agent(
        id="a",
        model=model,
        tools=[weather],
        input_processors=[ToolCallFilter(filter_after_tool_steps=1)],
    )
    await agent.generate("three cities")
    assert _tool_ids(model.calls[3].prompt) == [("tool-call", "c2"), ("tool-result", "c2")]
    assert _tool_ids(model.calls[2].prompt) == [("tool-call", "c1"), ("tool-result", "c1")]


@pytest.mark.asyncio
async def test_preserve_model_output_keeps_the_result_as_text(tmp_path: Path) -> None:
    memory = await _memory_with_a_tool_turn(tmp_path)
    model = ScriptedModel(["fine", "fine"])
    keep = ToolCallFilter(preserve_model_output=True)
    agent = Agent(id="a", model=model, memory=memory, input_processors=[keep])
    await agent.generate("thanks", thread_id="t", resource_id="r")
    texts = [
        part.get("text")
        for m in model.calls[0].prompt
        if isinstance(m["content"], list)
        for part in m["content"]
    ]
    assert "weather result:\nsunny in Oslo" in texts  # Mastra's form (issue 23)
    assert "clock result:\nnoon" in texts
    assert _tool_ids(model.calls[0].prompt) == []

    def summary(name: str, args: Any, result: Any) -> str | None:
        return f"{name}({args}) gave {result}" if name == "weather" else None

    custom = Agent(
        id="a", model=model, memory=memory,
        input_processors=[ToolCallFilter(preserve_model_output=summary)],
    )  # fmt: skip
    await custom.generate("bye", thread_id="t", resource_id="r")
    flat = str(model.calls[1].prompt)
    assert "weather({'city': 'Oslo'}) gave sunny in Oslo" in flat
    assert "noon" not in flat
    await memory.storage.close()


def test_options_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="exclude"):
        ToolCallFilter(exclude="weather")
    with pytest.raises(ConfigurationError, match="filter_after_tool_steps"):
        ToolCallFilter(filter_after_tool_steps=-1)
    with pytest.raises(ConfigurationError, match="preserve_model_output"):
        ToolCallFilter(preserve_model_output="yes")  # type: ignore[arg-type]
    unchanged = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert ToolCallFilter().process_llm_request(prompt=unchanged, state={}) is None


@pytest.mark.parametrize(
    ("output", "text"),
    [
        ({"type": "text", "value": "sunny"}, "sunny"),
        ({"type": "json", "value": {"city": "Oslo", "temp": 18}}, '{"city":"Oslo","temp":18}'),
        ({"type": "json", "value": [1, "two"]}, "1\ntwo"),
        ({"type": "json", "value": True}, "true"),
        ({"type": "error-text", "value": "no such city"}, "no such city"),
        (
            {
                "type": "content",
                "value": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            },
            "a\nb",
        ),
        ({"type": "json", "value": {"name": "Zoë"}}, '{"name":"Zoë"}'),
    ],
)
def test_the_model_output_becomes_text_as_mastra_writes_it(output: Any, text: str) -> None:
    # issue 23: Mastra's modelOutput text, "<tool> result:\n<text>" in place of the pair
    prompt: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "t", "input": {}}],
        },
        {
            "role": "tool",
            "content": [
                {"type": "tool-result", "toolCallId": "c1", "toolName": "t", "output": output}
            ],
        },
        {"role": "user", "content": "again"},
    ]
    answer = ToolCallFilter(preserve_model_output=True).process_llm_request(prompt=prompt, state={})
    assert answer is not None
    assert answer["prompt"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": f"t result:\n{text}"}],
    }
    assert [m["role"] for m in answer["prompt"]] == ["user", "assistant", "user"]
