"""Pipeline invariants, as properties over generated scripts and lanes (hypothesis, pinned
example counts; ``bench/soak_properties.py`` runs the same checks over a million chunks).

- Every chunk passes every stream processor once, in order: each processor receives exactly
  what the one before it passed on; the first receives every model chunk (a tool step's
  ``finish`` excepted: only a final step's passes the lane) and the loop's own chunks.
- A dropped chunk is gone everywhere: client, result, messages, store and the next prompt.
- State never crosses runs, even when runs of one agent overlap.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from procession import Agent
from procession.testing import FunctionModel, Reply, ScriptedModel, ToolCallScript

from .harness import (
    BEHAVIOURS,
    Guard,
    LaneProbe,
    RecordingModel,
    Release,
    Tools,
    check_lane,
    sqlite_memory,
    stored,
    texts_of,
)


def examples(count: int) -> settings:
    """A pinned example count; the guard fixture is per test, shared by its examples."""
    return settings(max_examples=count, suppress_health_check=[HealthCheck.function_scoped_fixture])


texts = st.text(alphabet="ab ~", min_size=1, max_size=4)


@dataclass
class Script:
    """A generated run: its steps' replies (tool steps, then a text answer)."""

    replies: list[Reply]

    @property
    def steps(self) -> int:
        return len(self.replies)


@st.composite
def scripts(draw: st.DrawFn) -> Script:
    """One to three steps: tool steps calling ``echo``/``wait``, then a final text answer."""
    tool_steps = draw(st.integers(0, 2))
    replies = []
    for n in range(tool_steps):
        calls = draw(st.lists(st.sampled_from(["echo", "wait"]), min_size=1, max_size=2))
        replies.append(
            Reply(
                text=draw(st.lists(texts, max_size=3)),
                reasoning=draw(st.lists(st.sampled_from(["hm", "so"]), max_size=2)),
                tool_calls=[
                    ToolCallScript(name, {"text": "x"} if name == "echo" else {"n": n}, f"c{n}{i}")
                    for i, name in enumerate(calls)
                ],
            )
        )
    replies.append(Reply(text=draw(st.lists(texts, min_size=1, max_size=5))))
    return Script(replies)


lanes = st.lists(
    st.tuples(st.sampled_from(sorted(BEHAVIOURS)), st.sampled_from(["sync", "async"])),
    min_size=1,
    max_size=4,
)


def _probes(lane: list[tuple[str, str]]) -> list[LaneProbe]:
    return [LaneProbe(f"p{i}", behaviour, mode) for i, (behaviour, mode) in enumerate(lane)]


@examples(150)
@given(script=scripts(), lane=lanes, release=st.sampled_from(["live", "step"]))
def test_every_chunk_passes_every_stream_processor_once_in_order(
    guard: Guard, script: Script, lane: list[tuple[str, str]], release: Release
) -> None:
    probes = _probes(lane)
    recording = RecordingModel(script.replies)
    tools = guard.track(Tools())

    async def body() -> None:
        agent = Agent(
            id="a",
            model=recording.tracked(guard),
            tools=tools.all(),
            output_processors=probes,
            max_steps=script.steps,
        )
        stream = agent.stream("go", release=release)
        client = [c async for c in stream]
        assert client[-1].type == "finish", client[-1]
        check_lane(probes, recording.chunks, client, step=release == "step")
        result = await stream.result()
        shown = "".join(c.payload["text"] for c in probes[-1].out if c.type == "text-delta")
        assert result.text == shown == texts_of(result.messages)

    guard.run(body)


@examples(60)
@given(
    script=scripts(), lane=lanes, at=st.integers(0, 4), release=st.sampled_from(["live", "step"])
)
def test_a_dropped_chunk_is_gone_everywhere(
    guard: Guard, script: Script, lane: list[tuple[str, str]], at: int, release: Release
) -> None:
    probes = _probes(lane)
    dropper = LaneProbe("dropper", "drop", "sync")
    probes.insert(min(at, len(probes)), dropper)
    model = guard.model(ScriptedModel(script.replies))
    tools = guard.track(Tools())
    memory = sqlite_memory()

    async def body() -> None:
        try:
            agent = Agent(
                id="a",
                model=model,
                tools=tools.all(),
                output_processors=probes,
                max_steps=script.steps,
                memory=memory,
            )
            stream = agent.stream("go", release=release, thread_id="t", resource_id="r")
            client = [c async for c in stream]
            result = await stream.result()
            assert result.error is None, result.error
            later = probes[probes.index(dropper) + 1 :]
            for probe in later:
                assert all("~" not in c.payload.get("text", "") for c in probe.seen)
            assert all("~" not in str(c.to_dict()) for c in client)
            assert "~" not in result.text
            assert "~" not in texts_of(result.messages)
            assert "~" not in texts_of(await stored(memory))
            for call in model.calls[1:]:  # later steps' prompts hold the earlier steps' text
                assert "~" not in str(call.prompt)
        finally:
            await memory.storage.close()

    guard.run(body)


@examples(40)
@given(runs=st.integers(2, 6), steps=st.integers(1, 3), release=st.sampled_from(["live", "step"]))
def test_state_never_crosses_runs(guard: Guard, runs: int, steps: int, release: Release) -> None:
    seen_states: dict[str, dict[int, dict[str, Any]]] = {}  # run -> the states it got, by id
    problems: list[str] = []

    def mark(**kwargs: Any) -> Any:
        state, run_id = kwargs["state"], kwargs["tracing_context"].run_id
        owner = state.setdefault("run", run_id)
        if owner != run_id:
            problems.append(f"{run_id} got the state of {owner}")
        state["calls"] = state.get("calls", 0) + 1
        seen_states.setdefault(run_id, {})[id(state)] = state  # kept alive: ids stay unique
        return kwargs.get("part")

    class Marker:
        """Marks its state from every hook it has."""

        id = "marker"

        async def process_input(self, **kwargs: Any) -> None:
            mark(**kwargs)

        def process_input_step(self, **kwargs: Any) -> None:
            mark(**kwargs)

        async def process_output_stream(self, **kwargs: Any) -> Any:
            await asyncio.sleep(0)
            return mark(**kwargs)

        def process_output_step(self, **kwargs: Any) -> None:
            mark(**kwargs)

        async def process_tool_result(self, **kwargs: Any) -> None:
            mark(**kwargs)

        def process_output_result(self, **kwargs: Any) -> None:
            mark(**kwargs)

    def reply(options: Any) -> Reply:
        tool_results = sum(1 for m in options.prompt if m["role"] == "tool")
        if tool_results < steps - 1:
            return Reply(text=["t"], tool_calls=[ToolCallScript("wait", {"n": tool_results})])
        return Reply(text=["done"])

    marker = Marker()
    tools = guard.track(Tools())
    model = guard.model(FunctionModel(reply))

    async def body() -> None:
        agent = Agent(
            id="a",
            model=model,
            tools=tools.all(),
            input_processors=[marker],
            output_processors=[marker],
            max_steps=steps,
        )
        results = await asyncio.gather(
            *(agent.generate(f"run {n}", release=release) for n in range(runs))
        )
        assert all(r.text.endswith("done") for r in results)
        again = await agent.generate("one more")
        assert len(seen_states[again.run_id]) == 1

    guard.run(body)
    assert problems == []
    assert all(len(ids) == 1 for ids in seen_states.values())  # one state per run (D15)
    all_ids = [i for states in seen_states.values() for i in states]
    assert len(all_ids) == len(set(all_ids)) == runs + 1  # never shared between runs
