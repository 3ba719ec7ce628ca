"""D28 (amended): a hook that declares ``processor_index`` gets this call's position; nothing
per call is written onto the shared processor object, whose ``processor_index`` is its place
in the agent's lane when it sits in exactly one lane of one agent, else ``None``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from procession import Agent, Processor
from procession.testing import Reply, ScriptedModel


class Indexed(Processor):
    """Records the index each call received."""

    def __init__(self, processor_id: str) -> None:
        self.id = processor_id
        self.got: list[tuple[str, int]] = []

    async def process_output_stream(
        self, *, part: Any, processor_index: int, tracing_context: Any, **_: Any
    ) -> Any:
        if part.type == "text-delta":
            self.got.append((tracing_context.run_id, processor_index))
            await asyncio.sleep(0)  # let concurrent runs interleave
        return part


class Other(Processor):
    id = "other"

    def process_output_stream(self, *, part: Any, **_: Any) -> Any:
        return part


def _model(n: int = 1) -> ScriptedModel:
    return ScriptedModel([Reply(text=["a", "b", "c"])] * n, interleave=True)


@pytest.mark.asyncio
async def test_one_lane_of_one_agent_sets_the_attribute_once() -> None:  # D28
    shared = Indexed("shared")
    agent = Agent(id="a", model=_model(2), output_processors=[Other(), shared])
    assert shared.processor_index == 1
    await agent.generate("x", output_processors=[shared])  # at 0 for this call only
    assert shared.processor_index == 1
    assert {index for _, index in shared.got} == {0}


@pytest.mark.asyncio
async def test_a_shared_object_has_no_single_index() -> None:  # D28
    shared = Indexed("shared")
    Agent(id="a", model=_model(), output_processors=[shared])
    Agent(id="b", model=_model(), output_processors=[Other(), shared])
    assert shared.processor_index is None


@pytest.mark.asyncio
async def test_two_lanes_of_one_agent_give_none() -> None:  # D28
    class Both(Processor):
        id = "both"

        def process_input(self, **_: Any) -> None:
            return None

        def process_output_step(self, **_: Any) -> None:
            return None

    both = Both()
    Agent(id="a", model=_model(), input_processors=[both], output_processors=[Other(), both])
    assert both.processor_index is None


@pytest.mark.asyncio
async def test_concurrent_runs_each_see_their_own_position() -> None:  # D28
    shared = Indexed("shared")
    agent = Agent(id="a", model=_model(8))
    lanes: list[list[Any]] = [[shared], [Other(), shared], [Other(), Other(), shared]] * 2
    lanes += [[shared]] * 2

    async def one(lane: list[Any]) -> tuple[str, int]:
        result = await agent.generate("x", output_processors=lane)
        return result.run_id, len(lane) - 1

    expected = dict(await asyncio.gather(*(one(lane) for lane in lanes)))
    assert len(expected) == len(lanes)
    for run_id, index in shared.got:
        assert index == expected[run_id]
    assert len(shared.got) == 3 * len(lanes)
    assert shared.processor_index is None  # never written by a call
