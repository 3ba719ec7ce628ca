"""How an agent places memory processors and when it commits a run (D13, D20)."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Agent, ConfigurationError, RequestContext
from procession.memory.base import Turn
from procession.testing import RecordingProcessor, Reply, ScriptedModel, Trace


class FakeMemory:
    """Records commits; its processors record their calls."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.commits: list[list[str]] = []

    def input_processors(self, request_context: RequestContext) -> list[Any]:
        return [RecordingProcessor("message-history", ["process_input"], trace=self.trace)]

    def output_processors(self, request_context: RequestContext) -> list[Any]:
        return [RecordingProcessor("message-history", ["process_output_result"], trace=self.trace)]

    async def commit(self, turn: Turn) -> None:
        self.commits.append([m.text for m in turn.messages])


@pytest.mark.asyncio
async def test_memory_processors_wrap_the_lanes_even_when_a_call_replaces_them() -> None:  # D20
    trace = Trace()
    memory = FakeMemory(trace)
    user_in = RecordingProcessor("user-in", ["process_input"], trace=trace)
    user_out = RecordingProcessor("user-out", ["process_output_result"], trace=trace)
    model = ScriptedModel([Reply(text=["a"])], repeat_last=True)
    agent = Agent(id="m", model=model, memory=memory)
    await agent.generate("x", input_processors=[user_in], output_processors=[user_out])
    assert trace.hooks() == [
        "message-history.process_input",
        "user-in.process_input",
        "user-out.process_output_result",
        "message-history.process_output_result",
    ]


@pytest.mark.asyncio
async def test_a_configured_processor_with_the_same_id_replaces_the_memorys() -> None:  # D20
    trace = Trace()
    mine = RecordingProcessor("message-history", ["process_input"], trace=trace)
    agent = Agent(
        id="m",
        model=ScriptedModel([Reply(text=["a"])]),
        memory=FakeMemory(Trace()),
        input_processors=[mine],
    )
    await agent.generate("x")
    assert trace.hooks() == ["message-history.process_input"]


@pytest.mark.asyncio
async def test_commit_runs_once_after_a_completed_run_only() -> None:  # D13
    memory = FakeMemory(Trace())
    blocker = RecordingProcessor("block", process_output_result=lambda **kw: kw["abort"]("no"))
    model = ScriptedModel([Reply(text=["ok"]), Reply(text=["blocked"])])
    agent = Agent(id="m", model=model, memory=memory)
    await agent.generate("first")
    await agent.generate("second", output_processors=[blocker])
    assert memory.commits == [["first", "ok"]]


def test_memory_must_have_the_memory_shape() -> None:
    with pytest.raises(ConfigurationError, match="memory: expected a memory with input_processors"):
        Agent(id="m", model=ScriptedModel(), memory=object())  # type: ignore[arg-type]
