"""The loop without processors: chunks, results, steps, tools (D18, D22, D23)."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Agent, Chunk, TextPart, tool
from procession.testing import Reply, ScriptedModel, ScriptExhaustedError

from .helpers import agent, collect, parts, tool_call, types


@tool
def lookup_user(id: int) -> dict[str, Any]:
    """Look up a user by id."""
    return {"id": id, "name": "Ada"}


@pytest.mark.asyncio
async def test_stream_chunk_sequence_for_one_text_step() -> None:
    model = ScriptedModel([Reply(text=["Hel", "lo"])])
    chunks = await collect(agent(model).stream("Hi"))
    assert types(chunks) == [
        "start",
        "step-start",
        "text-start",
        "text-delta",
        "text-delta",
        "text-end",
        "step-finish",
        "finish",
    ]


@pytest.mark.asyncio
async def test_chunk_wire_format_matches_mastra() -> None:  # D22
    model = ScriptedModel([Reply(text=["Hello"])])
    stream = agent(model).stream("Hi")
    chunks = await collect(stream)
    delta = next(c for c in chunks if c.type == "text-delta")
    assert delta.to_dict() == {
        "type": "text-delta",
        "runId": stream.run_id,
        "from": "AGENT",
        "payload": {"id": "txt-0", "text": "Hello"},
    }
    data = Chunk.data_chunk("data-progress", {"pct": 50}, transient=True)
    assert data.to_dict() == {"type": "data-progress", "data": {"pct": 50}, "transient": True}


@pytest.mark.asyncio
async def test_generate_returns_text_usage_and_steps() -> None:
    model = ScriptedModel([Reply(text=["Hel", "lo"])])
    result = await agent(model).generate("Hi")
    assert result.text == "Hello"
    assert result.finish_reason == "stop"
    assert result.usage.input_tokens == 10
    assert result.usage.output_tokens == 2
    assert [s.step_number for s in result.steps] == [0]
    assert result.tripwire is None


@pytest.mark.asyncio
async def test_prompt_has_instructions_then_input() -> None:
    model = ScriptedModel([Reply(text=["ok"])])
    await agent(model).generate("Hi there")
    assert model.calls[0].prompt == [
        {"role": "system", "content": "You are a test agent."},
        {"role": "user", "content": [{"type": "text", "text": "Hi there"}]},
    ]


@pytest.mark.asyncio
async def test_tool_loop_executes_tool_and_feeds_result_back() -> None:
    model = ScriptedModel([tool_call("lookup_user", {"id": 42}), Reply(text=["Ada"])])
    result = await agent(model, tools=[lookup_user]).generate("Who is 42?")
    assert result.text == "Ada"
    assert [s.finish_reason for s in result.steps] == ["tool-calls", "stop"]
    assert result.tool_results[0].result == {"id": 42, "name": "Ada"}
    second_prompt = model.calls[1].prompt
    assert second_prompt[-1] == {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "call-1",
                "toolName": "lookup_user",
                "output": {"type": "json", "value": {"id": 42, "name": "Ada"}},
            }
        ],
    }
    assert model.calls[0].tools[0]["name"] == "lookup_user"
    assert model.calls[0].tools[0]["inputSchema"]["required"] == ["id"]


@pytest.mark.asyncio
async def test_response_message_holds_tool_result_step_start_and_text() -> None:
    model = ScriptedModel([tool_call("lookup_user", {"id": 1}), Reply(text=["Done"])])
    result = await agent(model, tools=[lookup_user]).generate("Go")
    (message,) = result.messages
    assert [p["type"] for p in parts(message)] == ["tool-invocation", "step-start", "text"]
    assert parts(message)[0]["toolInvocation"]["state"] == "result"


@pytest.mark.asyncio
async def test_result_text_joins_every_accepted_step() -> None:  # D23
    model = ScriptedModel(
        [
            Reply(
                text=["Let me check. "], tool_calls=tool_call("lookup_user", {"id": 1}).tool_calls
            ),
            Reply(text=["Found Ada."]),
        ]
    )
    stream = agent(model, tools=[lookup_user]).stream("Go")
    chunks = await collect(stream)
    result = await stream.result()
    assert result.text == "Let me check. Found Ada."
    assert chunks[-1].payload["output"]["text"] == "Let me check. Found Ada."


@pytest.mark.asyncio
async def test_generate_and_stream_give_processors_the_same_chunks() -> None:  # D18
    seen: dict[str, list[str]] = {"stream": [], "generate": []}

    def recorder(mode: str) -> Any:
        class Recorder:
            id = "recorder"

            def process_output_stream(self, *, part: Chunk) -> Chunk:
                seen[mode].append(part.type)
                return part

        return Recorder()

    for mode in ("stream", "generate"):
        model = ScriptedModel([Reply(text=["a", "b", "c"])])
        bot = agent(model, output_processors=[recorder(mode)])
        if mode == "stream":
            await collect(bot.stream("Hi"))
        else:
            await bot.generate("Hi")
    assert seen["stream"] == seen["generate"]
    assert seen["stream"].count("text-delta") == 3


@pytest.mark.asyncio
async def test_max_steps_stops_a_tool_loop() -> None:
    model = ScriptedModel([tool_call("lookup_user", {"id": 1})], repeat_last=True)
    result = await agent(model, tools=[lookup_user], max_steps=3).generate("Go")
    assert len(model.calls) == 3
    assert len(result.steps) == 3


@pytest.mark.asyncio
async def test_strict_scripted_model_fails_on_unexpected_call() -> None:
    model = ScriptedModel([tool_call("lookup_user", {"id": 1})])
    with pytest.raises(ScriptExhaustedError):
        await agent(model, tools=[lookup_user]).generate("Go")


@pytest.mark.asyncio
async def test_tool_error_becomes_tool_error_chunk_and_output_error_part() -> None:
    @tool
    def explode(reason: str) -> str:
        """Always fails."""
        raise RuntimeError(f"boom: {reason}")

    model = ScriptedModel([tool_call("explode", {"reason": "x"}), Reply(text=["sorry"])])
    stream = agent(model, tools=[explode]).stream("Go")
    chunks = await collect(stream)
    error = next(c for c in chunks if c.type == "tool-error")
    assert error.payload["error"] == "boom: x"
    result = await stream.result()
    invocation = parts(result.messages[0])[0]["toolInvocation"]
    assert invocation["state"] == "output-error"
    assert invocation["errorText"] == "boom: x"
    assert model.calls[1].prompt[-1]["content"][0]["output"] == {
        "type": "error-text",
        "value": "boom: x",
    }


@pytest.mark.asyncio
async def test_invalid_tool_arguments_are_a_tool_error() -> None:
    model = ScriptedModel([tool_call("lookup_user", {"id": "not a number"}), Reply(text=["k"])])
    stream = agent(model, tools=[lookup_user]).stream("Go")
    chunks = await collect(stream)
    error = next(c for c in chunks if c.type == "tool-error")
    assert "invalid arguments" in error.payload["error"]


@pytest.mark.asyncio
async def test_unknown_tool_is_a_tool_error() -> None:
    model = ScriptedModel([tool_call("missing", {}), Reply(text=["k"])])
    chunks = await collect(agent(model, tools=[lookup_user]).stream("Go"))
    error = next(c for c in chunks if c.type == "tool-error")
    assert "'missing' is not available" in error.payload["error"]


@pytest.mark.asyncio
async def test_parallel_tool_calls_run_concurrently() -> None:
    import asyncio

    running: list[int] = []
    peak = 0

    @tool
    async def slow(n: int) -> int:
        """Sleep a little."""
        nonlocal peak
        running.append(n)
        peak = max(peak, len(running))
        await asyncio.sleep(0.01)
        running.remove(n)
        return n * 2

    from procession.testing import ToolCallScript

    calls = [ToolCallScript("slow", {"n": i}, f"c{i}") for i in range(3)]
    model = ScriptedModel([Reply(tool_calls=calls), Reply(text=["ok"])])
    result = await agent(model, tools=[slow]).generate("Go")
    assert peak == 3
    assert [r.result for r in result.tool_results] == [0, 2, 4]


@pytest.mark.asyncio
async def test_tool_results_are_made_json_serializable() -> None:
    import dataclasses
    import datetime

    @dataclasses.dataclass
    class Row:
        when: datetime.date
        value: int

    @tool
    def fetch() -> Row:
        """Fetch a row."""
        return Row(datetime.date(2026, 1, 2), 3)

    model = ScriptedModel([tool_call("fetch", {}), Reply(text=["ok"])])
    result = await agent(model, tools=[fetch]).generate("Go")
    assert result.tool_results[0].result == {"when": "2026-01-02", "value": 3}


@pytest.mark.asyncio
async def test_text_stream_yields_only_text() -> None:
    model = ScriptedModel([Reply(text=["a", "b"])])
    stream = agent(model).stream("Hi")
    assert [t async for t in stream.text_stream] == ["a", "b"]
    assert (await stream.result()).text == "ab"


@pytest.mark.asyncio
async def test_input_as_message_list_of_dicts() -> None:
    model = ScriptedModel([Reply(text=["ok"])])
    await agent(model).generate(
        [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "answer"},
            {"role": "user", "content": [{"type": "text", "text": "second"}]},
        ]
    )
    roles = [m["role"] for m in model.calls[0].prompt]
    assert roles == ["system", "user", "assistant", "user"]


@pytest.mark.asyncio
async def test_reasoning_is_streamed_and_stored() -> None:
    model = ScriptedModel([Reply(reasoning=["think", "ing"], text=["ok"])])
    result = await agent(model).generate("Hi")
    assert result.reasoning == "thinking"
    assert [p["type"] for p in parts(result.messages[0])] == ["reasoning", "text"]


def test_agent_requires_id() -> None:
    from procession import ConfigurationError

    with pytest.raises(ConfigurationError, match="id"):
        Agent(id="", model=ScriptedModel())


@pytest.mark.asyncio
async def test_text_part_edits_are_live() -> None:  # D24
    class Shout:
        id = "shout"

        def process_input(self, *, messages: list[Any]) -> None:
            for message in messages:
                for part in message.content.parts:
                    if isinstance(part, TextPart):
                        part.text = part.text.upper()

    model = ScriptedModel([Reply(text=["ok"])])
    await agent(model, input_processors=[Shout()]).generate("quiet please")
    assert model.calls[0].prompt[1]["content"][0]["text"] == "QUIET PLEASE"


@pytest.mark.asyncio
async def test_interleaved_scripted_streams_overlap() -> None:
    import asyncio

    order: list[str] = []

    async def run(name: str) -> None:
        model = ScriptedModel([Reply(text=["a", "b", "c"])], interleave=True)
        async for chunk in agent(model).stream(name):
            if chunk.type == "text-delta":
                order.append(name)

    await asyncio.gather(run("x"), run("y"))
    assert order[:2] == ["x", "y"]  # neither run finished before the other started streaming


@pytest.mark.asyncio
async def test_tool_calls_with_a_stop_finish_still_take_the_next_step() -> None:
    # Some OpenAI-compatible servers (Gemini's among them) say "stop" beside tool calls.
    said_stop = Reply(
        tool_calls=tool_call("lookup_user", {"id": 7}).tool_calls, finish_reason="stop"
    )
    model = ScriptedModel([said_stop, Reply(text=["Ada, number 7"])])
    result = await agent(model, tools=[lookup_user]).generate("Who is 7?")
    assert result.text == "Ada, number 7"
    assert [s.finish_reason for s in result.steps] == ["stop", "stop"]
    assert model.calls[1].prompt[-1]["role"] == "tool"
