"""Agents as tools (sub-agents): D9 nested chunks, D12 tripwires, D21 errors, D32 aborts."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from procession import AbortSignal, Agent, Chunk, ConfigurationError, ToolContext, TripWire, tool
from procession.testing import (
    FunctionModel,
    RecordingProcessor,
    Reply,
    ScriptedModel,
    ToolCallScript,
)
from procession.tools import agent_tool


def _delegate(prompt: str = "Capital of France?", call_id: str = "c1") -> Reply:
    return Reply(tool_calls=[ToolCallScript("agent-researcher", {"prompt": prompt}, call_id)])


def _researcher(model: Any = None, **options: Any) -> Agent:
    return Agent(
        id="researcher",
        description="Finds facts and answers with one sentence.",
        model=model or ScriptedModel([Reply(text=["Paris ", "is the capital."])]),
        **options,
    )


def _supervisor(sub: Agent, *replies: Reply, **options: Any) -> Agent:
    script = [_delegate(), *replies] if replies else [_delegate(), Reply(text=["Done."])]
    return Agent(id="boss", model=ScriptedModel(script), tools=[sub], **options)


def test_an_agent_in_tools_becomes_a_tool_with_a_prompt_argument() -> None:
    boss = _supervisor(_researcher())
    tool = boss.tools["agent-researcher"]
    assert tool.description == "Finds facts and answers with one sentence."
    assert tool.input_schema["required"] == ["prompt"]
    assert tool.input_schema["properties"]["prompt"]["type"] == "string"
    named = Agent(id="b2", model=ScriptedModel([]), tools={"research": _researcher()})
    assert list(named.tools) == ["research"]
    assert named.tools["research"].name == "research"


def test_agent_tool_checks_its_arguments() -> None:
    with pytest.raises(ConfigurationError, match="expected an Agent"):
        agent_tool("researcher")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="name"):
        agent_tool(_researcher(), name="")
    tool = agent_tool(_researcher(), name="ask", description="Ask it.")
    assert (tool.name, tool.description) == ("ask", "Ask it.")
    assert "researcher" in agent_tool(Agent(id="researcher", model=ScriptedModel([]))).description


@pytest.mark.asyncio
async def test_the_sub_agent_answers_as_the_tool_result() -> None:
    sub_model = ScriptedModel([Reply(text=["Paris ", "is the capital."])])
    boss = _supervisor(_researcher(sub_model))
    result = await boss.generate("Where is the Louvre's country capital?")
    assert result.text == "Done."
    assert result.tool_results[0].result == {"text": "Paris is the capital."}
    prompt = sub_model.calls[0].prompt[-1]  # the sub-agent got the prompt as its message
    assert "Capital of France?" in str(prompt)


@pytest.mark.asyncio
async def test_nested_tool_output_chunks_reach_the_parents_processors() -> None:  # D9
    seen: list[Chunk] = []

    def record(**kw: Any) -> Chunk:
        part: Chunk = kw["part"]
        seen.append(part)
        return part

    watcher = RecordingProcessor("watcher", process_output_stream=record)
    boss = _supervisor(_researcher(), output_processors=[watcher])
    stream = boss.stream("go")
    client = [c async for c in stream]
    nested = [c for c in seen if c.type == "tool-output"]
    assert [c.payload["output"]["type"] for c in nested][:2] == ["start", "step-start"]
    texts = [
        c.payload["output"]["payload"]["text"]
        for c in nested
        if c.payload["output"]["type"] == "text-delta"
    ]
    assert texts == ["Paris ", "is the capital."]
    first = nested[0]
    assert first.from_ == "USER"
    assert first.run_id == stream.run_id
    assert (first.payload["toolCallId"], first.payload["toolName"]) == ("c1", "agent-researcher")
    assert [c.type for c in client].count("tool-output") == len(nested)
    order = [c.type for c in client]
    assert order.index("tool-output") < order.index("tool-result")


@pytest.mark.asyncio
async def test_the_sub_agents_own_processors_apply_inside() -> None:
    def shout(**kw: Any) -> Chunk:
        part: Chunk = kw["part"]
        if part.type == "text-delta":
            return part.copy(payload={**part.payload, "text": part.payload["text"].upper()})
        return part

    upper = RecordingProcessor("upper", process_output_stream=shout)
    boss = _supervisor(_researcher(output_processors=[upper]))
    result = await boss.generate("go")
    assert result.tool_results[0].result == {"text": "PARIS IS THE CAPITAL."}


@pytest.mark.asyncio
async def test_the_sub_run_keeps_the_resource_on_a_thread_derived_from_the_parents() -> None:
    ids: list[tuple[str | None, str | None, object]] = []

    def look(**kw: Any) -> None:
        context = kw["request_context"]
        ids.append((context.thread_id, context.resource_id, context.get("tenant")))

    probe = RecordingProcessor("probe", process_input=look)
    sub = _researcher(ScriptedModel([Reply(text=["a"]), Reply(text=["b"])]))
    sub.input_processors = [probe]
    boss = _supervisor(sub)
    context = {"tenant": "acme"}
    await boss.generate("go", thread_id="t-1", resource_id="u-1", request_context=context)
    boss.model = ScriptedModel([_delegate(), Reply(text=["Done."])])
    await boss.generate("go", thread_id="t-2", resource_id="u-1")
    assert ids[0] == ("t-1/agent-researcher/c1", "u-1", "acme")
    assert ids[1][:2] == ("t-2/agent-researcher/c1", "u-1")  # another parent thread, another


@pytest.mark.asyncio
async def test_a_sub_agent_tripwire_is_a_tool_error_the_parent_model_sees() -> None:  # D12
    guard = RecordingProcessor("guard", process_input=lambda **kw: kw["abort"]("off topic"))
    parent_model = ScriptedModel([_delegate(), Reply(text=["Sorry, I cannot."])])
    boss = Agent(id="boss", model=parent_model, tools=[_researcher(input_processors=[guard])])
    stream = boss.stream("go")
    chunks = [c async for c in stream]
    errors = [c for c in chunks if c.type == "tool-error"]
    assert len(errors) == 1
    assert errors[0].payload["error"] == (
        "sub-agent 'researcher' was stopped by processor 'guard': off topic"
    )
    result = await stream.result()
    assert result.tripwire is None
    assert result.text == "Sorry, I cannot."
    assert "off topic" in str(parent_model.calls[1].prompt)


@pytest.mark.asyncio
async def test_a_sub_agent_tripwire_that_escalates_stops_the_parent() -> None:  # D12
    def block(**kw: Any) -> None:
        kw["abort"]("leak", metadata={"escalate": True, "category": "pii"})

    guard = RecordingProcessor("guard", process_input=block)
    boss = _supervisor(_researcher(input_processors=[guard]))
    stream = boss.stream("go")
    chunks = [c async for c in stream]
    assert chunks[-1].type == "tripwire"
    payload = chunks[-1].payload
    assert (payload["reason"], payload["processorId"]) == ("leak", "guard")
    assert payload["metadata"] == {"escalate": True, "category": "pii"}
    result = await stream.result()
    assert result.tripwire == payload
    assert result.text == ""


@pytest.mark.asyncio
async def test_a_failing_sub_run_is_a_tool_error() -> None:  # D21
    def fail(options: Any) -> Reply:
        raise ValueError("model down")

    boss = _supervisor(_researcher(FunctionModel(fail), max_retries=0))
    result = await boss.generate("go")
    error = result.tool_results[0].error
    assert error is not None
    assert error.startswith("sub-agent 'researcher' failed:")
    assert "model down" in error


@pytest.mark.asyncio
async def test_a_bad_prompt_is_a_tool_error() -> None:
    bad = Reply(tool_calls=[ToolCallScript("agent-researcher", {"prompt": 3}, "c1")])
    boss = _supervisor(_researcher(), bad, Reply(text=["ok"]))
    boss.model = ScriptedModel([bad, Reply(text=["ok"])])
    result = await boss.generate("go")
    assert "'prompt' must be a non-empty string" in str(result.tool_results[0].error)


def _hanging(started: asyncio.Event, ended: list[str]) -> FunctionModel:
    async def wait(options: Any) -> Reply:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            ended.append("sub-model ended")
        return Reply(text=["never"])

    return FunctionModel(wait)


@pytest.mark.asyncio
async def test_aborting_the_parent_aborts_the_sub_run() -> None:  # D32
    started, ended = asyncio.Event(), list[str]()
    boss = _supervisor(_researcher(_hanging(started, ended)))
    signal = AbortSignal()
    stream = boss.stream("go", abort_signal=signal)

    async def abort_when_started() -> None:
        await started.wait()
        signal.abort()

    aborter = asyncio.ensure_future(abort_when_started())
    chunks = [c async for c in stream]
    await aborter
    assert chunks[-1].type == "abort"
    assert ended == ["sub-model ended"]
    assert (await stream.result()).finish_reason == "abort"


@pytest.mark.asyncio
async def test_leaving_the_parent_stream_cancels_the_sub_run() -> None:  # D32
    started, ended = asyncio.Event(), list[str]()
    boss = _supervisor(_researcher(_hanging(started, ended)))
    async with boss.stream("go") as stream:
        async for chunk in stream:
            if chunk.type == "tool-output":
                break
    assert ended == ["sub-model ended"]
    assert started.is_set()


@pytest.mark.asyncio
async def test_mastras_agents_option_names_each_tool_agent_key() -> None:
    boss = Agent(
        id="boss",
        model=ScriptedModel([_delegate(), Reply(text=["Done."])]),
        agents={"researcher": _researcher()},
    )
    assert list(boss.tools) == ["agent-researcher"]
    result = await boss.generate("go")
    assert result.tool_results[0].result == {"text": "Paris is the capital."}


def test_the_agents_option_is_checked() -> None:  # D35
    with pytest.raises(ConfigurationError, match="agents: expected a mapping"):
        Agent(id="b", model=ScriptedModel([]), agents=[_researcher()])  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r"agents\['x'\]: expected an Agent"):
        Agent(id="b", model=ScriptedModel([]), agents={"x": "nope"})  # type: ignore[dict-item]
    with pytest.raises(ConfigurationError, match="already named 'agent-researcher'"):
        Agent(
            id="b",
            model=ScriptedModel([]),
            tools=[_researcher()],
            agents={"researcher": _researcher()},
        )


@pytest.mark.asyncio
async def test_a_tools_writer_write_is_a_tool_output_chunk() -> None:  # D9
    @tool
    async def progress(step: int, context: ToolContext) -> int:
        """Report progress."""
        await context.writer.write({"done": step})
        return step

    model = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("progress", {"step": 2}, "p1")]), Reply(text=["ok"])]
    )
    chunks = [c async for c in Agent(id="a", model=model, tools=[progress]).stream("go")]
    outputs = [c.payload for c in chunks if c.type == "tool-output"]
    assert outputs == [{"output": {"done": 2}, "toolCallId": "p1", "toolName": "progress"}]


@pytest.mark.asyncio
async def test_a_tool_raising_tripwire_ends_the_run_with_it() -> None:  # D12
    @tool
    def guarded(x: int) -> int:
        """Refuse."""
        raise TripWire("refused", metadata={"x": x}, processor_id="guarded")

    model = ScriptedModel([Reply(tool_calls=[ToolCallScript("guarded", {"x": 1}, "g1")])])
    result = await Agent(id="a", model=model, tools=[guarded]).generate("go")
    assert result.tripwire == {
        "reason": "refused",
        "retry": False,
        "metadata": {"x": 1},
        "processorId": "guarded",
    }


@pytest.mark.asyncio
async def test_a_sub_agents_data_chunks_become_the_parents() -> None:  # D9
    @tool
    async def fetch(context: ToolContext) -> str:
        """Fetch."""
        await context.writer.custom({"type": "data-progress", "data": {"done": 1}})
        return "fetched"

    sub_model = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("fetch", {}, "f1")]), Reply(text=["got it"])]
    )
    sub = _researcher(sub_model, tools=[fetch])
    stream = _supervisor(sub).stream("go")
    chunks = [c async for c in stream]
    data = [c for c in chunks if c.type == "data-progress"]
    assert [c.data for c in data] == [{"done": 1}]
    nested = [c.payload["output"]["type"] for c in chunks if c.type == "tool-output"]
    assert "data-progress" not in nested
    assert "tool-result" in nested  # the sub-agent's own tool call, nested
    assert (await stream.result()).tool_results[0].result == {"text": "got it"}


@pytest.mark.asyncio
async def test_a_sub_agent_with_memory_stores_its_run_on_the_derived_thread() -> None:
    from procession import Memory, ThreadOwnershipError
    from procession.memory import SQLiteStorage

    memory = Memory(SQLiteStorage(":memory:"))
    boss = _supervisor(_researcher(memory=memory))
    await boss.generate("go", thread_id="t-1", resource_id="ada")
    thread = await memory.get_thread("t-1/agent-researcher/c1", resource_id="ada")
    assert thread is not None
    assert thread.resource_id == "ada"
    with pytest.raises(ThreadOwnershipError):
        await memory.get_thread("t-1/agent-researcher/c1", resource_id="eve")
    await memory.storage.close()
