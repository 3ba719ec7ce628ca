"""procession on Mastra's own benchmark workloads (a mirror of the oracle's ``bench.mjs``).

    python bench/procession_mastra.py            # full run, prints one JSON object
    python bench/procession_mastra.py --quick    # smaller sizes, for a smoke test

(a) ``stream()``: µs per streamed chunk for 0/1/5/10 pass-through ``process_output_stream``
    processors over 20,000 text-delta chunks;
(b) a 10-step tool loop with 0 vs 5 processors implementing ``process_input_step``,
    ``process_output_step`` and ``process_tool_result`` (``stream()`` and ``generate()``);
(c) 1,000 sequential ``generate()`` calls with 3 processors (and with 0);
(d) peak RSS of the process.

Same sizes, processor behaviour, warm-up (each configuration once), interleaving and medians as
bench.mjs (3 samples for (a) and (c), 7 for (b); a full collection before each timed sample).
One difference that cannot be mirrored: Mastra's ``generate()`` calls the model's non-streaming
``doGenerate``, so its processors see one text delta; procession's ``generate()`` drains the
stream, so in (c) they see the five scripted deltas.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from benchlib import emit, measure_interleaved
from procession import Agent, Chunk, MessageList, tool
from procession.models.base import ModelCallOptions, StreamResult
from procession.testing import Reply, ScriptedModel, ToolCallScript

QUICK = "--quick" in sys.argv
CHUNKS = 2000 if QUICK else 20000
REPS = 1 if QUICK else 3
LOOP_STEPS = 10
LOOP_RUNS = 5 if QUICK else 20
LOOP_REPS = 1 if QUICK else 7
GEN_CALLS = 100 if QUICK else 1000


class BenchModel(ScriptedModel):
    """``createMockModel({responseFor})``: the reply is a function of the call index, and
    nothing is recorded per call (``ScriptedModel`` keeps every call's options)."""

    def __init__(self, response_for: Callable[[int], Reply], *, interleave: bool = False) -> None:
        # interleave: the stream gives the event loop a turn before reading each text chunk,
        # as a network stream suspends on its socket read and then yields what it parsed, so
        # concurrent runs interleave chunk by chunk.
        super().__init__(model_id="mock-model", interleave=interleave)
        self.response_for = response_for
        self.count = 0

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        index = self.count
        self.count += 1
        reply = self.response_for(index)
        stream: AsyncIterator[Chunk] = self._stream(reply, index, options)
        return StreamResult(stream=stream, request={"body": {"callIndex": index}})


# ---------------------------------------------------------------------------
# (a) per-chunk cost of process_output_stream chains


class PassThrough:
    def __init__(self, i: int) -> None:
        self.id = f"pass-{i}"

    async def process_output_stream(self, *, part: Chunk, **_: Any) -> Chunk:
        return part


class PartOnly:
    """The same pass-through declaring only ``part``: procession then passes one argument
    (a hook with ``**_`` receives all ten, and its ``stream_parts`` list keeps every chunk)."""

    def __init__(self, i: int) -> None:
        self.id = f"part-{i}"

    async def process_output_stream(self, *, part: Chunk) -> Chunk:
        return part


def stream_chunks_runner(
    n_processors: int, processor: Callable[[int], Any] = PassThrough
) -> Callable[[], Any]:
    deltas = [f"t{i % 10} " for i in range(CHUNKS)]
    reply = Reply(text=deltas)
    model = BenchModel(lambda _: reply)
    agent = Agent(
        id="bench-stream",
        instructions="bench",
        model=model,
        output_processors=[processor(i) for i in range(n_processors)],
    )

    async def run() -> None:
        seen = 0
        async for c in agent.stream("go"):
            if c.type == "text-delta":
                seen += 1
        if seen != CHUNKS:
            raise AssertionError(f"expected {CHUNKS} text-delta chunks, got {seen}")

    return run


# ---------------------------------------------------------------------------
# (b) per-step cost in a tool loop


@tool
async def echo(i: int) -> dict[str, Any]:
    """echo"""
    return {"echoed": {"i": i}}


class StepProcessor:
    def __init__(self, i: int) -> None:
        self.id = f"step-{i}"

    async def process_input_step(self, **_: Any) -> None:
        return None

    async def process_output_step(self, *, message_list: MessageList, **_: Any) -> MessageList:
        return message_list

    async def process_tool_result(self, **_: Any) -> None:
        return None


def loop_reply(i: int) -> Reply:
    if i % LOOP_STEPS == LOOP_STEPS - 1:
        return Reply(text=["done"])
    return Reply(tool_calls=[ToolCallScript("echo", {"i": i}, f"call-{i}")])


def tool_loop_runner(n_processors: int, mode: str) -> Callable[[], Any]:
    procs = [StepProcessor(i) for i in range(n_processors)]
    agent = Agent(
        id="bench-loop",
        instructions="bench",
        model=BenchModel(loop_reply),
        tools=[echo],
        input_processors=procs or None,
        output_processors=procs or None,
    )

    async def run_once() -> None:
        steps = 0
        if mode == "generate":
            res = await agent.generate("loop", max_steps=LOOP_STEPS + 1)
            steps = len(res.steps)
        else:
            async for c in agent.stream("loop", max_steps=LOOP_STEPS + 1):
                if c.type == "step-finish":
                    steps += 1
        if steps != LOOP_STEPS:
            raise AssertionError(f"expected {LOOP_STEPS} steps, got {steps}")

    async def sample() -> None:  # one sample = LOOP_RUNS sequential 10-step runs
        for _ in range(LOOP_RUNS):
            await run_once()

    return sample


# ---------------------------------------------------------------------------
# (c) many short generate() calls


class InProc:
    id = "in"

    async def process_input(self, *, messages: list[Any], **_: Any) -> list[Any]:
        return messages

    async def process_input_step(self, **_: Any) -> None:
        return None


class StreamProc:
    id = "stream"

    async def process_output_stream(self, *, part: Chunk, **_: Any) -> Chunk:
        return part

    async def process_output_result(self, *, message_list: MessageList, **_: Any) -> MessageList:
        return message_list


class StepProc:
    id = "step"

    async def process_output_step(self, *, message_list: MessageList, **_: Any) -> MessageList:
        return message_list


def many_generates_runner(with_processors: bool) -> Callable[[], Any]:
    reply = Reply(text=["Hello", " there", ", how", " are", " you?"])
    agent = Agent(
        id="bench-gen",
        instructions="bench",
        model=BenchModel(lambda _: reply),
        input_processors=[InProc()] if with_processors else None,
        output_processors=[StreamProc(), StepProc()] if with_processors else None,
    )

    async def run() -> None:
        text = ""
        for _ in range(GEN_CALLS):
            text = (await agent.generate("hi")).text
        if text != "Hello there, how are you?":
            raise AssertionError(f"unexpected text {text!r}")

    return run


def fit_line(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares (slope, intercept)."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    num = sum((x - mx) * (y - my) for x, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    slope = num / den
    return slope, my - slope * mx


async def main() -> None:
    results: dict[str, Any] = {}
    t0 = time.perf_counter()

    counts = [0, 1, 5, 10]
    chunk_ms = await measure_interleaved([stream_chunks_runner(n) for n in counts], REPS)
    chunk: dict[str, dict[str, float]] = {}
    for n, ms in zip(counts, chunk_ms, strict=True):
        chunk[str(n)] = {"totalMs": round(ms, 1), "usPerChunk": round(ms * 1000 / CHUNKS, 3)}
    base = chunk["0"]["usPerChunk"]
    for n in (1, 5, 10):
        row = chunk[str(n)]
        row["overheadUsPerChunk"] = round(row["usPerChunk"] - base, 3)
        row["overheadUsPerProcessorPerChunk"] = round((row["usPerChunk"] - base) / n, 3)
    slope, intercept = fit_line([(n, chunk[str(n)]["usPerChunk"]) for n in (1, 5, 10)])
    results["a_streamChunks"] = {
        "chunks": CHUNKS,
        "byProcessorCount": chunk,
        "fit_1to10": {
            "marginalUsPerProcessorPerChunk": round(slope, 3),
            "fixedPipelineUsPerChunk": round(intercept - base, 3),
        },
    }

    # Not in bench.mjs: the same chain with processors declaring only `part`, timed after (a)
    # in its own interleaved set with its own 0-processor baseline.
    named_ms = await measure_interleaved([stream_chunks_runner(n, PartOnly) for n in counts], REPS)
    named: dict[str, dict[str, float]] = {}
    for n, ms in zip(counts, named_ms, strict=True):
        named[str(n)] = {"totalMs": round(ms, 1), "usPerChunk": round(ms * 1000 / CHUNKS, 3)}
    for n in (1, 5, 10):
        row = named[str(n)]
        row["overheadUsPerProcessorPerChunk"] = round(
            (row["usPerChunk"] - named["0"]["usPerChunk"]) / n, 3
        )
    results["a2_streamChunks_partOnly"] = {"chunks": CHUNKS, "byProcessorCount": named}

    loop: dict[str, Any] = {}
    for mode in ("stream", "generate"):
        base_ms, five_ms = await measure_interleaved(
            [tool_loop_runner(0, mode), tool_loop_runner(5, mode)], LOOP_REPS
        )
        per_run0 = base_ms / LOOP_RUNS
        per_run5 = five_ms / LOOP_RUNS
        loop[mode] = {
            "msPerRun_0": round(per_run0, 3),
            "msPerRun_5": round(per_run5, 3),
            "msPerStep_0": round(per_run0 / LOOP_STEPS, 4),
            "msPerStep_5": round(per_run5 / LOOP_STEPS, 4),
            "overheadMsPerStep": round((per_run5 - per_run0) / LOOP_STEPS, 4),
            "overheadUsPerProcessorPerStep": round(
                (per_run5 - per_run0) / LOOP_STEPS / 5 * 1000, 1
            ),
        }
    results["b_toolLoop"] = {
        "steps": LOOP_STEPS,
        "runsPerSample": LOOP_RUNS,
        "samples": LOOP_REPS,
        **loop,
    }

    gen3, gen0 = await measure_interleaved(
        [many_generates_runner(True), many_generates_runner(False)], REPS
    )
    results["c_generate"] = {
        "calls": GEN_CALLS,
        "totalMs_3processors": round(gen3, 1),
        "msPerCall_3processors": round(gen3 / GEN_CALLS, 4),
        "totalMs_0processors": round(gen0, 1),
        "msPerCall_0processors": round(gen0 / GEN_CALLS, 4),
        "overheadMsPerCall": round((gen3 - gen0) / GEN_CALLS, 4),
    }
    results["meta"] = {"reps": REPS, "quick": QUICK, "wallSeconds": 0.0}
    results["meta"]["wallSeconds"] = round(time.perf_counter() - t0, 1)
    emit(results)  # adds meta.peakRssMiB: (d) the peak RSS of this whole process


if __name__ == "__main__":
    asyncio.run(main())
