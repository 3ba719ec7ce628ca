"""Measure the redactors on the frozen evaluation corpora; print markdown tables.

    python bench/guardrail_eval/run.py --split dev|heldout [--redactor NAME ...]
        [--chunkings N] [--limit N] [--workers N] [--json PATH]

Per redactor: secrets reaching any channel per format group (and per format with
``--per-format``), per context, per channel; the share of ordinary items altered per
category (and per prose language); and MB/s of the output-stream hook on the ordinary
corpus. Tune rules on ``dev`` only; report ``heldout``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from guardrail_eval.harness import (
    CLAIMS,
    DATA,
    REDACTORS,
    batches,
    evaluate_batch,
    load,
    throughput,
)


def run(
    split: str,
    redactors: list[str],
    count: int,
    *,
    limit: int | None = None,
    workers: int = 2,
    data: Path = DATA,
) -> dict[str, Any]:
    """Every redactor on both corpora of ``split``; the raw outcomes and throughput."""
    secrets = spread(load(split, "secrets", data), limit)
    ordinary = spread(load(split, "ordinary", data), limit)
    items = secrets + ordinary
    out: dict[str, Any] = {"split": split, "chunkings": count, "redactors": {}}
    for name in redactors:
        started = time.perf_counter()
        jobs = [(name, batch, count) for batch in batches(items, 40)]
        if workers > 1:
            with multiprocessing.get_context("spawn").Pool(workers) as pool:
                outcomes = [o for part in pool.map(evaluate_batch, jobs) for o in part]
        else:
            outcomes = [o for job in jobs for o in evaluate_batch(job)]
        text = "\n".join(i["text"] for i in ordinary)
        text = (text * (1 + 1_000_000 // max(1, len(text))))[:1_000_000]
        out["redactors"][name] = {
            "outcomes": outcomes,
            "seconds": round(time.perf_counter() - started, 1),
            "mb_per_s": round(throughput(name, text), 2),
            "corpus_mb": round(len(text.encode("utf-8")) / 1e6, 2),
        }
    return out


def spread(items: list[dict[str, Any]], limit: int | None) -> list[dict[str, Any]]:
    """``limit`` items taken evenly over the corpus (every format and category), or all."""
    if limit is None or limit >= len(items):
        return items
    step = len(items) / limit
    return [items[int(n * step)] for n in range(limit)]


def rate(hit: int, total: int) -> str:
    """``12.5 % (3/24)``."""
    return f"{100 * hit / total:.1f} % ({hit}/{total})" if total else "-"


def secret_table(name: str, outcomes: list[dict[str, Any]], key: str) -> list[str]:
    """Leak rate per ``key`` (group, format, context) of one redactor's secret outcomes."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for o in outcomes:
        if "leaks" in o and (key != "context" or o["group"] in CLAIMS[name]):
            totals[o[key]][0] += bool(o["leaks"])
            totals[o[key]][1] += 1
    lines = [f"| {key} | claimed by {name} | runs leaking |", "| --- | --- | --- |"]
    for value in sorted(totals):
        group = (
            value
            if key == "group"
            else next(o["group"] for o in outcomes if o.get(key) == value and "group" in o)
        )
        claimed = "yes" if group in CLAIMS[name] else "no"
        lines.append(f"| {value} | {claimed} | {rate(*totals[value])} |")
    claimed_runs = [o for o in outcomes if "leaks" in o and o["group"] in CLAIMS[name]]
    hit = sum(bool(o["leaks"]) for o in claimed_runs)
    lines.append(f"| **all claimed** | yes | {rate(hit, len(claimed_runs))} |")
    return lines


def channel_table(outcomes: list[dict[str, Any]], claims: set[str]) -> list[str]:
    """How often each channel carried a claimed secret."""
    runs = [o for o in outcomes if "leaks" in o and o["group"] in claims]
    counts: dict[str, int] = defaultdict(int)
    for o in runs:
        for channel in o["leaks"]:
            counts[channel] += 1
    lines = ["| channel | runs leaking a claimed secret |", "| --- | --- |"]
    lines += [f"| {c} | {rate(counts[c], len(runs))} |" for c in sorted(counts)]
    return lines


def ordinary_table(outcomes: list[dict[str, Any]]) -> list[str]:
    """Share of ordinary runs altered per category and per prose language."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for o in outcomes:
        if "altered" not in o:
            continue
        keys = [o["category"]] + ([f"prose:{o['lang']}"] if o["category"] == "prose" else [])
        for k in keys:
            totals[k][0] += o["altered"]
            totals[k][1] += 1
    lines = ["| category | runs altered |", "| --- | --- |"]
    return lines + [f"| {k} | {rate(*totals[k])} |" for k in sorted(totals)]


def report(result: dict[str, Any], per_format: bool = False) -> str:
    """The markdown report of :func:`run`'s result."""
    parts = [
        f"# Guardrail evaluation: split `{result['split']}`, {result['chunkings']} "
        "chunking(s) per item\n"
    ]
    for name, res in result["redactors"].items():
        outcomes = res["outcomes"]
        errors = sum(1 for o in outcomes if o.get("error"))
        parts.append(
            f"## {name}\n\n{res['mb_per_s']} MB/s (output-stream hook, 16-character "
            f"chunks, {res['corpus_mb']} MB of the ordinary corpus repeated, CPU "
            "time); "
            f"{len(outcomes)} runs in {res['seconds']} s; {errors} runs ended in an "
            "error.\n"
        )
        parts.append("\n".join(secret_table(name, outcomes, "group")) + "\n")
        parts.append("\n".join(secret_table(name, outcomes, "context")) + "\n")
        parts.append("\n".join(channel_table(outcomes, CLAIMS[name])) + "\n")
        if per_format:
            parts.append("\n".join(secret_table(name, outcomes, "format")) + "\n")
        parts.append("\n".join(ordinary_table(outcomes)) + "\n")
    return "\n".join(parts)


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description="Measure the redactors on the corpora.")
    parser.add_argument("--split", choices=["dev", "heldout"], required=True)
    parser.add_argument("--redactor", action="append", choices=sorted(REDACTORS))
    parser.add_argument("--chunkings", type=int, default=2, help="random chunkings per item")
    parser.add_argument("--limit", type=int, default=None, help="N items of each corpus, spread")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--per-format", action="store_true", help="also a table per format")
    parser.add_argument("--json", type=Path, default=None, help="write raw outcomes here")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    if args.chunkings < 1:
        parser.error("--chunkings must be at least 1")
    result = run(
        args.split,
        args.redactor or list(REDACTORS),
        args.chunkings,
        limit=args.limit,
        workers=args.workers,
        data=args.data,
    )
    print(report(result, args.per_format))
    if args.json:
        args.json.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
