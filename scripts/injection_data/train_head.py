"""Train the offline prompt-injection head (developers only; CI never trains).

    python scripts/injection_data/train_head.py [--epochs N] [--train PATH] [--out PATH]
        [--cache EMBEDDINGS.npz]

Reads ``tests/data/injection/train.jsonl`` (fit) and ``dev.jsonl`` (mix and thresholds),
never a held-out split. Two halves, each fitted on train:

* hashed: logistic regression over :mod:`procession.guardrails._text.hashed_head` features
  plus the offline rules that fired, full-batch Adam with L2, class-balanced per language;
  its bias is shifted so that 0.7 is its own dev operating point (the fallback when the
  sentence encoder is not installed);
* encoder: logistic regression over the multilingual sentence embedding
  (:mod:`procession.guardrails._injection.sentence_encoder`), same weighting.

Then four mixing weights (hashed logit, encoder logit, rules' score, constant) are fitted on
dev by logistic regression, and the mixed logit's dev operating point is moved to 0.7. The
operating point: the best dev recall with precision >= 0.95, at most 3 % of the dev's
benign texts flagged and at most 5 % of its benign look-alikes (decision 0385; dev is frozen
by ``dev.sha256``). Writes ``src/procession/guardrails/_injection/data/injection_head.npz``.
"""

from __future__ import annotations

import argparse
import hashlib
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

from procession.guardrails._injection.injection_classifier import rule_features  # noqa: E402
from procession.guardrails._injection.injection_rules import (  # noqa: E402
    InjectionScan,
    normalise,
    scan,
)
from procession.guardrails._injection.injection_windows import read_windows  # noqa: E402
from procession.guardrails._injection.sentence_encoder import embed_many  # noqa: E402
from procession.guardrails._injection.tool_text import readable_text  # noqa: E402
from procession.guardrails._text.hashed_head import HashedHead, features, windows  # noqa: E402

DATA = ROOT / "tests" / "data" / "injection"
OUT = ROOT / "src" / "procession" / "guardrails" / "_injection" / "data" / "injection_head.npz"
BITS = 18
TARGET = 0.7
PRECISION = 0.95
FALSE_ALARMS = 0.03
LOOKALIKE_ALARMS = 0.05
LOOKALIKE_KINDS = ("article", "lookalike-tool", "tool-ordinary")
"""Dev's benign kinds held to :data:`LOOKALIKE_ALARMS` at the operating point (decision 0385):
security prose and the round-seven tool results that share the attacks' words."""


def load(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


def view(item: dict[str, Any]) -> tuple[str, InjectionScan]:
    """The text the classifier reads of a row and the rules' scan, as the detector does at run
    time: a tool result's readable text (decision 0324), scanned both ways, the higher kept."""
    text, channel = item["text"], item["channel"]
    if channel != "tool":
        return text, scan(text, channel)
    readable = readable_text(text)
    found = scan(readable, "tool")
    if readable != text:
        raw = scan(text, "tool")
        found = raw if raw.score > found.score else found
    return readable, found


def matrix(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    indptr, indices, values = [0], [], []
    for item in rows:
        text, found = view(item)
        extra = rule_features(found)
        index, value = features(windows(normalise(text))[0], BITS, extra)
        indices.append(index)
        values.append(value)
        indptr.append(indptr[-1] + len(index))
    return np.array(indptr), np.concatenate(indices), np.concatenate(values)


def cached_embeddings(texts: list[str], cache: Path | None) -> np.ndarray:
    """:func:`embed_many` of ``texts``, reusing and extending the vectors stored in ``cache``
    (an ``.npz`` keyed by each text's SHA-256; the encoder is the slow part of a training)."""
    if cache is None:
        return embed_many(texts)
    keys = [hashlib.sha256(text.encode()).hexdigest() for text in texts]
    stored: dict[str, np.ndarray] = {}
    if cache.exists():
        with np.load(cache, allow_pickle=False) as data:
            stored = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in stored}.items())
    if missing:
        fresh = embed_many([text for _, text in missing])
        stored |= {key: vector for (key, _), vector in zip(missing, fresh, strict=True)}
        np.savez(cache, keys=np.array(list(stored)), vectors=np.stack(list(stored.values())))
    return np.stack([stored[key] for key in keys])


def balance(rows: list[dict[str, Any]]) -> np.ndarray:
    """Per-row weights: each (language, label) group weighs the square root of its size."""
    groups = Counter((r["lang"], r["label"]) for r in rows)
    sample = np.array([1.0 / math.sqrt(groups[(r["lang"], r["label"])]) for r in rows])
    scaled: np.ndarray = sample * (len(rows) / sample.sum())
    return scaled


def fit_dense(x: np.ndarray, y: np.ndarray, sample: np.ndarray, l2: float,
              steps: int = 3000) -> tuple[np.ndarray, float]:  # fmt: skip
    """Logistic regression on dense features, full-batch gradient descent."""
    w, b = np.zeros(x.shape[1]), 0.0
    for _ in range(steps):
        err = (1.0 / (1.0 + np.exp(-(x @ w + b))) - y) * sample / len(y)
        w -= 2.0 * (x.T @ err + l2 * w)
        b -= 2.0 * float(err.sum())
    return w, b


