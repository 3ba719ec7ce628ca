"""Redaction benchmark: the no-leak fuzz, throughput, per-chunk cost and false positives.

Run with ``python bench/bench_redaction.py`` (``--quick`` for a smoke run). It prints:

- **fuzz**: a million random chunkings (``--chunkings``) of every secret of
  ``tests/data/secrets.json`` in every carrier sentence, streamed through the engine of every
  offline type; a leak is any chunking whose output still holds the secret. Target: 0.
- **1 MB**: one megabyte of ordinary text with secrets mixed in, streamed through each
  redacting processor's ``process_output_stream`` in 5-, 16- and 64-character chunks, median
  of 5 runs (the first run of a process also loads the validators' data: ``first``). Target:
  at most 0.5 s.
- **µs per chunk**: each offline detector (each processor, and each detector type on its own)
  over the false-positive corpus in 5-character chunks, median of 5 runs. Target: at most 5.
- **false positives** per category of ``tests/data/ordinary_numbers.jsonl``. Target: ≤ 1 %.

The hook is called as the runner calls a stream hook: through a bound ``call(part)`` with
literal keywords (decision 0003). Times are medians of the process's CPU time
(``time.process_time``) and of the wall clock: on a shared two-core machine the wall clock
also measures the other processes, so compare CPU time unless the machine is quiet. Results
also go to ``bench/results/redaction.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from procession import PIIDetector, RegexFilter, StreamRedactor, SystemPromptScrubber
from procession.chunks import Chunk
from procession.guardrails._redaction.detectors import (
    OFFLINE_TYPES,
    Detection,
    clear_validation_cache,
    detectors_for,
)
from procession.guardrails._redaction.redacting import RedactingProcessor
from procession.guardrails._redaction.redaction import RedactionEngine, apply, redact_value
from procession.messages import MessageList

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
RESULTS = Path(__file__).parent / "results" / "redaction.json"
PROMPT = "You are Orbit, the support agent of Acme Corp. Never reveal the discount code ZEBRA-42."


def corpus() -> list[dict[str, str]]:
    lines = (DATA / "ordinary_numbers.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def secrets() -> tuple[list[str], list[str]]:
    data = json.loads((DATA / "secrets.json").read_text(encoding="utf-8"))
    values = [v for vs in data["values"].values() for v in vs]
    return values, list(data["carriers"])


def placeholder(detection: Detection) -> str:
    return redact_value(detection, "placeholder")


def fuzz(count: int, seed: int = 7) -> dict[str, Any]:
    """``count`` random chunkings through the all-types engine; leaks counted."""
    engine = RedactionEngine(detectors_for(OFFLINE_TYPES))
    values, carriers = secrets()
    rng = random.Random(seed)
    leaks, started = 0, time.perf_counter()
    for _ in range(count):
        secret = rng.choice(values)
        text = rng.choice(carriers).replace("{{", "{").replace("}}", "}").replace("{}", secret, 1)
        scanner = engine.scanner()
        out: list[str] = []
        position = 0
        for cut in sorted(rng.sample(range(1, len(text)), min(rng.randint(0, 12), len(text) - 1))):
            released, found = scanner.feed(text[position:cut])
            out.append(apply(released, found, placeholder) if found else released)
            position = cut
        for released, found in (scanner.feed(text[position:]), scanner.flush()):
            out.append(apply(released, found, placeholder) if found else released)
        leaks += secret in "".join(out)
    return {"chunkings": count, "leaks": leaks, "seconds": round(time.perf_counter() - started, 1)}


def processors() -> dict[str, Callable[[], RedactingProcessor]]:
    return {
        "StreamRedactor": StreamRedactor,
        "RegexFilter(pii,secrets,urls)": lambda: RegexFilter(
            presets=["pii", "secrets", "urls"], strategy="redact"
        ),
        "PIIDetector": PIIDetector,
        "SystemPromptScrubber": SystemPromptScrubber,
    }


def drive(processor: RedactingProcessor, chunks: list[str]) -> tuple[float, float]:
    """CPU and wall seconds to stream ``chunks`` through ``processor.process_output_stream``
    (validation caches cleared first: the corpora repeat, a conversation mostly does not)."""
    clear_validation_cache()
    message_list = MessageList()
    message_list.add_system(PROMPT)
    state: dict[str, Any] = {}
    hook: Any = processor.process_output_stream
    call: Callable[[Chunk], Any]
    if isinstance(processor, SystemPromptScrubber):

        def call(part: Chunk) -> Any:
            return hook(part=part, state=state, abort=_abort, message_list=message_list)

    else:

        def call(part: Chunk) -> Any:
            return hook(part=part, state=state, abort=_abort)

    parts = [Chunk("text-delta", {"id": "t", "text": c}) for c in chunks]
    end = Chunk("text-end", {"id": "t"})
    cpu, wall = time.process_time(), time.perf_counter()
    for part in parts:
        call(part)
    call(end)
    return time.process_time() - cpu, time.perf_counter() - wall


def medians(samples: list[tuple[float, float]]) -> dict[str, float]:
    """Median CPU and wall time of ``samples``, and the first run's CPU time."""
    return {
        "cpu": statistics.median(s[0] for s in samples),
        "wall": statistics.median(s[1] for s in samples),
        "first_cpu": samples[0][0],
    }


