"""Fault injection: a provider error at every chunk index, a tool exception, a processor
exception in each hook (sync and async), a storage failure; in both release modes. The run
fails closed (an error chunk naming what failed, nothing unprocessed passed on, nothing
stored) or, where an error processor retries, completes as a clean run would; and nothing is
left behind (the guard). ``bench/soak_faults.py`` does the same over long streams."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from procession import Agent, APICallError, Memory, ProcessorError
from procession.memory import SQLiteStorage
from procession.processors import ERROR_HOOKS, INPUT_HOOKS, OUTPUT_HOOKS
from procession.testing import Reply, ScriptedModel, ToolCallScript

from ..contract.kit import processor
from .harness import (
    FaultyModel,
    Guard,
    Release,
    Tools,
    sqlite_memory,
    stored,
    streamed,
    texts_of,
    tool_replies,
)

RELEASES = ("live", "step")
REPLIES = tool_replies(2)
CHUNKS_PER_CALL = (8, 6)
"""Chunks each scripted call streams: response-metadata, text-start, 2 deltas, text-end, 2
tool calls, finish; then response-metadata, text-start, 2 deltas, text-end, finish."""
FAULT_POINTS = [
    (call, at, kind)
    for call, count in enumerate(CHUNKS_PER_CALL)
    for kind in ("raise", "chunk")
    for at in range(count)
] + [(0, 0, "start"), (1, 0, "start")]
CLEAN_TEXT = "Working on it.All done."


class Retrier:
    """An error processor that asks for a retry (D14)."""

    id = "retrier"

    def __init__(self) -> None:
        self.errors: list[BaseException] = []

    def process_api_error(self, *, error: BaseException, **_: Any) -> dict[str, bool]:
        self.errors.append(error)
        return {"retry": True}


def _agent(model: Any, tools: Tools, memory: Memory, **options: Any) -> Agent:
    return Agent(id="a", model=model, tools=tools.all(), memory=memory, max_retries=0, **options)


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("retry", [False, True], ids=["no-error-lane", "retrying-lane"])
@pytest.mark.parametrize(("call", "at", "kind"), FAULT_POINTS)
def test_a_provider_error_at_every_chunk(
    guard: Guard, call: int, at: int, kind: str, retry: bool, release: Release
) -> None:
    faulty = FaultyModel(REPLIES, call=call, at=at, kind=kind)
    model = guard.model(faulty)
    tools = guard.track(Tools())
    retrier = Retrier()
    memory = sqlite_memory()

    async def body() -> None:
        try:
            agent = _agent(model, tools, memory, error_processors=[retrier] if retry else None)
            chunks, result = await streamed(agent, release)
            kept = await stored(memory)
            assert faulty.faults == 1
            if retry:  # the error lane re-runs the step: a clean run's outcome
                assert [type(e) for e in retrier.errors] == [APICallError]
                assert chunks[-1].type == "finish"
                assert result.text == CLEAN_TEXT
                assert texts_of(kept) == "go" + CLEAN_TEXT
                return
            assert chunks[-1].type == "error"
            assert isinstance(result.error, APICallError)
            assert chunks[-1].payload["error"]["statusCode"] in (400, 502)
            assert result.text == ""
            assert kept == []  # D13
            if call == 0:
                assert tools.events == []  # the broken step's tools never ran
            if release == "step":  # the failed step never reached the client (D31)
                shown = "".join(c.payload["text"] for c in chunks if c.type == "text-delta")
                assert shown == ("" if call == 0 else "Working on it.")
        finally:
            await memory.storage.close()

    guard.run(body)


STEP_START_LEAK = pytest.mark.skip(
    reason="needs loop: when the step-start chunk (emitted through the output lane after the "
    "model call started) fails or is blocked in process_output_stream, the started model "
    "stream must be closed (D32, D10); today the run ends without reaching the hot path's "
    "finally, so the provider's stream stays open until garbage collection"
)
STEP_STARTS = (0, 11)
"""Indexes of the step-start chunks among what passes the lane."""


HOOKS = [
    (lane, hook)
    for lane, hooks in (("input", INPUT_HOOKS), ("output", OUTPUT_HOOKS), ("error", ERROR_HOOKS))
    for hook in hooks
]


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    ("lane", "hook"),
    [
        pytest.param(lane, hook, marks=STEP_START_LEAK)
        if hook == "process_output_stream"  # it fails on the first chunk: a step-start
        else (lane, hook)
        for lane, hook in HOOKS
    ],
)
def test_a_processor_exception_in_each_hook_fails_closed(
    guard: Guard, lane: str, hook: str, mode: str, release: Release
) -> None:
    replies = list(REPLIES)
    if hook == "process_api_error":
        replies.insert(0, Reply(error=APICallError("bad request", status_code=400)))
    model = guard.model(ScriptedModel(replies))
    tools = guard.track(Tools())
    memory = sqlite_memory()

    def crash(**kwargs: Any) -> Any:
        raise KeyError("guardrail bug")

    crashing = processor("crashy", mode, {hook: crash})

    async def body() -> None:
        try:
            agent = _agent(model, tools, memory, **{f"{lane}_processors": [crashing]})
            chunks, result = await streamed(agent, release)
            assert chunks[-1].type == "error"
            assert await stored(memory) == []
            if hook == "process_api_error":  # D10's exception: logged, the API error ends it
                assert isinstance(result.error, APICallError)
                return
            assert isinstance(result.error, ProcessorError)
            assert (result.error.processor_id, result.error.hook) == ("crashy", hook)
            detail = chunks[-1].payload["error"]
            assert (detail["processorId"], detail["hook"]) == ("crashy", hook)
            if hook in ("process_input", "process_input_step", "process_llm_request"):
                assert model.opened == 0
            if hook not in ("process_tool_result", "process_output_result"):
                assert tools.events == []  # before the tools: they never ran
            shown = "".join(c.payload["text"] for c in chunks if c.type == "text-delta")
            if hook == "process_output_stream" or (
                release == "step" and hook != "process_output_result"
            ):
                assert shown == ""  # nothing unprocessed, and no unaccepted step, went out
        finally:
            await memory.storage.close()

    guard.run(body)


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    "at", [pytest.param(i, marks=STEP_START_LEAK) if i in STEP_STARTS else i for i in range(14)]
)
def test_a_stream_processor_failing_at_every_chunk(
    guard: Guard, at: int, mode: str, release: Release
) -> None:
    model = guard.model(ScriptedModel(list(REPLIES)))
    tools = guard.track(Tools())
    memory = sqlite_memory()
    calls: list[str] = []

    def fail_at(**kwargs: Any) -> Any:
        part = kwargs["part"]
        if len(calls) == at:
            raise RuntimeError(f"failed at chunk {at}")
        calls.append(part.type)
        return part

    async def body() -> None:
        try:
            agent = _agent(
                model,
                tools,
                memory,
                output_processors=[processor("f", mode, {"process_output_stream": fail_at})],
            )
            chunks, result = await streamed(agent, release)
            assert chunks[-1].type == "error"
            assert isinstance(result.error, ProcessorError)
            assert result.error.processor_id == "f"
            assert await stored(memory) == []
            passed = [t for t in calls if t not in ("response-metadata", "finish")]
            client = [c.type for c in chunks[1:-1] if not c.type.startswith("data-")]
            if release == "live":
                assert client == passed  # exactly what passed the lane, nothing more
            else:  # held steps that were accepted (response-metadata: see test_d31_release)
                client = [t for t in client if t != "response-metadata"]
                assert client == passed[: len(client)]
        finally:
            await memory.storage.close()

    guard.run(body)


@pytest.mark.parametrize("release", RELEASES)
def test_a_tool_exception_reaches_the_model_as_a_tool_error(guard: Guard, release: Release) -> None:
    model = guard.model(ScriptedModel(list(REPLIES)))
    tools = guard.track(Tools(fail=True))
    memory = sqlite_memory()

    async def body() -> None:
        try:
            chunks, _ = await streamed(_agent(model, tools, memory), release)
            errors = {
                c.payload["toolName"]: c.payload["error"] for c in chunks if c.type == "tool-error"
            }
            assert errors == {"echo": "echo broke", "wait": "wait broke"}
            assert chunks[-1].type == "finish"
            assert "echo broke" in str(model.calls[-1].prompt)
            assert sorted(tools.events) == ["echo", "raised", "start"]
            assert texts_of(await stored(memory)) == "go" + CLEAN_TEXT
        finally:
            await memory.storage.close()

    guard.run(body)


@pytest.mark.skip(
    reason="needs loop: a tool that raises CancelledError while nobody cancelled the run must "
    "end as a tool error carrying a message (as D32 treats a hook doing so); today "
    "_run_one catches Exception only, so the tool-error chunk and the stored call carry "
    "error None"
)
def test_a_tool_raising_cancelled_error_on_its_own_is_a_tool_error(guard: Guard) -> None:
    from procession import tool

    @tool
    async def quits() -> str:
        """Quit."""
        raise asyncio.CancelledError

    model = guard.model(ScriptedModel([Reply(tool_calls=[ToolCallScript("quits", {})]), "ok"]))

    async def body() -> None:
        chunks = [c async for c in Agent(id="a", model=model, tools=[quits]).stream("go")]
        (error,) = [c for c in chunks if c.type == "tool-error"]
        assert isinstance(error.payload["error"], str)
        assert "CancelledError" in error.payload["error"]

    guard.run(body)


class BrokenStorage(SQLiteStorage):
    """A storage whose commit fails (a full disk, a lost connection)."""

    async def save_turn(self, *args: Any, **kwargs: Any) -> None:
        raise OSError("disk full")


@pytest.mark.parametrize("release", RELEASES)
def test_a_failing_commit_fails_the_run_and_stores_nothing(guard: Guard, release: Release) -> None:
    model = guard.model(ScriptedModel(list(REPLIES)))
    tools = guard.track(Tools())
    memory = Memory(BrokenStorage(":memory:"))

    async def body() -> None:
        try:
            chunks, result = await streamed(_agent(model, tools, memory), release)
            assert chunks[-1].type == "error"
            assert chunks[-1].payload["error"] == {"name": "OSError", "message": "disk full"}
            assert isinstance(result.error, OSError)
            assert result.text == ""
            assert await stored(memory) == []
        finally:
            await memory.storage.close()

    guard.run(body)


@STEP_START_LEAK
@pytest.mark.parametrize("release", RELEASES)
def test_a_block_on_the_step_start_chunk_closes_the_model_stream(
    guard: Guard, release: Release
) -> None:
    model = guard.model(ScriptedModel(list(REPLIES)))

    def block(**kwargs: Any) -> Any:
        if kwargs["part"].type == "step-start":
            kwargs["abort"]("not now")
        return kwargs["part"]

    async def body() -> None:
        agent = Agent(
            id="a",
            model=model,
            output_processors=[processor("b", "sync", {"process_output_stream": block})],
        )
        chunks = [c async for c in agent.stream("go", release=release)]
        assert chunks[-1].type == "tripwire"

    guard.run(body)
