"""Profile the workloads where procession misses an issue-3 target.

Scenarios (the same shapes as ``procession_mastra.py`` / ``procession_concurrency.py``):

* ``stream10`` — ``stream()`` of 20,000 text deltas through 10 pass-through
  ``process_output_stream(self, *, part, **_)`` processors, repeated for ``--seconds``;
* ``stream10-part`` — the same with processors declaring only ``part`` (no ``**_``);
* ``stream10-sync`` — the same with plain ``def`` processors declaring only ``part``;
* ``call-shape`` — a micro-benchmark of one hook call the way ``RunBase._stream_call`` makes
  it (through a helper coroutine) against the same call inlined in the caller's loop;
* ``concurrency`` — 2,000 concurrent 200-chunk streams with 3 processors, the model yielding to
  the event loop before every chunk (as ``INTERLEAVE=1``).

Sampling with py-spy (``pip install py-spy``; the numbers in docs/benchmarks.md come from it)::

    py-spy record -r 1000 -f raw -o /tmp/stream10.txt -- .venv/bin/python bench/profile.py stream10
    .venv/bin/python bench/profile.py --summarize /tmp/stream10.txt

or in-process with pyinstrument (``pip install pyinstrument``)::

    .venv/bin/python bench/profile.py stream10 --pyinstrument
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import importlib
import inspect
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from procession import Agent, Chunk, MessageList
from procession.testing import Reply
from procession_mastra import BenchModel, PassThrough


class PartOnly:
    def __init__(self, i: int) -> None:
        self.id = f"part-{i}"

    async def process_output_stream(self, *, part: Chunk) -> Chunk:
        return part


class PartOnlySync:
    def __init__(self, i: int) -> None:
        self.id = f"sync-{i}"

    def process_output_stream(self, *, part: Chunk) -> Chunk:
        return part


def stream_runner(processor: Callable[[int], Any]) -> Callable[[], Awaitable[None]]:
    reply = Reply(text=[f"t{i % 10} " for i in range(20000)])
    agent = Agent(
        id="profile-stream",
        instructions="bench",
        model=BenchModel(lambda _: reply),
        output_processors=[processor(i) for i in range(10)],
    )

    async def run() -> None:
        async for _ in agent.stream("go"):
            pass

    return run


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


def concurrency_runner() -> Callable[[], Awaitable[None]]:
    reply = Reply(text=[f"t{i} " for i in range(200)])
    agent = Agent(
        id="profile-concurrency",
        instructions="You are a test agent.",
        model=BenchModel(lambda _: reply, interleave=True),
        input_processors=[In()],
        output_processors=[Stream(), Step()],
    )

    async def one() -> None:
        async for _ in agent.stream("hi"):
            pass

    async def run() -> None:
        await asyncio.gather(*(one() for _ in range(2000)))

    return run


async def _hook(*, part: Any) -> Any:
    return part


class _Hook:
    function = staticmethod(_hook)
    is_async = True

    def __init__(self) -> None:
        self.kw: dict[str, Any] = {"part": None}


async def _via_helper(hook: _Hook, chunk: Any) -> Any:
    kw = hook.kw
    kw["part"] = chunk
    try:
        result = hook.function(**kw)
        if hook.is_async or inspect.isawaitable(result):
            result = await result
    except Exception:
        raise
    return result


def call_shape_runner() -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        hook, n = _Hook(), 1_000_000
        chunk: Any = object()
        t0 = time.perf_counter()
        for _ in range(n):
            chunk = await _via_helper(hook, chunk)
        helper = (time.perf_counter() - t0) / n * 1e6
        t0 = time.perf_counter()
        for _ in range(n):
            kw = hook.kw
            kw["part"] = chunk
            try:
                result = hook.function(**kw)
                if hook.is_async or inspect.isawaitable(result):
                    result = await result
            except Exception:
                raise
            chunk = result
        inlined = (time.perf_counter() - t0) / n * 1e6
        print(f"one hook call: {helper:.3f} µs via a helper coroutine, {inlined:.3f} µs inlined")

    return run


SCENARIOS: dict[str, Callable[[], Callable[[], Awaitable[None]]]] = {
    "stream10": lambda: stream_runner(PassThrough),
    "stream10-part": lambda: stream_runner(PartOnly),
    "stream10-sync": lambda: stream_runner(PartOnlySync),
    "call-shape": call_shape_runner,
    "concurrency": concurrency_runner,
}


async def repeat(run: Callable[[], Awaitable[None]], seconds: float) -> int:
    await run()  # warm-up
    count = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        await run()
        count += 1
    return count


def summarize(path: Path, top: int = 25) -> None:
    """Self and inclusive sample counts per function from py-spy's ``-f raw`` output."""
    own: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        total += count
        frames = [f.rsplit(":", 1)[0] for f in stack.split(";")]
        own[frames[-1]] += count
        for frame in set(frames):
            inclusive[frame] += count
    print(f"{total} samples\n\nself time:")
    for frame, count in own.most_common(top):
        print(f"  {100 * count / total:5.1f}%  {frame}")
    print("\ninclusive time:")
    for frame, count in inclusive.most_common(top):
        print(f"  {100 * count / total:5.1f}%  {frame}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("scenario", nargs="?", choices=sorted(SCENARIOS))
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--pyinstrument", action="store_true")
    parser.add_argument("--summarize", type=Path, help="summarize a py-spy raw file and exit")
    args = parser.parse_args()
    if args.summarize:
        summarize(args.summarize)
        return
    if args.scenario is None:
        parser.error("a scenario is required")
    run = SCENARIOS[args.scenario]()
    if args.pyinstrument:
        profiler_class: Any = importlib.import_module("pyinstrument").Profiler
        profiler = profiler_class(async_mode="disabled")
        profiler.start()
        count = asyncio.run(repeat(run, args.seconds))
        profiler.stop()
        print(profiler.output_text(unicode=True, color=False, show_all=False))
    else:
        count = asyncio.run(repeat(run, args.seconds))
    per = args.seconds / count * 1000 if count else float("nan")
    print(f"{args.scenario}: {count} timed repetitions in {args.seconds} s ({per:.1f} ms each)")


if __name__ == "__main__":
    main()
