"""Soak: 100,000 sequential runs of one agent, resident memory sampled: it must stay flat.

Run: ``.venv/bin/python bench/soak_runs.py [--runs 100000] [--every 5000] [--memory]``. One
``Agent`` (as a server holds it) answers run after run on one event loop: a tool step (a sync
and an async tool, a data chunk), then an answer; an input processor, an async stream processor
rewriting text, a judge asking for a retry every seventh run, alternating live and step
release. With ``--memory`` every run is stored in a SQLite file (in a temporary folder). Prints
RSS after the warm-up and at every sample, the growth after warm-up in MiB and per 10,000 runs,
and the tasks left at the end (want 0); writes ``bench/results/soak_runs.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlib import current_rss_mib  # noqa: E402
from procession import Agent, Chunk, Memory, ToolContext, tool  # noqa: E402
from procession.memory import SQLiteStorage  # noqa: E402
from procession.testing import Reply, ScriptedModel, ToolCallScript  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "soak_runs.json"
WARM_UP = 1_000


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


@tool
async def wait(n: int, context: ToolContext) -> int:
    """Wait a turn, report progress."""
    await asyncio.sleep(0)
    await context.writer.custom({"type": "data-progress", "data": n})
    return n


class Mark:
    id = "mark"

    def process_input(self, *, state: dict[str, Any], **_: Any) -> None:
        state["seen"] = True


class Upper:
    id = "upper"

    async def process_output_stream(self, *, part: Chunk, **_: Any) -> Chunk:
        if part.type == "text-delta":
            return part.copy(payload={**part.payload, "text": part.payload["text"].upper()})
        return part


class Judge:
    id = "judge"

    def __init__(self) -> None:
        self.runs = 0

    def process_output_step(
        self, *, text: str, tool_calls: list[Any], retry_count: int, abort: Any, **_: Any
    ) -> None:
        if not tool_calls and retry_count == 0:
            self.runs += 1
            if self.runs % 7 == 0:
                abort("again", retry=True)


def replies(n: int) -> list[Reply]:
    """The run's script: a tool step, an answer, and a spare answer for a retry."""
    answer = Reply(text=["run ", str(n), " is ", "done."])
    return [
        Reply(
            text=["Checking."],
            tool_calls=[ToolCallScript("echo", {"text": "x"}), ToolCallScript("wait", {"n": n})],
        ),
        answer,
        answer,
    ]


async def soak(runs: int, every: int, memory: Memory | None) -> dict[str, Any]:
    agent = Agent(
        id="soak",
        model=ScriptedModel(),
        tools=[echo, wait],
        input_processors=[Mark()],
        output_processors=[Upper(), Judge()],
        max_processor_retries=1,
        memory=memory,
    )
    samples: list[tuple[int, float]] = []
    warm = 0.0
    started = time.perf_counter()
    for n in range(1, runs + 1):
        options: dict[str, Any] = {"model": ScriptedModel(replies(n))}
        if memory is not None:
            options.update(thread_id=f"t{n % 100}", resource_id="soak")
        stream = agent.stream("go", release="live" if n % 2 else "step", **options)
        async for _ in stream:
            pass
        result = await stream.result()
        assert result.error is None, result.error
        assert result.text.endswith("DONE."), result.text
        if n == WARM_UP:
            gc.collect()
            warm = current_rss_mib()
            samples.append((n, warm))
        elif n % every == 0:
            gc.collect()
            samples.append((n, current_rss_mib()))
            print(f"  {n:,} runs: {samples[-1][1]:.1f} MiB")
    seconds = time.perf_counter() - started
    for _ in range(5):
        await asyncio.sleep(0)
    left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
    end = samples[-1][1]
    per_10k = (end - warm) / max(1, (runs - WARM_UP)) * 10_000
    return {
        "runs": runs,
        "memory": memory is not None,
        "rssAfterWarmUpMiB": round(warm, 1),
        "rssEndMiB": round(end, 1),
        "rssMaxMiB": round(max(s[1] for s in samples), 1),
        "growthAfterWarmUpMiB": round(end - warm, 2),
        "growthPer10kRunsMiB": round(per_10k, 3),
        "samples": [[n, round(r, 1)] for n, r in samples],
        "tasksLeft": len(left),
        "runsPerSecond": round(runs / seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--every", type=int, default=5_000)
    parser.add_argument("--memory", action="store_true", help="store every run in SQLite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        memory = Memory(SQLiteStorage(Path(folder) / "soak.db")) if args.memory else None

        async def go() -> dict[str, Any]:
            try:
                return await soak(args.runs, args.every, memory)
            finally:
                if memory is not None:
                    await memory.storage.close()

        out = asyncio.run(go())
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    name = RESULTS.with_name("soak_runs_memory.json") if args.memory else RESULTS
    name.write_text(json.dumps(out, indent=2))
    print(json.dumps({k: v for k, v in out.items() if k != "samples"}, indent=2))


if __name__ == "__main__":
    main()
