"""procession: 2,000 concurrent ``stream()`` runs of 200 chunks each, started together.

    python bench/procession_concurrency.py          # with 3 processors
    HOOKS=0 python bench/procession_concurrency.py  # without processors

The concurrency anchor of the research baselines: one agent; each run is one model step
streaming 200 text chunks (no tools); 20 sequential warm-up runs, a full collection, the
baseline RSS, then all runs started together in one event loop. Processors (as Mastra's row):
``process_input`` (pass-through), ``process_output_stream`` (pass-through) and
``process_output_step`` (returns the message list). Environment: C (runs, 2000), N (chunks,
200), WARM (20), CAP (seconds before the batch is cancelled, 120), HOOKS (1), INTERLEAVE (0).

The scripted model never suspends, so with ``INTERLEAVE=0`` a run may go from its first chunk
to its last without giving the event loop a turn, and few runs are in flight at once
(``maxInFlight`` says how many were). ``INTERLEAVE=1`` makes the model yield to the event loop
before every chunk, like a network stream: all 2,000 runs are then in flight together, which
is what the memory-per-run figure is meant to measure. ``NAMED=1`` uses the same three
processors declaring only the arguments they use (no ``**_``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from benchlib import emit, env_int, run_concurrent
from procession import Agent, Chunk, MessageList
from procession.testing import Reply
from procession_mastra import BenchModel

RUNS = env_int("C", 2000)
CHUNKS = env_int("N", 200)
WARM = env_int("WARM", 20)
CAP = env_int("CAP", 120)
HOOKS = env_int("HOOKS", 1)
INTERLEAVE = env_int("INTERLEAVE", 0)
NAMED = env_int("NAMED", 0)


class In:
    id = "in"

    async def process_input(self, *, messages: list[Any], **_: Any) -> list[Any]:
        return messages


class Stream:
    id = "stream"

    async def process_output_stream(self, *, part: Chunk, **_: Any) -> Chunk:
        return part


class Step:
    id = "step"

    async def process_output_step(self, *, message_list: MessageList, **_: Any) -> MessageList:
        return message_list


class NamedIn:
    id = "in"

    async def process_input(self, *, messages: list[Any]) -> list[Any]:
        return messages


class NamedStream:
    id = "stream"

    async def process_output_stream(self, *, part: Chunk) -> Chunk:
        return part


class NamedStep:
    id = "step"

    async def process_output_step(self, *, message_list: MessageList) -> MessageList:
        return message_list


async def main() -> None:
    reply = Reply(text=[f"t{i} " for i in range(CHUNKS)])
    agent = Agent(
        id="bench-concurrency",
        instructions="You are a test agent.",
        model=BenchModel(lambda _: reply, interleave=bool(INTERLEAVE)),
        input_processors=[(NamedIn if NAMED else In)()] if HOOKS else None,
        output_processors=[(NamedStream if NAMED else Stream)(), (NamedStep if NAMED else Step)()]
        if HOOKS
        else None,
    )

    async def one_run() -> None:
        seen = 0
        async for c in agent.stream("hi"):
            if c.type == "text-delta":
                seen += 1
        if seen != CHUNKS:
            raise AssertionError(f"expected {CHUNKS} text deltas, got {seen}")

    out = await run_concurrent(one_run, runs=RUNS, warmup=WARM, cap_seconds=CAP)
    emit(
        {
            "framework": "procession",
            "hooks": bool(HOOKS),
            "interleave": bool(INTERLEAVE),
            "namedArguments": bool(NAMED),
            "chunks": CHUNKS,
            **out,
        }
    )


if __name__ == "__main__":
    asyncio.run(main())
