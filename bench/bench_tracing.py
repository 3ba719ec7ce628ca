"""What tracing costs: µs per span on the caller's thread, by tracer setup.

    .venv/bin/python bench/bench_tracing.py            # about a minute
    .venv/bin/python bench/bench_tracing.py --quick    # a smoke test

Each sample opens and ends ``SPANS`` spans shaped like the loop's processor hook spans (seven
attributes at start, the outcome set before the end, a child of an open step span), and the
setups take turns sample by sample (``RUNS`` interleaved samples each, medians reported):

* ``noop``: no tracer provider configured: the OpenTelemetry API's no-op tracer;
* ``sdk-drop``: the SDK's ``TracerProvider`` with a ``BatchSpanProcessor`` whose exporter drops
  every batch: the cost of recording a span (the goal is at most 25 µs per span);
* ``sdk-store``: the same with the SQLite trace store as the exporter, so the processor's thread
  writes every span to a file while the caller keeps opening spans (what a server pays).

Each is measured twice: spans opened with an explicit parent context (``start_span``) and as
the current span (``start_as_current_span``, which also attaches and detaches the context).
Every exported span is counted, so a setup that dropped spans from a full queue is reported.

Then the same setups on real runs: the shared peer workload (``procession_workload.py``: 5
tool steps, then 200 streamed chunks, one processor on four hooks), traced through
``use_tracer_provider`` (``off`` is no provider at all, as the loop sees it by default),
``RUN_ROUNDS`` rotated rounds after warm-up. The spans a run emits are counted, so the cost
per span in a real run is (traced - off) / spans. ``sdk-sampled-out`` is the SDK with every
span sampled out: what the loop's tracing costs when the SDK records nothing.

Last, how fast each trace store writes: spans per second in batches of 512 (the batch span
processor's size), on a SQLite file and on PostgreSQL (``PROCESSION_TEST_POSTGRES_DSN`` or
``.pgdata/dsn``, skipped without one); a burst faster than that fills the processor's queue
(2,048 spans) and the SDK drops spans with a warning.
Prints one JSON object and writes ``bench/results/tracing.json``.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from opentelemetry.util.types import AttributeValue

import procession_workload as workload
from benchlib import emit, median
from procession.tracing import (
    PostgresTraceStore,
    SQLiteTraceStore,
    TraceStore,
    use_tracer_provider,
)
from procession.tracing import attributes as attr

QUICK = "--quick" in sys.argv
SPANS = 2_000 if QUICK else 20_000
RUNS = 2 if QUICK else 7
RUN_ROUNDS = 3 if QUICK else 15
RUNS_PER_SAMPLE = 5 if QUICK else 20
RESULTS = Path(__file__).resolve().parent / "results" / "tracing.json"
DSN_FILE = Path(__file__).resolve().parents[1] / ".pgdata" / "dsn"


class DropExporter(SpanExporter):
    """Counts and drops every batch."""

    def __init__(self) -> None:
        self.count = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.count += len(spans)
        return SpanExportResult.SUCCESS


class CountingStore(SQLiteTraceStore):
    """The SQLite trace store, counting what it wrote."""

    count = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = super().export(spans)
        if result is SpanExportResult.SUCCESS:
            self.count += len(spans)
        return result


HOOK: dict[str, AttributeValue] = {
    attr.PROCESSOR_ID: "redactor",
    attr.PROCESSOR_NAME: "Redactor",
    attr.PROCESSOR_DESCRIPTION: "Redacts card numbers as they stream",
    attr.PROCESSOR_INDEX: 0,
    attr.HOOK: "process_output_step",
    attr.HOOK_DATA_CHUNKS: 0,
}


class Clock:
    """Wall and process CPU time of a stretch of code. The machine is shared: CPU time (every
    thread of this process, the span processor's included) leaves out the waits for a core
    that other processes cause, so it is the steadier of the two."""

    __slots__ = ("cpu", "wall")

    def __init__(self) -> None:
        gc.collect()
        self.wall = time.perf_counter()
        self.cpu = time.process_time()

    def stop(self, count: int) -> tuple[float, float]:
        """µs per item (wall, cpu) for ``count`` items."""
        wall, cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu
        return wall / count * 1e6, cpu / count * 1e6


def child_spans(tracer: trace.Tracer, count: int) -> tuple[float, float]:
    """µs (wall, cpu) per hook span opened and ended under one step span, by explicit context."""
    step = tracer.start_span("step 0", attributes={attr.STEP_NUMBER: 0, attr.STEP_ATTEMPT: 0})
    context = trace.set_span_in_context(step)
    clock = Clock()
    for _ in range(count):
        span = tracer.start_span("process_output_step redactor", context, attributes=HOOK)
        span.set_attribute(attr.HOOK_OUTCOME, "kept")
        span.end()
    elapsed = clock.stop(count)
    step.end()
    return elapsed


def current_spans(tracer: trace.Tracer, count: int) -> tuple[float, float]:
    """The same, each span made current while it is open (context attached and detached)."""
    with tracer.start_as_current_span("step 0", attributes={attr.STEP_NUMBER: 0}):
        clock = Clock()
        for _ in range(count):
            with tracer.start_as_current_span(
                "process_output_step redactor", attributes=HOOK
            ) as span:
                span.set_attribute(attr.HOOK_OUTCOME, "kept")
        return clock.stop(count)


def _medians(samples: list[tuple[float, float]]) -> dict[str, Any]:
    return {
        "wall": round(median([w for w, _ in samples]), 3),
        "cpu": round(median([c for _, c in samples]), 3),
        "wall_samples": [round(w, 3) for w, _ in samples],
    }


def setups(folder: Path) -> dict[str, tuple[trace.Tracer, TracerProvider | None, Any]]:
    """name -> (tracer, its SDK provider, the exporter counting what was exported)."""
    drop = DropExporter()
    sdk_drop = TracerProvider()
    sdk_drop.add_span_processor(BatchSpanProcessor(drop))
    store = CountingStore(folder / "traces.db")
    sdk_store = TracerProvider()
    sdk_store.add_span_processor(BatchSpanProcessor(store))
    return {
        "noop": (trace.get_tracer(attr.TRACER_NAME), None, None),
        "sdk-drop": (sdk_drop.get_tracer(attr.TRACER_NAME), sdk_drop, drop),
        "sdk-store": (sdk_store.get_tracer(attr.TRACER_NAME), sdk_store, store),
    }


def measure(folder: Path) -> dict[str, Any]:
    """Interleaved samples of every setup and way; µs per span (medians) and spans exported."""
    chosen = setups(folder)
    ways = {"child": child_spans, "current": current_spans}
    samples: dict[str, list[tuple[float, float]]] = {f"{s}/{w}": [] for s in chosen for w in ways}
    for tracer, _, _ in chosen.values():  # warm up every setup once
        child_spans(tracer, SPANS // 10)
    opened = SPANS // 10 + 1
    for _ in range(RUNS):
        for way, run in ways.items():
            for name, (tracer, _, _) in chosen.items():
                samples[f"{name}/{way}"].append(run(tracer, SPANS))
            opened += SPANS + 1
    out: dict[str, Any] = {key: _medians(values) for key, values in samples.items()}
    for name, (_, provider, exporter) in chosen.items():
        if provider is not None:
            provider.shutdown()  # exports what is still queued
            out[f"{name}/exported_of_opened"] = [exporter.count, opened]
    for way in ways:
        out[f"sdk-drop-over-noop/{way}"] = {
            clock: round(out[f"sdk-drop/{way}"][clock] - out[f"noop/{way}"][clock], 3)
            for clock in ("wall", "cpu")
        }
    return out


async def _runs(run: Callable[[], Awaitable[Any]], provider: TracerProvider | None) -> Any:
    use_tracer_provider(provider)
    try:
        clock = Clock()
        for _ in range(RUNS_PER_SAMPLE):
            await run()
        return clock.stop(RUNS_PER_SAMPLE)
    finally:
        use_tracer_provider(None)


async def measure_runs(folder: Path) -> dict[str, Any]:
    """The shared workload, untraced and traced: µs per run and per span (medians)."""
    run, _ = workload.runner(True)
    chosen = setups(folder)
    providers = {"off" if p is None else name: p for name, (_, p, _) in chosen.items()}
    providers["sdk-sampled-out"] = TracerProvider(sampler=ALWAYS_OFF)  # the loop's own work
    for provider in providers.values():  # warm-up
        await _runs(run, provider)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in providers}
    names = list(providers)
    for r in range(RUN_ROUNDS):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            samples[name].append(await _runs(run, providers[name]))
    drop = chosen["sdk-drop"]
    assert drop[1] is not None
    drop[1].force_flush()
    spans = drop[2].count / ((1 + RUN_ROUNDS) * RUNS_PER_SAMPLE)
    out: dict[str, Any] = {"spans_per_run": spans, "rounds": RUN_ROUNDS}
    for name, values in samples.items():
        out[f"{name}/us_per_run"] = _medians(values)
    for name in ("sdk-drop", "sdk-store", "sdk-sampled-out"):
        out[f"{name}/us_per_span_in_runs"] = {
            clock: round(
                (out[f"{name}/us_per_run"][clock] - out["off/us_per_run"][clock]) / spans, 2
            )
            for clock in ("wall", "cpu")
        }
    for _, provider, _ in chosen.values():
        if provider is not None:
            provider.shutdown()
    return out


def _distinct_spans(count: int) -> Sequence[ReadableSpan]:
    """``count`` finished hook spans (under step spans), kept in memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer(attr.TRACER_NAME)
    for _ in range(count // 100):
        child_spans(tracer, 99)
    return exporter.get_finished_spans()


def _store_rate(store: TraceStore, batches: list[Sequence[ReadableSpan]]) -> dict[str, Any]:
    store.export(batches[0])  # opens and migrates
    rates = []
    for batch in batches[1:]:
        started = time.perf_counter()
        if store.export(batch) is not SpanExportResult.SUCCESS:
            raise RuntimeError(f"{store!r} refused a batch")
        rates.append(len(batch) / (time.perf_counter() - started))
    store.shutdown()
    return {"spans_per_s": round(median(rates)), "batch": len(batches[0])}


def measure_store(folder: Path) -> dict[str, Any]:
    """Spans per second each store writes, in the batch span processor's batches of 512."""
    spans = _distinct_spans(512 * (1 + RUNS))
    batches = [spans[i : i + 512] for i in range(0, 512 * (1 + RUNS), 512)]
    out = {"sqlite": _store_rate(SQLiteTraceStore(folder / "rate.db"), batches)}
    dsn = os.environ.get("PROCESSION_TEST_POSTGRES_DSN") or (
        DSN_FILE.read_text().strip() if DSN_FILE.is_file() else ""
    )
    if dsn:
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        out["postgres"] = _store_rate(PostgresTraceStore(dsn, schema=schema), batches)
        asyncio.run(_drop_schema(dsn, schema))
    return out


async def _drop_schema(dsn: str, schema: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


def main() -> None:
    """Run the benchmark, print the JSON and save it."""
    with tempfile.TemporaryDirectory(prefix="bench-tracing-") as folder:
        results = {"spans_per_sample": SPANS, "runs": RUNS, **measure(Path(folder))}
        results["workload"] = asyncio.run(measure_runs(Path(folder)))
        results["store_write_rate"] = measure_store(Path(folder))
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    emit(results)


if __name__ == "__main__":
    main()
