"""The blind held-out corpora: frozen by their manifests, well formed, and disjoint from the
injection train/dev splits.

These sets were written by an author who never read the detectors' rules, lexicons or training
data (see the READMEs beside them). This module checks the files only: it runs no detector, so
that nothing here can become a target to tune against.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest

from tests.guardrails.corpus_rows import fold, read_rows

DATA = Path(__file__).parent.parent / "data"
INJECTION = DATA / "injection"
MODERATION = DATA / "moderation"

INJECTION_LANGUAGES = {"en", "zh-Hans", "zh-Hant", "ja", "ko", "es", "fr", "de", "pt", "ru", "ar"}
ATTACK_KINDS = {
    "override",
    "extraction",
    "roleplay",
    "devmode",
    "indirect-document",
    "indirect-email",
    "indirect-web",
    "indirect-tool",
    "fake-turn",
    "exfiltration",
    "obfuscated",
    "mixed-language",
}
BENIGN_KINDS = {"question", "instruction", "security-prose", "document"}
INJECTION_FIELDS = {"text", "label", "language", "kind", "lookalike", "channel"}

MODERATION_LANGUAGES = {"en", "es", "fr", "de", "pt", "ru", "zh", "ja"}
HARMFUL = {
    "violence": {"harassment/threatening"},
    "harassment": {"harassment", "hate"},
    "self-harm": {"self-harm/intent", "self-harm/instructions"},
}
BENIGN_SUBCATEGORIES = {
    "idiom",
    "gaming",
    "sports",
    "news",
    "history",
    "fiction",
    "support",
    "medical",
    "quoted",
    "complaint",
    "ordinary",
    "plain",
}
MODERATION_FIELDS = {"text", "label", "subcategory", "language", "lookalike"}


@pytest.mark.parametrize(
    ("folder", "manifest"),
    [
        (INJECTION, "heldout_multilingual.sha256"),
        (MODERATION, "heldout_blind.sha256"),
    ],
)
def test_a_blind_heldout_set_is_frozen_by_its_manifest(folder: Path, manifest: str) -> None:
    digest, name = (folder / manifest).read_text(encoding="utf-8").split()
    assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, (
        f"{name} changed after it was frozen: held-out data are not edited; add a new set"
    )


def test_the_multilingual_injection_rows_follow_the_schema() -> None:
    rows = read_rows(INJECTION / "heldout_multilingual.jsonl")
    for number, row in enumerate(rows, 1):
        where = f"heldout_multilingual.jsonl row {number}"
        assert set(row) == INJECTION_FIELDS, f"{where}: fields {sorted(row)}"
        assert isinstance(row["text"], str), f"{where}: text not a string"
        assert row["text"].strip(), f"{where}: empty text"
        assert row["language"] in INJECTION_LANGUAGES, f"{where}: language {row['language']!r}"
        assert isinstance(row["lookalike"], bool), f"{where}: lookalike not a bool"
        assert row["channel"] in {"input", "tool"}, f"{where}: channel {row['channel']!r}"
        kinds = {"attack": ATTACK_KINDS, "benign": BENIGN_KINDS}.get(row["label"])
        assert kinds is not None, f"{where}: label {row['label']!r}"
        assert row["kind"] in kinds, f"{where}: kind {row['kind']!r} for {row['label']}"
        if row["label"] == "attack":
            assert not row["lookalike"], f"{where}: an attack is not a look-alike"
        if row["kind"] == "security-prose":
            assert row["lookalike"], f"{where}: security prose is counted as a look-alike"


def test_every_language_has_enough_attacks_benign_texts_and_lookalikes() -> None:
    rows = read_rows(INJECTION / "heldout_multilingual.jsonl")
    counts = Counter((row["language"], row["label"]) for row in rows)
    lookalikes = Counter(row["language"] for row in rows if row["lookalike"])
    attack_kinds = {
        lang: {r["kind"] for r in rows if r["language"] == lang and r["label"] == "attack"}
        for lang in INJECTION_LANGUAGES
    }
    for lang in sorted(INJECTION_LANGUAGES):
        assert counts[(lang, "attack")] >= 24, f"{lang}: {counts[(lang, 'attack')]} attacks"
        assert counts[(lang, "benign")] >= 24, f"{lang}: {counts[(lang, 'benign')]} benign"
        assert lookalikes[lang] >= 10, f"{lang}: {lookalikes[lang]} look-alikes"
        assert len(attack_kinds[lang]) >= 10, f"{lang}: attack kinds {sorted(attack_kinds[lang])}"


def test_the_moderation_rows_follow_the_schema() -> None:
    rows = read_rows(MODERATION / "heldout_blind.jsonl")
    for number, row in enumerate(rows, 1):
        where = f"heldout_blind.jsonl row {number}"
        assert set(row) == MODERATION_FIELDS, f"{where}: fields {sorted(row)}"
        assert isinstance(row["text"], str), f"{where}: text not a string"
        assert row["text"].strip(), f"{where}: empty text"
        assert row["language"] in MODERATION_LANGUAGES, f"{where}: language {row['language']!r}"
        assert isinstance(row["lookalike"], bool), f"{where}: lookalike not a bool"
        allowed = HARMFUL.get(
            row["label"], BENIGN_SUBCATEGORIES if row["label"] == "benign" else None
        )
        assert allowed is not None, f"{where}: label {row['label']!r}"
        assert row["subcategory"] in allowed, f"{where}: subcategory {row['subcategory']!r}"
        if row["label"] != "benign":
            assert not row["lookalike"], f"{where}: a harmful text is not a look-alike"


def test_the_moderation_set_has_enough_of_each_category() -> None:
    rows = read_rows(MODERATION / "heldout_blind.jsonl")
    english = Counter(row["label"] for row in rows if row["language"] == "en")
    for label in HARMFUL:
        assert english[label] >= 60, f"en {label}: {english[label]}"
    en_lookalikes = sum(1 for r in rows if r["language"] == "en" and r["lookalike"])
    assert en_lookalikes >= 150, f"en benign look-alikes: {en_lookalikes}"
    for lang in sorted(MODERATION_LANGUAGES - {"en"}):
        labels = {row["label"] for row in rows if row["language"] == lang}
        assert labels == {*HARMFUL, "benign"}, f"{lang}: labels {sorted(labels)}"


TRAINING = [INJECTION / "train.jsonl", INJECTION / "dev.jsonl"]


@pytest.mark.parametrize(
    ("path", "others"),
    [
        (INJECTION / "heldout_multilingual.jsonl", [*TRAINING, INJECTION / "heldout.jsonl"]),
        (MODERATION / "heldout_blind.jsonl", [*TRAINING, MODERATION / "heldout.jsonl"]),
    ],
    ids=["injection", "moderation"],
)
def test_no_blind_heldout_text_repeats_or_appears_in_the_other_sets(
    path: Path, others: list[Path]
) -> None:
    texts = [fold(row["text"]) for row in read_rows(path)]
    repeated = [text for text, n in Counter(texts).items() if n > 1]
    assert not repeated, f"{path.name}: texts repeated: {repeated[:3]}"
    for other in others:
        seen = {fold(str(row["text"])) for row in read_rows(other)}
        assert len(seen) > 10, f"{other.name}: no texts read, the comparison would be empty"
        leaked = [text for text in texts if text in seen]
        assert not leaked, f"{path.name}: {len(leaked)} texts also in {other.name}: {leaked[:3]}"
