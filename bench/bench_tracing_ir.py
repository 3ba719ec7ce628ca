"""What tracing costs in instructions (callgrind's Ir), which other processes cannot disturb.

    .venv/bin/python bench/bench_tracing_ir.py                    # tracing off vs on (~3 min)
    .venv/bin/python bench/bench_tracing_ir.py --before DIR       # + no tracer vs DIR's loop

The machine is shared, so wall-clock medians of a few percent are out of reach while others
run their suites; instruction counts are exact and repeatable. Each figure is counted by
running a workload under ``valgrind --tool=callgrind`` once with 1 repetition and once with 3,
and halving the difference, so interpreter start-up, imports and first-use costs cancel out.
The collector is off in the measured process (its timing depends on everything else).

* ``spans``: Ir per hook span (seven attributes, the outcome set before the end, a child of a
  step span) with no provider (the API's no-op tracer) and with the SDK and a batch span
  processor whose exporter drops everything;
* ``workload``: Ir per run of the shared workload (``procession_workload.py``: 36 spans per
  run) with tracing off and with the SDK and the dropping exporter: the cost per span in a
  real run, everything the loop does for tracing included;
* with ``--before DIR`` (a checkout of procession before tracing, e.g. made with
  ``git worktree add DIR cf1a558``): Ir per sample of ``procession_mastra.py``'s workloads
  (``--quick`` sizes) in this tree and in DIR, no tracer configured: the no-op bar.

Prints one JSON object and writes ``bench/results/tracing_ir.json``. Needs valgrind.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "tracing_ir.json"
MASTRA_KINDS = ("stream0", "stream5", "loop0", "loop5", "gen0", "gen3")


def _mastra_run(kind: str) -> Any:
    sys.argv = [sys.argv[0], "--quick"]  # procession_mastra reads its sizes from argv
    import procession_mastra as pm

    runners = {
        "stream0": lambda: pm.stream_chunks_runner(0),
        "stream5": lambda: pm.stream_chunks_runner(5),
        "loop0": lambda: pm.tool_loop_runner(0, "stream"),
        "loop5": lambda: pm.tool_loop_runner(5, "stream"),
        "gen0": lambda: pm.many_generates_runner(False),
        "gen3": lambda: pm.many_generates_runner(True),
    }
    return runners[kind]()


def _drop_provider() -> Any:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    from bench_tracing import DropExporter

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(DropExporter()))
    return provider


def child(kind: str, reps: int) -> None:
    """Run one workload ``reps`` times (inside callgrind)."""
    gc.disable()
    if kind.startswith("spans-"):
        from opentelemetry import trace

        from bench_tracing import child_spans

        tracer = (
            trace.get_tracer("procession")
            if kind == "spans-noop"
            else _drop_provider().get_tracer("procession")
        )
        child_spans(tracer, 1000 * reps)
        return
    if kind.startswith("workload-"):
        import procession_workload as workload
        from procession.tracing import use_tracer_provider

        run = workload.runner(True)[0]
        if kind == "workload-drop":
            use_tracer_provider(_drop_provider())
    else:
        run = _mastra_run(kind)

    async def main() -> None:
        for _ in range(reps):
            await run()

    asyncio.run(main())


def instructions(kind: str, src: Path) -> int:
    """Ir of one repetition of ``kind`` with procession imported from ``src`` (start-up
    cancelled). The workloads themselves are this tree's ``bench/`` scripts either way."""
    counts = []
    for reps in (1, 3):
        # no .pyc written: a file edited between the two runs would otherwise be compiled in
        # one of them only
        env = {
            **os.environ,
            "PYTHONPATH": str(src),
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--callgrind-out-file=/dev/null",
                sys.executable,
                str(HERE / "bench_tracing_ir.py"),
                "--child",
                kind,
                str(reps),
            ],
            cwd=HERE.parent,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        found = re.search(r"Collected : (\d+)", done.stderr)
        if found is None:
            raise RuntimeError(f"callgrind printed no count for {kind}: {done.stderr[-500:]}")
        counts.append(int(found.group(1)))
    return (counts[1] - counts[0]) // 2


def main() -> None:
    """Count, print the JSON and save it."""
    src = HERE.parent / "src"
    out: dict[str, Any] = {}
    noop, drop = (instructions(k, src) for k in ("spans-noop", "spans-drop"))
    out["spans"] = {"noop_ir_per_span": noop // 1000, "sdk_drop_ir_per_span": drop // 1000}
    off, on = (instructions(k, src) for k in ("workload-off", "workload-drop"))
    out["workload"] = {
        "off_ir_per_run": off,
        "sdk_drop_ir_per_run": on,
        "ir_per_span_in_runs": (on - off) // 36,
        "change_pct": round((on - off) / off * 100, 1),
    }
    if "--before" in sys.argv:
        before = Path(sys.argv[sys.argv.index("--before") + 1]).resolve()
        rows = {}
        for kind in MASTRA_KINDS:
            old = instructions(kind, before / "src")
            new = instructions(kind, src)
            rows[kind] = {
                "before": old,
                "after": new,
                "change_pct": round((new - old) / old * 100, 2),
            }
        out["no_tracer_vs_before"] = rows
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    if "--child" in sys.argv:
        at = sys.argv.index("--child")
        child(sys.argv[at + 1], int(sys.argv[at + 2]))
    else:
        main()