def fit(rows: list[dict[str, Any]], epochs: int, l2: float) -> tuple[np.ndarray, float]:
    indptr, indices, values = matrix(rows)
    y = np.array([r["label"] == "attack" for r in rows], dtype=np.float64)
    sample = balance(rows)
    return adam_fit((indptr, indices, values), y, sample, 1 << BITS, epochs, l2)


def scores(rows: list[dict[str, Any]], w: np.ndarray, b: float) -> tuple[np.ndarray, list[str]]:
    """The hashed logit of each row and the text the encoder reads, chosen as at run time
    (:func:`~procession.guardrails._injection.injection_windows.read_windows`)."""
    head = HashedHead(w.astype(np.float32), float(b), BITS, "training")
    out, starts = [], []
    for item in rows:
        text, found = view(item)
        hints = [finding.match for finding in found.findings]
        best, start = read_windows(head, normalise(text), rule_features(found), hints)
        out.append(best)
        starts.append(text[start:] if start else text)
    return np.array(out), starts


def pick_threshold(z: np.ndarray, y: np.ndarray, lookalike: np.ndarray | None = None) -> float:
    """The dev operating point: the best recall with precision >= PRECISION, at most
    FALSE_ALARMS of the benign rows flagged and, given ``lookalike`` (a mask of dev's benign
    look-alike rows), at most LOOKALIKE_ALARMS of those."""
    best_t, best_recall = 0.0, -1.0
    hard = lookalike if lookalike is not None else np.zeros(len(y), dtype=bool)
    for t in np.unique(z):
        flagged = z >= t
        tp = float((flagged & y).sum())
        precision = tp / max(flagged.sum(), 1)
        recall = tp / max(y.sum(), 1)
        alarms = float((flagged & ~y).sum()) / max((~y).sum(), 1)
        hard_alarms = float((flagged & hard).sum()) / max(hard.sum(), 1)
        if hard_alarms > LOOKALIKE_ALARMS:
            continue
        if precision >= PRECISION and alarms <= FALSE_ALARMS and recall > best_recall:
            best_t, best_recall = float(t), recall
    return best_t


def report(name: str, z: np.ndarray, y: np.ndarray, t: float) -> None:
    flagged = z >= t
    tp = int((flagged & y).sum())
    print(f"dev, {name}: threshold logit {t:.3f}; precision {tp / max(flagged.sum(), 1):.3f} "
          f"recall {tp / max(y.sum(), 1):.3f} false alarms "
          f"{(flagged & ~y).sum() / max((~y).sum(), 1):.3f} on {len(y)} rows")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=600)
    parser.add_argument("--l2", type=float, default=1e-5)
    parser.add_argument("--dense-l2", type=float, default=1e-4)
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the head")
    parser.add_argument("--train", type=Path, default=DATA / "train.jsonl")
    parser.add_argument("--cache", type=Path, default=None,
                        help="an .npz of embeddings kept between trainings")  # fmt: skip
    args = parser.parse_args()
    train, dev = load(args.train), load(DATA / "dev.jsonl")
    y_train = np.array([r["label"] == "attack" for r in train], dtype=np.float64)
    y = np.array([r["label"] == "attack" for r in dev])
    hard = np.array([r["label"] == "benign" and r.get("kind") in LOOKALIKE_KINDS for r in dev])
    w, b = fit(train, args.epochs, args.l2)
    z, starts = scores(dev, w, b)
    t = pick_threshold(z, y, hard)
    report("hashed half alone", z, y, t)
    shift = math.log(TARGET / (1 - TARGET)) - t
    b, z = b + shift, z + shift
    vectors = cached_embeddings([view(r)[0] for r in train], args.cache)
    dense, dense_b = fit_dense(vectors, y_train, balance(train), args.dense_l2)
    encoded = cached_embeddings(starts, args.cache) @ dense + dense_b
    report("encoder half alone", encoded, y, pick_threshold(encoded, y, hard))
    rules = np.array([view(r)[1].score for r in dev])
    stack = np.stack([z, encoded, rules, np.ones(len(dev))], axis=1)
    mix, _ = fit_dense(stack[:, :3], y.astype(np.float64), balance(dev), 1e-3, 5000)
    mix = np.append(mix, _)
    mixed = stack @ mix
    t = pick_threshold(mixed, y, hard)
    report("mixed", mixed, y, t)
    mix[3] += math.log(TARGET / (1 - TARGET)) - t
    print(f"mix (hashed, encoder, rules, constant): {np.round(mix, 3).tolist()}")
    meta = (f"hashed char 2-4-grams + words + rules, {BITS} bits; logistic regression, "
            f"{args.epochs} Adam epochs, l2 {args.l2}; encoder half: logistic regression over "
            f"USE multilingual v3 embeddings, l2 {args.dense_l2}; {len(train)} training rows "
            "(tests/data/injection/train.jsonl); mix fitted and thresholds moved to 0.7 on "
            f"{len(dev)} dev rows")  # fmt: skip
    out: Path = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, weights=w.astype(np.float16), bias=np.float64(b),
                        bits=np.int64(BITS), meta=np.str_(meta),
                        dense=dense.astype(np.float32), dense_bias=np.float64(dense_b),
                        mix=mix.astype(np.float64))  # fmt: skip
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
