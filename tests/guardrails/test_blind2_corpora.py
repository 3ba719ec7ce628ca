"""The second blind held-out sets (``blind2.jsonl``): frozen, well formed, large enough per
language and class, and disjoint from every other file of their folder.

The sets were written by an author who never read the detectors' rules, lexicons, builders or
other data splits (see ``README-blind2.md`` beside each). This module checks the files only: it
runs no detector, so nothing here can become a target to tune against.
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
SOURCE = "corpus2-handwritten"

INJECTION_LANGUAGES = ("en", "zh-Hans", "zh-Hant", "ja", "ko", "es", "fr", "de", "pt", "ru", "ar")
INJECTION_FIELDS = {"text", "label", "lang", "kind", "channel", "lookalike", "source"}
ATTACK_KINDS = {
    "override",
    "extraction",
    "exfiltration",
    "roleplay",
    "devmode",
    "fake-turn",
    "obfuscated",
    "mixed-language",
    "indirect-web",
    "indirect-email",
    "indirect-pdf",
    "indirect-code",
    "indirect-json",
    "indirect-calendar",
}
BENIGN_KINDS = {
    "question",
    "security-prose",
    "tool-output",
    "translation",
    "fiction",
    "complaint",
    "instruction",
}

MODERATION_LANGUAGES = ("en", "de", "fr", "es", "pt", "ru", "zh", "ja", "ko", "ar")
MODERATION_FIELDS = {"text", "lang", "category", "label", "kind", "lookalike", "source"}
HARMFUL_KINDS = {
    "threat": {"person", "place"},
    "harassment": {"person", "group"},
    "self-harm": {"intent", "method"},
}
BENIGN_MODERATION_KINDS = {
    "idiom",
    "gaming",
    "sports",
    "news",
    "history",
    "fiction",
    "medical",
    "support",
    "quote",
    "complaint",
    "lyrics",
    "ordinary",
    "plain",
}


@pytest.mark.parametrize("folder", [INJECTION, MODERATION], ids=["injection", "moderation"])
def test_blind2_is_frozen_by_its_manifest(folder: Path) -> None:
    digest, name = (folder / "blind2.sha256").read_text(encoding="utf-8").split()
    assert name == "blind2.jsonl"
    assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, (
        f"{folder.name}/{name} changed after it was frozen: held-out data are not edited; "
        "add a new set"
    )


def test_the_injection_rows_follow_the_schema() -> None:
    for number, row in enumerate(read_rows(INJECTION / "blind2.jsonl"), 1):
        where = f"injection/blind2.jsonl row {number}"
        assert set(row) == INJECTION_FIELDS, f"{where}: fields {sorted(row)}"
        assert isinstance(row["text"], str), f"{where}: text not a string"
        assert row["text"].strip(), f"{where}: empty text"
        assert row["lang"] in INJECTION_LANGUAGES, f"{where}: lang {row['lang']!r}"
        assert row["channel"] in {"input", "tool"}, f"{where}: channel {row['channel']!r}"
        assert isinstance(row["lookalike"], bool), f"{where}: lookalike not a bool"
        assert row["source"] == SOURCE, f"{where}: source {row['source']!r}"
        kinds = {"attack": ATTACK_KINDS, "benign": BENIGN_KINDS}.get(row["label"])
        assert kinds is not None, f"{where}: label {row['label']!r}"
        assert row["kind"] in kinds, f"{where}: kind {row['kind']!r} for {row['label']}"
        if row["label"] == "attack":
            assert not row["lookalike"], f"{where}: an attack is not a look-alike"
        if row["kind"] == "security-prose":
            assert row["lookalike"], f"{where}: security prose counts as a look-alike"


def test_every_injection_language_has_45_attacks_and_30_benign_texts() -> None:
    rows = read_rows(INJECTION / "blind2.jsonl")
    counts = Counter((row["lang"], row["label"]) for row in rows)
    for lang in INJECTION_LANGUAGES:
        attacks = [r for r in rows if r["lang"] == lang and r["label"] == "attack"]
        benign = [r for r in rows if r["lang"] == lang and r["label"] == "benign"]
        assert counts[(lang, "attack")] >= 45, f"{lang}: {counts[(lang, 'attack')]} attacks"
        assert counts[(lang, "benign")] >= 30, f"{lang}: {counts[(lang, 'benign')]} benign"
        kinds = {r["kind"] for r in attacks}
        assert kinds == ATTACK_KINDS, f"{lang}: attack kinds missing {ATTACK_KINDS - kinds}"
        assert sum(r["lookalike"] for r in benign) >= 20, f"{lang}: too few look-alikes"
        assert any(r["channel"] == "tool" for r in benign), f"{lang}: no benign tool output"
    assert len(rows) >= 825, f"{len(rows)} injection rows"


def test_the_moderation_rows_follow_the_schema() -> None:
    for number, row in enumerate(read_rows(MODERATION / "blind2.jsonl"), 1):
        where = f"moderation/blind2.jsonl row {number}"
        assert set(row) == MODERATION_FIELDS, f"{where}: fields {sorted(row)}"
        assert isinstance(row["text"], str), f"{where}: text not a string"
        assert row["text"].strip(), f"{where}: empty text"
        assert row["lang"] in MODERATION_LANGUAGES, f"{where}: lang {row['lang']!r}"
        assert row["source"] == SOURCE, f"{where}: source {row['source']!r}"
        assert isinstance(row["lookalike"], bool), f"{where}: lookalike not a bool"
        category = row["category"]
        kinds = HARMFUL_KINDS.get(category)
        if category == "benign":
            kinds = BENIGN_MODERATION_KINDS
            assert row["label"] == "pass", f"{where}: benign row labelled {row['label']!r}"
            assert row["lookalike"] == (row["kind"] != "plain"), f"{where}: lookalike flag"
        else:
            assert row["label"] == "flag", f"{where}: harmful row labelled {row['label']!r}"
            assert not row["lookalike"], f"{where}: a harmful text is not a look-alike"
        assert kinds is not None, f"{where}: category {category!r}"
        assert row["kind"] in kinds, f"{where}: kind {row['kind']!r} for {category}"


def test_the_moderation_set_has_enough_of_each_class_and_language() -> None:
    rows = read_rows(MODERATION / "blind2.jsonl")
    counts = Counter(row["category"] for row in rows)
    for category in HARMFUL_KINDS:
        assert counts[category] >= 60, f"{category}: {counts[category]}"
    assert counts["benign"] >= 150, f"benign: {counts['benign']}"
    for lang in MODERATION_LANGUAGES:
        present = {row["category"] for row in rows if row["lang"] == lang}
        assert present == {*HARMFUL_KINDS, "benign"}, f"{lang}: categories {sorted(present)}"
    english = sum(1 for row in rows if row["lang"] == "en")
    assert english > len(rows) / 2, "the set is meant to be mostly English"


def other_texts(path: Path) -> tuple[set[str], str]:
    """The folded row texts of a JSONL file, or the folded whole text of any other file."""
    content = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return {fold(str(row["text"])) for row in read_rows(path)}, ""
    return set(), fold(content)


@pytest.mark.parametrize("folder", [INJECTION, MODERATION], ids=["injection", "moderation"])
def test_no_blind2_text_repeats_or_appears_in_another_file_of_its_folder(folder: Path) -> None:
    texts = [fold(row["text"]) for row in read_rows(folder / "blind2.jsonl")]
    repeated = [text for text, n in Counter(texts).items() if n > 1]
    assert not repeated, f"{folder.name}/blind2.jsonl: texts repeated: {repeated[:3]}"
    others = [
        path
        for path in sorted(folder.iterdir())
        if path.is_file() and not path.name.startswith("blind2") and path.name != "README-blind2.md"
    ]
    assert any(path.suffix == ".jsonl" for path in others), f"{folder}: nothing to compare with"
    for other in others:
        rows, whole = other_texts(other)
        leaked = [text for text in texts if text in rows or (whole and text in whole)]
        assert not leaked, f"{len(leaked)} blind2 texts also in {other.name}: {leaked[:3]}"