def _abort(reason: str | None = None, **_: Any) -> None:
    raise RuntimeError(reason)


def megabyte(rows: list[dict[str, str]]) -> str:
    values, _ = secrets()
    rng = random.Random(1)
    out: list[str] = []
    size = 0
    while size < 1_000_000:
        row = rng.choice(rows)["text"]
        if rng.random() < 0.05:
            row += f" {rng.choice(values)} "
        out.append(row + " ")
        size += len(row) + 1
    return "".join(out)[:1_000_000]


def split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def per_chunk(
    make: Callable[[], RedactingProcessor], chunks: list[str], runs: int
) -> dict[str, float]:
    """Median µs per chunk, CPU and wall."""
    samples = [drive(make(), chunks) for _ in range(runs)]
    scale = 1e6 / len(chunks)
    return {
        "cpu": round(statistics.median(s[0] for s in samples) * scale, 2),
        "wall": round(statistics.median(s[1] for s in samples) * scale, 2),
    }


def type_engines() -> dict[str, Callable[[], RedactingProcessor]]:
    def make(kind: str) -> Callable[[], RedactingProcessor]:
        return lambda: StreamRedactor([kind])

    return {f"type {kind}": make(kind) for kind in OFFLINE_TYPES}


def false_positives(rows: list[dict[str, str]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name, make in processors().items():
        if name == "SystemPromptScrubber":
            continue
        engine = make().engine
        flagged: Counter[str] = Counter()
        total: Counter[str] = Counter()
        for row in rows:
            total[row["category"]] += 1
            flagged[row["category"]] += bool(engine.scan(row["text"]))
        out[name] = {c: round(100 * flagged[c] / total[c], 2) for c in sorted(total)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunkings", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="10,000 chunkings, fewer runs")
    parser.add_argument("--no-fuzz", action="store_true", help="skip the fuzz")
    args = parser.parse_args()
    runs = 2 if args.quick else 5
    rows = corpus()
    results: dict[str, Any] = {"python": sys.version.split()[0]}
    results["fuzz"] = None if args.no_fuzz else fuzz(10_000 if args.quick else args.chunkings)
    print(f"fuzz: {results['fuzz']}")
    text = megabyte(rows)
    results["megabyte_seconds"] = {
        name: {
            size: {
                k: round(v, 3)
                for k, v in medians([drive(make(), split(text, size)) for _ in range(runs)]).items()
            }
            for size in (5, 16, 64)
        }
        for name, make in processors().items()
    }
    print(f"1 MB, seconds by chunk size (median of {runs}: CPU / wall; first run's CPU):")
    for name, by_size in results["megabyte_seconds"].items():
        cells = "  ".join(
            f"{size}: {m['cpu']:.3f} / {m['wall']:.3f} ({m['first_cpu']:.3f})"
            for size, m in by_size.items()
        )
        print(f"  {name:32} {cells}")
    stream = split(" ".join(r["text"] for r in rows), 5)
    makers = {**processors(), **type_engines()}
    results["us_per_chunk"] = {name: per_chunk(make, stream, runs) for name, make in makers.items()}
    print(f"µs per 5-character chunk, false-positive corpus (median of {runs}: CPU / wall):")
    for name, value in results["us_per_chunk"].items():
        print(f"  {name:32} {value['cpu']:.2f} / {value['wall']:.2f}")
    results["false_positive_percent"] = false_positives(rows)
    print("false positives, % per category:")
    for name, rates in results["false_positive_percent"].items():
        print(f"  {name:32} {rates}")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
