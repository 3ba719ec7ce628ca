"""Side-by-side tables of a saved run (``run.py --json PATH``): one column per redactor.

    python bench/guardrail_eval/summary.py heldout.json [--per-format]

Rows are format groups (claimed groups only in each column; ``n/c`` where a redactor does not
claim the group), then ordinary categories and prose overall, then throughput. Used for the
"before" and "after" columns of bench/guardrail_eval/README.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from guardrail_eval.harness import CLAIMS


def percent(hit: int, total: int) -> str:
    """``12.5 %`` or ``-``."""
    return f"{100 * hit / total:.1f} %" if total else "-"


def tally(outcomes: list[dict[str, Any]], key: str, flag: str) -> dict[str, list[int]]:
    """``{value of key: [hits, runs]}`` where a hit is a truthy ``flag``."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for o in outcomes:
        if flag in o:
            totals[o[key]][0] += bool(o[flag])
            totals[o[key]][1] += 1
    return totals


def side_by_side(result: dict[str, Any], key: str = "group") -> str:
    """Leaks per ``key`` (group or format) and alterations per category, per redactor."""
    names = list(result["redactors"])
    per = {n: result["redactors"][n]["outcomes"] for n in names}
    leaks = {n: tally(per[n], key, "leaks") for n in names}
    groups = {n: {o[key]: o["group"] for o in per[n] if "leaks" in o} for n in names}
    rows = sorted({v for n in names for v in leaks[n]})
    head = f"| {key} | runs | " + " | ".join(names) + " |"
    lines = [head, "|" + " --- |" * (len(names) + 2)]
    for row in rows:
        runs = max(leaks[n][row][1] for n in names)
        cells = [
            percent(*leaks[n][row]) if groups[n].get(row) in CLAIMS[n] else "n/c" for n in names
        ]
        lines.append(f"| {row} | {runs} | " + " | ".join(cells) + " |")
    claimed = []
    for n in names:
        mine = [o for o in per[n] if "leaks" in o and o["group"] in CLAIMS[n]]
        claimed.append(percent(sum(bool(o["leaks"]) for o in mine), len(mine)))
    lines.append("| **all claimed** | | " + " | ".join(claimed) + " |")
    lines += [
        "",
        "| ordinary category | runs | " + " | ".join(names) + " |",
        "|" + " --- |" * (len(names) + 2),
    ]
    altered = {n: tally(per[n], "category", "altered") for n in names}
    for row in sorted({v for n in names for v in altered[n]}):
        runs = max(altered[n][row][1] for n in names)
        cells = [percent(*altered[n][row]) for n in names]
        lines.append(f"| {row} | {runs} | " + " | ".join(cells) + " |")
    speed = [f"{result['redactors'][n]['mb_per_s']} MB/s" for n in names]
    lines.append("| throughput (hook, 1 MB) | | " + " | ".join(speed) + " |")
    numbers = [f"{result['redactors'][n].get('mb_per_s_numbers')} MB/s" for n in names]
    lines.append("| throughput, identifiers only | | " + " | ".join(numbers) + " |")
    return "\n".join(lines)


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description="Side-by-side tables of a saved run.")
    parser.add_argument("path", type=Path)
    parser.add_argument("--per-format", action="store_true")
    args = parser.parse_args()
    result = json.loads(args.path.read_text(encoding="utf-8"))
    print(side_by_side(result, "format" if args.per_format else "group"))


if __name__ == "__main__":
    main()
