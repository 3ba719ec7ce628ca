"""Timing helpers shared by every benchmark script (standard library only).

The peer scripts run inside their own virtual environments (``bench/.venvs/<peer>``), where
procession is not installed, so this module must not import anything outside the standard
library. Every script prints exactly one JSON object on stdout; ``bench/run.py`` collects them.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import platform
import resource
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

__all__ = [
    "GcTimer",
    "current_rss_mib",
    "emit",
    "env_int",
    "measure_interleaved",
    "median",
    "peak_rss_mib",
    "rotated_rounds",
    "run_concurrent",
    "shared_workload",
    "time_async",
]

AsyncFn = Callable[[], Awaitable[Any]]


def median(xs: Sequence[float]) -> float:
    """The median (mean of the two middle values for an even count), as bench.mjs does."""
    return float(statistics.median(xs))


def env_int(name: str, default: int) -> int:
    """An integer from the environment, or the default."""
    value = os.environ.get(name)
    return int(value) if value else default


def peak_rss_mib() -> float:
    """The process's high-water resident set size (``ru_maxrss``, KiB on Linux), in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mib() -> float:
    """The current resident set size from ``/proc/self/statm``, in MiB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1048576


async def time_async(fn: AsyncFn) -> float:
    """Milliseconds one call of ``fn`` takes, after a full collection outside the timed region
    (bench.mjs calls ``gc()`` the same way)."""
    gc.collect()
    t0 = time.perf_counter()
    await fn()
    return (time.perf_counter() - t0) * 1000


async def measure_interleaved(fns: Sequence[AsyncFn], reps: int) -> list[float]:
    """bench.mjs's ``measureInterleaved``: warm every variant up once, then time them
    interleaved (A, B, C, A, B, C, ...) ``reps`` times; the median milliseconds of each."""
    for fn in fns:
        await fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(reps):
        for i, fn in enumerate(fns):
            times[i].append(await time_async(fn))
    return [median(t) for t in times]


async def rotated_rounds(
    configs: dict[str, AsyncFn], warmup: int, rounds: int
) -> dict[str, list[float]]:
    """The peer-workload protocol of the research baselines: ``warmup`` runs per configuration,
    then ``rounds`` rounds each running every configuration once in rotated order, with a full
    collection before each timed run. Returns the milliseconds of every timed run."""
    names = list(configs)
    for name in names:
        for _ in range(warmup):
            await configs[name]()
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            times[name].append(await time_async(configs[name]))
    return times


class GcTimer:
    """Time spent in the cyclic garbage collector, from ``gc.callbacks``."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = [0, 0, 0]
        self._start = 0.0

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._start
            self.collections[info["generation"]] += 1

    def __enter__(self) -> GcTimer:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)


async def run_concurrent(
    one_run: AsyncFn,
    *,
    runs: int,
    warmup: int,
    cap_seconds: float,
) -> dict[str, Any]:
    """The concurrency anchor of the research baselines: ``warmup`` sequential runs, a full
    collection, the baseline (current) RSS, then ``runs`` runs started together with
    ``asyncio.gather``-like semantics. Stops (cancels what is left) after ``cap_seconds``.

    Reports wall time, runs finished, peak RSS, (peak - baseline) / runs and the time the
    collector spent during the batch."""
    for _ in range(warmup):
        await one_run()
    gc.collect()
    baseline = current_rss_mib()
    peak_before = peak_rss_mib()
    finished: list[float] = []
    in_flight = [0, 0]  # now, maximum

    async def tracked() -> None:
        in_flight[0] += 1
        in_flight[1] = max(in_flight[1], in_flight[0])
        try:
            await one_run()
        finally:
            in_flight[0] -= 1
        finished.append(time.perf_counter())

    with GcTimer() as gct:
        t0 = time.perf_counter()
        tasks = [asyncio.ensure_future(tracked()) for _ in range(runs)]
        done, pending = await asyncio.wait(tasks, timeout=cap_seconds)
        wall = time.perf_counter() - t0
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
    failed = [t for t in done if not t.cancelled() and t.exception() is not None]
    if failed:
        raise RuntimeError(f"{len(failed)} runs failed") from failed[0].exception()
    peak = peak_rss_mib()
    out: dict[str, Any] = {
        "runs": runs,
        "finished": len(finished),
        "maxInFlight": in_flight[1],
        "capSeconds": cap_seconds,
        "capped": bool(pending),
        "wallSeconds": round(wall, 3),
        "runsPerSecond": round(len(finished) / wall, 1) if wall else None,
        "baselineRssMiB": round(baseline, 1),
        "peakRssMiB": round(peak, 1),
        "peakRssBeforeBatchMiB": round(peak_before, 1),
        "kibPerRun": round((peak - baseline) * 1024 / runs, 1),
        "gcSeconds": round(gct.seconds, 3),
        "gcCollections": gct.collections,
    }
    if finished:
        out["firstFinishedSeconds"] = round(finished[0] - t0, 3)
        out["lastFinishedSeconds"] = round(finished[-1] - t0, 3)
    return out


def meta() -> dict[str, Any]:
    """The interpreter and machine, for the JSON output."""
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "cores": os.cpu_count(),
    }


def emit(results: dict[str, Any]) -> None:
    """Print the results as one JSON object on stdout."""
    results.setdefault("meta", {}).update(meta())
    results["meta"]["peakRssMiB"] = round(peak_rss_mib(), 1)
    sys.stdout.write(json.dumps(results, indent=2) + "\n")
    sys.stdout.flush()


Runner = Callable[[bool], tuple[AsyncFn, dict[str, Any]]]
"""``runner(hooks)`` gives one run of the shared workload and a dict its runs fill with
``events`` and ``hookCalls``."""


async def shared_workload(
    framework: str,
    runner: Runner,
    *,
    n: int,
    k: int,
    rounds: int,
    warmups: int,
    missing_hooks: Sequence[str] = (),
) -> None:
    """Time the shared workload bare and with hooks (rotated rounds) and emit one report."""
    bare, bare_info = runner(False)
    hooked, hooked_info = runner(True)
    rss_setup = peak_rss_mib()
    times = await rotated_rounds({"bare": bare, "hooks": hooked}, warmups, rounds)
    paired = [h - b for b, h in zip(times["bare"], times["hooks"], strict=True)]
    out: dict[str, Any] = {"framework": framework, "N": n, "K": k, "R": rounds, "W": warmups}
    for name, info in (("bare", bare_info), ("hooks", hooked_info)):
        ms = median(times[name])
        out[name] = {
            "msPerRun": round(ms, 3),
            "usPerChunk": round(ms * 1000 / n, 2),
            "min": round(min(times[name]), 3),
            "max": round(max(times[name]), 3),
            "events": info["events"],
            "hookCalls": info["hookCalls"] if name == "hooks" else None,
        }
    out["hookOverheadMs"] = round(out["hooks"]["msPerRun"] - out["bare"]["msPerRun"], 3)
    out["hookOverheadPairedMs"] = round(median(paired), 3)
    out["rssAfterSetupMiB"] = round(rss_setup, 1)
    out["missingHooks"] = list(missing_hooks)
    emit(out)
