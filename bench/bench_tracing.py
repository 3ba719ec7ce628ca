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
Prints one JSON object and writes ``bench/results/tracing.json``.
"""

from __future__ import annotations

import gc
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.util.types import AttributeValue

from benchlib import emit, median
from procession.tracing import SQLiteTraceStore
from procession.tracing import attributes as attr

QUICK = "--quick" in sys.argv
SPANS = 2_000 if QUICK else 20_000
RUNS = 2 if QUICK else 7
RESULTS = Path(__file__).resolve().parent / "results" / "tracing.json"


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


def child_spans(tracer: trace.Tracer, count: int) -> float:
    """Seconds to open and end ``count`` hook spans under one step span, by explicit context."""
    step = tracer.start_span("step 0", attributes={attr.STEP_NUMBER: 0, attr.STEP_ATTEMPT: 0})
    context = trace.set_span_in_context(step)
    gc.collect()
    started = time.perf_counter()
    for _ in range(count):
        span = tracer.start_span("process_output_step redactor", context, attributes=HOOK)
        span.set_attribute(attr.HOOK_OUTCOME, "kept")
        span.end()
    elapsed = time.perf_counter() - started
    step.end()
    return elapsed


def current_spans(tracer: trace.Tracer, count: int) -> float:
    """The same, each span made current while it is open (context attached and detached)."""
    with tracer.start_as_current_span("step 0", attributes={attr.STEP_NUMBER: 0}):
        gc.collect()
        started = time.perf_counter()
        for _ in range(count):
            with tracer.start_as_current_span(
                "process_output_step redactor", attributes=HOOK
            ) as span:
                span.set_attribute(attr.HOOK_OUTCOME, "kept")
        return time.perf_counter() - started


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
    """Interleaved samples of every setup and way; µs per span (median) and spans exported."""
    chosen = setups(folder)
    ways = {"child": child_spans, "current": current_spans}
    samples: dict[str, list[float]] = {f"{s}/{w}": [] for s in chosen for w in ways}
    for tracer, _, _ in chosen.values():  # warm up every setup once
        child_spans(tracer, SPANS // 10)
    opened = SPANS // 10 + 1
    for _ in range(RUNS):
        for way, run in ways.items():
            for name, (tracer, _, _) in chosen.items():
                samples[f"{name}/{way}"].append(run(tracer, SPANS) / SPANS * 1e6)
            opened += SPANS + 1
    out: dict[str, Any] = {
        key: {"us_per_span": round(median(values), 3), "samples": [round(v, 3) for v in values]}
        for key, values in samples.items()
    }
    for name, (_, provider, exporter) in chosen.items():
        if provider is not None:
            provider.shutdown()  # exports what is still queued
            out[f"{name}/exported_of_opened"] = [exporter.count, opened]
    for way in ways:
        cost = out[f"sdk-drop/{way}"]["us_per_span"] - out[f"noop/{way}"]["us_per_span"]
        out[f"sdk-drop-over-noop/{way}"] = round(cost, 3)
    return out


def main() -> None:
    """Run the benchmark, print the JSON and save it."""
    with tempfile.TemporaryDirectory(prefix="bench-tracing-") as folder:
        results = {"spans_per_sample": SPANS, "runs": RUNS, **measure(Path(folder))}
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    emit(results)


if __name__ == "__main__":
    main()
