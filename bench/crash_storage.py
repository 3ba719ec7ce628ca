"""Crash soak: kill a process committing whole runs at random points, then check the store.

Run: ``.venv/bin/python bench/crash_storage.py [--cases 100] [--seed N] [--backend sqlite]``
(PostgreSQL from ``PROCESSION_TEST_POSTGRES_DSN`` or ``.pgdata/dsn``; its schema is dropped
afterwards). Each case starts a writer that saves whole runs (messages, a working-memory update
and a vector per message in one ``save_turn``), some of them ones storage must refuse (a NUL,
an invalid in-place edit, a message of another thread), and SIGKILLs it at a random moment.
Prints, per backend: cases tried, kills that landed, kills inside a turn, whole turns found,
refused turns, and half-written or wrongly stored turns found (want 0). Writes
``bench/results/crash_storage.json``. The harness is ``tests/memory/crash_harness.py``; CI
runs three cases per backend in ``tests/memory/test_storage_processes.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the harness lives with the tests

from tests.memory.crash_harness import (  # noqa: E402
    CrashOutcome,
    drop_schema,
    find_dsn,
    run_case,
    spawn,
)

RESULTS = ROOT / "bench" / "results" / "crash_storage.json"


async def soak(backend: str, target: str, schema: str, cases: int, seed: int) -> dict[str, object]:
    """Run ``cases`` kills on one backend; the figures."""
    rng = random.Random(f"{seed}-{backend}")
    opener = spawn(backend, target, schema, "open")
    opener.communicate(timeout=120)
    outcomes: list[CrashOutcome] = []
    started = time.perf_counter()
    for index in range(cases):
        outcome = await run_case(backend, target, schema, rng)
        outcomes.append(outcome)
        for problem in outcome.problems:
            print(f"  case {index}: {problem}")
        if (index + 1) % 10 == 0:
            print(
                f"  {backend}: {index + 1} cases, {time.perf_counter() - started:.0f} s", flush=True
            )
    problems = [p for o in outcomes for p in o.problems]
    return {
        "cases": cases,
        "killed": sum(o.killed for o in outcomes),
        "killed_inside_a_turn": sum(o.mid_turn for o in outcomes),
        "whole_turns_found": sum(o.stored for o in outcomes),
        "refused_turns": sum(o.refused for o in outcomes),
        "half_written_turns": sum("half-written" in p for p in problems),
        "problems": len(problems),
        "seconds": round(time.perf_counter() - started, 1),
    }


async def main() -> None:
    """Soak every available backend and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--seed", type=int, default=random.randrange(2**32))
    parser.add_argument("--backend", choices=["sqlite", "postgres"], action="append")
    args = parser.parse_args()
    backends = args.backend or ["sqlite", "postgres"]
    results: dict[str, object] = {"seed": args.seed, "cases": args.cases}
    print(f"seed {args.seed}, {args.cases} cases per backend")
    if "sqlite" in backends:
        with tempfile.TemporaryDirectory() as folder:
            target = str(Path(folder) / "crash.db")
            results["sqlite"] = await soak("sqlite", target, "", args.cases, args.seed)
    dsn = find_dsn()
    if "postgres" in backends and dsn is None:
        print("postgres  skipped: set PROCESSION_TEST_POSTGRES_DSN or run scripts/services.sh")
    if "postgres" in backends and dsn is not None:
        schema = f"crash_{uuid.uuid4().hex[:10]}"
        try:
            results["postgres"] = await soak("postgres", dsn, schema, args.cases, args.seed)
        finally:
            await drop_schema(dsn, schema)
    for backend in ("sqlite", "postgres"):
        figures = results.get(backend)
        if isinstance(figures, dict):
            print(f"{backend:9} " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    asyncio.run(main())
