"""Held-out figures of the offline ``PromptInjectionDetector`` on the third blind set (issue 21).

Measures, on ``tests/data/injection/blind3.jsonl`` (text nobody tuned the detector to, see
``tests/data/injection/README-blind3.md``), with the offline default (``--rules-too`` adds
``classifier=False``):

- precision, recall and false alarms on benign text overall, per language, per channel
  (``input`` / ``tool``), per language and channel, and per kind;
- false alarms on the benign look-alikes separately (overall, per language, per kind);
- CPU milliseconds per message (p50 and p95) in every group.

Each text goes through the detector's documented hook (``process_input`` for ``input`` rows,
``process_tool_result`` for ``tool`` rows) with ``strategy="block"``; a text is flagged when
the hook aborts. The hook calls are ``bench/blind2_eval.py``'s, imported, not copied. Prints a
markdown table; ``--json PATH`` writes the figures too. Run once, after merging, by the lead:

    PYTHONPATH=src python bench/blind3_eval.py --json bench/results/blind3_eval.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from blind2_eval import Tally, num, pct, read_rows, verdict

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "injection" / "blind3.jsonl"


def percentile(values: Sequence[float], q: float) -> float | None:
    """The nearest-rank ``q`` percentile (0 < q <= 100) of ``values``; ``None`` when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def groups(row: dict[str, Any]) -> list[str]:
    """The groups a row is counted in (besides ``all``)."""
    lang, channel, kind = row["lang"], row["channel"], row["kind"]
    out = [f"lang:{lang}", f"channel:{channel}", f"lang:{lang}:channel:{channel}", f"kind:{kind}"]
    if row.get("lookalike"):
        out += ["lookalikes", f"lookalikes:lang:{lang}", f"lookalikes:kind:{kind}"]
    return out


def figures_of(tally: Tally) -> dict[str, Any]:
    """``Tally.figures()`` plus the p50 and p95 of the CPU milliseconds."""
    out = tally.figures()
    out["ms_p50"] = percentile(tally.ms, 50)
    out["ms_p95"] = percentile(tally.ms, 95)
    return out


def evaluate(processor: Any, rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Run every row through ``processor``; figures for each group a row belongs to."""
    tallies: dict[str, Tally] = defaultdict(Tally)
    with asyncio.Runner() as runner:  # one event loop for the whole set
        for row in rows:
            flagged, _, ms = verdict(processor, row["text"], row["channel"], runner)
            for group in ["all", *groups(row)]:
                tallies[group].add(row["label"] == "attack", flagged, ms)
    return {group: figures_of(tally) for group, tally in sorted(tallies.items())}


def ms(value: float | None) -> str:
    """Milliseconds with two decimals, ``—`` when undefined."""
    return "—" if value is None else f"{value:.2f}"


def table(name: str, figures: dict[str, dict[str, Any]]) -> str:
    """Markdown: per group precision / recall / false alarms on benign / ms p50 and p95."""
    lines = [
        f"### PromptInjectionDetector on blind3, {name}",
        "",
        "| group | n (attacks) | precision | recall | false alarms on benign | ms p50 | ms p95 |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for group, f in figures.items():
        alarms = f"{pct(f['false_alarm_rate'])} ({f['fp']}/{f['negatives']})"
        lines.append(
            f"| {group} | {f['n']} ({f['positives']}) | {num(f['precision'])} | "
            f"{num(f['recall'])} | {alarms} | {ms(f['ms_p50'])} | {ms(f['ms_p95'])} |"
        )
    return "\n".join(lines)


def check_rows(rows: list[dict[str, Any]], path: Path) -> None:
    """Fail with the row number when a row lacks a field the evaluation reads."""
    for number, row in enumerate(rows, 1):
        missing = {"text", "label", "lang", "kind", "channel"} - row.keys()
        if missing:
            raise SystemExit(f"{path}: row {number} lacks {sorted(missing)}")
        if row["channel"] not in {"input", "tool"}:
            raise SystemExit(f"{path}: row {number}: channel {row['channel']!r}")
        if row["label"] not in {"attack", "benign"}:
            raise SystemExit(f"{path}: row {number}: label {row['label']!r}")


def run(data: Path, rules_too: bool) -> tuple[dict[str, Any], str]:
    """All figures (for the JSON) and the markdown report."""
    from procession import PromptInjectionDetector

    rows = read_rows(data)
    check_rows(rows, data)
    configs: list[tuple[str, dict[str, Any]]] = [("offline default", {})]
    if rules_too:
        configs.append(("rules alone (classifier=False)", {"classifier": False}))
    report: dict[str, Any] = {"file": str(data), "rows": len(rows), "injection": {}}
    tables: list[str] = []
    for name, options in configs:
        detector = PromptInjectionDetector(strategy="block", **options)
        figures = evaluate(detector, rows)
        report["injection"][name] = figures
        tables.append(table(name, figures))
    return report, "\n\n".join(tables)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--data``, ``--json``, ``--rules-too``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the labelled JSON lines")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--rules-too", action="store_true", help="also classifier=False")
    args = parser.parse_args(argv)
    report, markdown = run(args.data, args.rules_too)
    print(markdown)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
        args.json.write_text(text, encoding="utf-8")
        print(f"\nJSON: {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
