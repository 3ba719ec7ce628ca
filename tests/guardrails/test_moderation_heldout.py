"""ModerationProcessor offline: the frozen held-out set of threats, harassment and self-harm,
the issue's missed threat, and false alarms on benign text from independent sources."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from procession import ModerationProcessor

DATA = Path(__file__).parent.parent / "data"


def rows(path: Path) -> list[dict[str, str]]:
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


def test_the_moderation_heldout_set_is_frozen_by_its_manifest() -> None:
    digest, name = (DATA / "moderation" / "heldout.sha256").read_text().split()
    assert hashlib.sha256((DATA / "moderation" / name).read_bytes()).hexdigest() == digest


@pytest.mark.parametrize(
    "text",
    [
        "I will find you and kill you tonight.",
        "We're going to track you down.",
        "I swear I'll slit your throat.",
        "You dumb idiot.",
        "I just want to die.",
    ],
)
def test_clear_threats_harassment_and_self_harm_are_flagged(text: str) -> None:
    assert ModerationProcessor().moderate_offline(text).flagged


@pytest.mark.parametrize(
    "text",
    [
        "The court heard he wrote 'I'll find you and kill you' in a letter.",
        "I'll find you a seat near the window.",
        "I'm going to kill this talk tomorrow.",
        "I will beat you at chess this time.",
        "We need to track down the memory leak.",
    ],
)
def test_quoted_threats_and_ordinary_idioms_are_not_flagged(text: str) -> None:
    assert not ModerationProcessor().moderate_offline(text).flagged


def test_heldout_recall_and_false_alarms_meet_the_goal() -> None:
    moderation = ModerationProcessor()
    hits: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for row in rows(DATA / "moderation" / "heldout.jsonl"):
        totals[row["category"]] += 1
        hits[row["category"]] += bool(moderation.moderate_offline(row["text"]).flagged)
    for category in ("threat", "harassment", "self-harm"):
        assert hits[category] / totals[category] >= 0.8, category
    assert hits["lookalike"] / totals["lookalike"] <= 0.05


def test_benign_text_from_independent_sources_is_not_flagged() -> None:
    moderation = ModerationProcessor()
    benign = [r for r in rows(DATA / "injection" / "heldout.jsonl") if r["label"] == "benign"]
    alarms = sum(bool(moderation.moderate_offline(r["text"]).flagged) for r in benign)
    assert alarms / len(benign) <= 0.05
