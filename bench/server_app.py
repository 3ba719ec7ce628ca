"""The agents ``bench/bench_server.py`` serves with ``procession serve bench/server_app.py``.

``bench`` streams ``BENCH_CHUNKS`` text deltas (7) through the three processors of Mastra's
side (``bench/mastra/server/server.mjs``): a pass-through ``process_input``,
``process_output_stream`` and ``process_output_step``. ``long`` is the same agent streaming
``BENCH_LONG_CHUNKS`` deltas (100,000), for the per-chunk cost. The model is the benchmarks'
scripted model, which keeps nothing per call (``ScriptedModel`` records every call's options).

``python bench/server_app.py inprocess N`` streams ``long``'s reply in process, with nothing
around it, and prints the CPU seconds it took as one JSON object: the baseline the server's
added cost per chunk is measured against.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

from procession import Agent
from procession.testing import Reply
from procession_concurrency import NamedIn, NamedStep, NamedStream
from procession_mastra import BenchModel

CHUNKS = int(os.environ.get("BENCH_CHUNKS", "7"))
LONG_CHUNKS = int(os.environ.get("BENCH_LONG_CHUNKS", "100000"))


def bench_agent(agent_id: str, chunks: int) -> Agent:
    """One agent streaming ``chunks`` text deltas through the three processors."""
    reply = Reply(text=[f"w{i % 10} " for i in range(chunks)])
    return Agent(
        id=agent_id,
        instructions="You are a test agent.",
        model=BenchModel(lambda _: reply),
        input_processors=[NamedIn()],
        output_processors=[NamedStream(), NamedStep()],
    )


bench = bench_agent("bench", CHUNKS)
long = bench_agent("long", LONG_CHUNKS)


async def in_process(runs: int) -> dict[str, float]:
    """CPU seconds of ``runs`` in-process streams of ``long``, after one warm-up stream."""
    agent = bench_agent("long", LONG_CHUNKS)

    async def once() -> int:
        seen = 0
        async for chunk in agent.stream("hi"):
            if chunk.type == "text-delta":
                seen += 1
        if seen != LONG_CHUNKS:
            raise AssertionError(f"expected {LONG_CHUNKS} text deltas, got {seen}")
        return seen

    await once()
    samples = []
    for _ in range(runs):
        t0 = time.process_time()
        await once()
        samples.append(time.process_time() - t0)
    return {"chunks": LONG_CHUNKS, "cpuSeconds": sorted(samples)[len(samples) // 2]}


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "inprocess":
        sys.stdout.write(json.dumps(asyncio.run(in_process(int(sys.argv[2])))) + "\n")
    else:
        sys.exit("usage: python bench/server_app.py inprocess RUNS")
