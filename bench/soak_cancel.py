"""Soak: cancel a tool-using run with memory after every number of event-loop turns.

Run: ``.venv/bin/python bench/soak_cancel.py [--rounds 5]``. Unlike the checkpoint test
(``tests/reliability/test_cancellation.py``), which interrupts at every await of processors,
tools and the model, this counts raw event-loop turns, so the interruptions also land inside
storage reads and the commit (SQLite in its thread): timing varies, hence several rounds. For
each round, release mode and way of interrupting (the caller's task cancelled, the abort signal
fired) the run is cut after 0, 1, 2, ... turns until it completes first. Prints the runs
interrupted, turns stored whole although interrupted (the cut landed in the commit), half-
written turns, and leaks (want 0; a model stream left open is the known step-start gap);
writes ``bench/results/soak_cancel.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.reliability.harness import (  # noqa: E402
    Guard,
    Release,
    Tools,
    sqlite_memory,
    stored,
    tool_replies,
)

from procession import AbortSignal, Agent  # noqa: E402
from procession.testing import ScriptedModel  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "soak_cancel.json"
MAX_TURNS = 2_000


class Slow:
    """Every hook async, yielding to the loop once."""

    id = "slow"

    async def _turn(self, **kwargs: Any) -> Any:
        await asyncio.sleep(0)
        return kwargs.get("part")

    process_input = process_input_step = process_llm_request = process_llm_response = _turn
    process_output_stream = process_output_step = process_tool_result = _turn
    process_output_result = _turn


async def cut(guard: Guard, release: Release, turns: int | None, how: str) -> tuple[bool, int]:
    """One run cut after ``turns`` loop turns; returns (finished, messages stored)."""
    tools = guard.track(Tools())
    memory = sqlite_memory()
    signal = AbortSignal()
    slow = Slow()
    agent = Agent(
        id="a",
        model=guard.model(ScriptedModel(tool_replies(3), interleave=True)),
        tools=tools.all(),
        memory=memory,
        input_processors=[slow],
        output_processors=[slow],
    )
    seen: list[str] = []

    async def consume() -> None:
        stream = agent.stream(
            "go", release=release, thread_id="t", resource_id="r", abort_signal=signal
        )
        async for chunk in stream:
            seen.append(chunk.type)

    task = asyncio.ensure_future(consume())
    try:
        for _ in range(MAX_TURNS if turns is None else turns):
            if task.done():
                break
            await asyncio.sleep(0)
        if turns is not None and not task.done():
            if how == "cancel":
                task.cancel()
            else:
                signal.abort("stop")
        await asyncio.gather(task, return_exceptions=True)
        return "finish" in seen, len(await stored(memory))
    finally:
        await memory.storage.close()


def sweep(tally: Counter[str], release: Release, how: str) -> None:
    guard = Guard()
    finished, whole = guard.run(lambda: cut(guard, release, None, how))
    assert finished
    for turns in range(MAX_TURNS):
        guard = Guard()
        try:
            finished, kept = guard.run(lambda g=guard, t=turns: cut(g, release, t, how))  # type: ignore[misc]
        except AssertionError as error:
            key = "model stream left open" if "model streams" in str(error) else "other leak"
            tally[f"leaks: {key}"] += 1
            continue
        if finished:
            return
        tally["interrupted"] += 1
        tally["stored whole though interrupted"] += kept == whole
        tally["half-written"] += kept not in (0, whole)
    raise AssertionError("the run never finished")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    tally: Counter[str] = Counter({"interrupted": 0, "half-written": 0})
    started = time.perf_counter()
    releases: tuple[Release, ...] = ("live", "step")
    for round_ in range(args.rounds):
        for release in releases:
            for how in ("cancel", "signal"):
                sweep(tally, release, how)
        print(f"  round {round_ + 1}: {dict(tally)}")
    out = {"rounds": args.rounds, **dict(tally), "seconds": round(time.perf_counter() - started)}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
