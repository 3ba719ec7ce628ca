"""Regression floors on the prompt-injection DEV split (decision 0385).

The dev split (``tests/data/injection/dev.jsonl``) is where the head's mix and threshold were
fitted, so these are not held-out figures: they are floors a later change of the head, the
rules or the tool-text extraction must not fall through, per language, per channel and on the
benign tool results that share the attacks' words. The split is frozen by ``dev.sha256``
(written before the head was tuned on it). Figures are counted, never timed.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from procession import PromptInjectionDetector
from procession.guardrails._injection.sentence_encoder import encoder_installed

DATA = Path(__file__).parents[2] / "data" / "injection"
LANGUAGES = ("en", "zh-Hans", "zh-Hant", "ja", "ko", "es", "fr", "de", "pt", "ru", "ar")
# Floors a little under the shipped head's dev figures (docs/guardrails/prompt-injection.md),
# so noise in a retraining passes and a real regression does not.
PRECISION_FLOOR = 0.88
RECALL_FLOOR = 0.80
LOOKALIKE_FLOOR = 0.08  # at most this share of dev's benign tool look-alikes flagged

needs_encoder = pytest.mark.skipif(
    not encoder_installed(), reason="the floors are the default head's, with the encoder"
)


def load(name: str) -> list[dict[str, Any]]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


@lru_cache(maxsize=1)
def dev_counts() -> dict[str, Counter[str]]:
    """tp/fn/fp/tn of the default offline detector on dev, per group."""
    detector = PromptInjectionDetector()
    groups: dict[str, Counter[str]] = {}
    for row in load("dev.jsonl"):
        flagged = detector.detect_offline(row["text"], row["channel"]).flagged
        attack = row["label"] == "attack"
        key = ("tp" if flagged else "fn") if attack else ("fp" if flagged else "tn")
        names = ["all", f"lang={row['lang']}", f"channel={row['channel']}"]
        if not attack and row.get("kind") in ("lookalike-tool", "tool-ordinary"):
            names.append("tool look-alikes")
        for name in names:
            groups.setdefault(name, Counter())[key] += 1
    return groups


def precision(c: Counter[str]) -> float:
    return c["tp"] / max(c["tp"] + c["fp"], 1)


def recall(c: Counter[str]) -> float:
    return c["tp"] / max(c["tp"] + c["fn"], 1)


def test_the_dev_split_is_frozen_by_its_manifest() -> None:
    digest, name = (DATA / "dev.sha256").read_text().split()
    assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == digest


def test_dev_has_attacks_and_benign_tool_results_in_every_language() -> None:
    rows = load("dev.jsonl")
    for lang in LANGUAGES:
        mine = [r for r in rows if r["lang"] == lang]
        assert sum(r["label"] == "attack" and r["channel"] == "tool" for r in mine) >= 5, lang
        assert sum(r["label"] == "benign" and r["channel"] == "tool" for r in mine) >= 5, lang


def test_no_planted_instruction_of_dev_is_inside_a_training_text() -> None:
    """Round seven puts an instruction alone and inside carriers; every row made from one
    instruction (and its Traditional conversion) goes to that instruction's split."""
    planted = [r["text"] for r in load("dev.jsonl") if r.get("kind") == "tool-plain"]
    trained = [r["text"] for r in load("train.jsonl")]
    assert len(planted) >= 30
    assert [text for text in planted if any(text in other for other in trained)] == []


@needs_encoder
@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_language_keeps_its_dev_precision_and_recall(lang: str) -> None:
    counts = dev_counts()[f"lang={lang}"]
    assert precision(counts) >= PRECISION_FLOOR, (lang, dict(counts))
    assert recall(counts) >= RECALL_FLOOR, (lang, dict(counts))


@needs_encoder
@pytest.mark.parametrize("channel", ["input", "tool"])
def test_each_channel_keeps_its_dev_precision_and_recall(channel: str) -> None:
    counts = dev_counts()[f"channel={channel}"]
    assert precision(counts) >= PRECISION_FLOOR, (channel, dict(counts))
    assert recall(counts) >= RECALL_FLOOR, (channel, dict(counts))


@needs_encoder
def test_benign_tool_look_alikes_stay_under_their_false_alarm_floor() -> None:
    counts = dev_counts()["tool look-alikes"]
    assert counts["fp"] + counts["tn"] >= 50
    assert counts["fp"] / (counts["fp"] + counts["tn"]) <= LOOKALIKE_FLOOR, dict(counts)
