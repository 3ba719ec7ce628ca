"""``Agent.generate_sync()`` (issue 11's friction list): ``generate()`` for scripts and
notebooks, the same result, the same errors, inside or outside a running event loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from procession import Agent, ProcessorError
from procession.testing import Reply, ScriptedModel

from .kit import processor


def test_it_returns_what_generate_returns() -> None:
    agent = Agent(id="a", model=ScriptedModel([Reply(text=["Hello ", "there."])]))
    result = agent.generate_sync("hi")
    assert result.text == "Hello there."
    assert result.finish_reason == "stop"


def test_a_tripwire_returns_and_an_error_raises() -> None:  # D12, D21
    def block(**kwargs: Any) -> None:
        kwargs["abort"]("no")

    def crash(**kwargs: Any) -> None:
        raise ValueError("bug")

    blocked = Agent(
        id="a",
        model=ScriptedModel(["x"]),
        output_processors=[processor("b", "sync", {"process_output_step": block})],
    ).generate_sync("hi")
    assert blocked.tripwire is not None
    assert blocked.text == ""
    failing = Agent(
        id="a",
        model=ScriptedModel(["x"]),
        output_processors=[processor("c", "sync", {"process_output_step": crash})],
    )
    with pytest.raises(ProcessorError, match="'c' in process_output_step"):
        failing.generate_sync("hi")


@pytest.mark.asyncio
async def test_inside_a_running_loop_it_runs_on_its_own_loop() -> None:
    """A notebook cell: the caller's loop is running, so the run gets a worker thread."""
    threads: list[str] = []

    def where(**kwargs: Any) -> None:
        threads.append(threading.current_thread().name)

    agent = Agent(
        id="a",
        model=ScriptedModel(["from a worker"]),
        input_processors=[processor("w", "sync", {"process_input": where})],
    )
    result = agent.generate_sync("hi")
    assert result.text == "from a worker"
    assert threads != [threading.current_thread().name]
    assert {t for t in asyncio.all_tasks() if t is not asyncio.current_task()} == set()
