"""Function calls per run of the Mastra-workload benchmarks: the work, apart from the machine.

Run with ``python bench/count_calls.py`` (``PYTHONPATH=src:.`` from a checkout). Timings on a
shared or virtual machine swing between runs of the same code; the number of Python function
calls a workload makes (counted by ``cProfile``, after one warm-up run) does not, so it
compares two versions of the loop by the work they do: per 20,000-chunk stream with 0 and 10
processors, per 10-step tool loop with 0 and 5 processors, and per 1,000 ``generate()`` calls
with 3 processors.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p and Path(p).resolve() != Path(HERE)]  # bench/profile.py
import cProfile  # noqa: E402  (the standard library's, not bench/profile.py)

sys.path.insert(0, HERE)
import procession_mastra as workloads  # noqa: E402


def calls(run: Callable[[], Awaitable[object]]) -> int:
    """Function calls of one run of ``run`` (after a warm-up run).

    Summed over the profiler's own entries, one per function: ``pstats`` files them by file,
    line and name, and generated functions that share all three (every ``__init__`` a
    dataclass compiles is ``<string>``, line 2, ``__init__``) would count as one.
    """
    asyncio.run(run())  # type: ignore[arg-type]
    profile = cProfile.Profile()
    profile.enable()
    asyncio.run(run())  # type: ignore[arg-type]
    profile.disable()
    return sum(entry.callcount for entry in profile.getstats())


def main() -> None:
    """Print the call counts, one line each."""
    for count in (0, 10):
        print(f"stream, {count} processors: {calls(workloads.stream_chunks_runner(count))}")
    for count in (0, 5):
        print(
            f"tool loop, {count} processors: {calls(workloads.tool_loop_runner(count, 'stream'))}"
        )
    print(f"1,000 generate(), 3 processors: {calls(workloads.many_generates_runner(True))}")


if __name__ == "__main__":
    main()
