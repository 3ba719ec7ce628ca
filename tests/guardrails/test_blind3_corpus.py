"""The third blind prompt-injection set (``tests/data/injection/blind3.jsonl``): frozen, well
formed, large enough per language, channel and class, and disjoint from every other file of its
folder.

The set was written by an author who never read the detector's code, rules, lexicons, builders
or the other data splits (``README-blind3.md``). This module checks the file only: it runs no
detector, so nothing here can become a target to tune against. Other files' texts are compared
by digest and never printed.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.guardrails.corpus_rows import digest, fold, read_rows

DATA = Path(__file__).parent.parent / "data"
FOLDER = DATA / "injection"
BLIND3 = FOLDER / "blind3.jsonl"
SOURCE = "corpus3-handwritten"
LANGUAGES = ("en", "zh-Hans", "zh-Hant", "ja", "ko", "es", "fr", "de", "pt", "ru", "ar")
FIELDS = {"text", "label", "lang", "kind", "channel", "lookalike", "source"}
ATTACK_TOOL_KINDS = {
    "tool-json",
    "tool-html",
    "tool-email",
    "tool-pdf",
    "tool-csv",
    "tool-code",
    "tool-readme",
    "tool-calendar",
    "tool-search",
    "tool-review",
}
ATTACK_INPUT_KINDS = {
    "override",
    "extraction",
    "exfiltration",
    "tool-misuse",
    "persona",
    "obfuscated",
    "polite",
    "mixed-language",
}
BENIGN_TOOL_KINDS = {
    "lookalike-cve",
    "lookalike-training",
    "lookalike-changelog",
    "lookalike-config",
    "lookalike-code",
    "imperative-email",
    "imperative-install",
    "imperative-recipe",
    "imperative-terms",
    "imperative-apidocs",
    "imperative-review",
    "imperative-csv",
    "imperative-calendar",
}
BENIGN_INPUT_KINDS = {"lookalike-question", "fiction", "complaint", "plain"}
BENIGN_EITHER_KINDS = {"lookalike-article", "lookalike-training", "lookalike-cve", "translation"}


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return read_rows(BLIND3)


def test_blind3_is_frozen_by_its_manifest() -> None:
    digest_hex, name = (FOLDER / "blind3.sha256").read_text(encoding="utf-8").split()
    assert name == "blind3.jsonl"
    assert hashlib.sha256(BLIND3.read_bytes()).hexdigest() == digest_hex, (
        "injection/blind3.jsonl changed after it was frozen: held-out data are not edited; "
        "add a new set"
    )


def kinds_for(label: str, channel: str) -> set[str]:
    """The kinds a row of ``label`` read on ``channel`` may carry."""
    if label == "attack":
        return ATTACK_TOOL_KINDS if channel == "tool" else ATTACK_INPUT_KINDS
    if channel == "tool":
        return BENIGN_TOOL_KINDS | BENIGN_EITHER_KINDS
    return BENIGN_INPUT_KINDS | BENIGN_EITHER_KINDS


def test_every_row_follows_the_schema(rows: list[dict[str, Any]]) -> None:
    for number, row in enumerate(rows, 1):
        where = f"injection/blind3.jsonl row {number}"
        assert set(row) == FIELDS, f"{where}: fields {sorted(row)}"
        assert isinstance(row["text"], str), f"{where}: text not a string"
        assert row["text"].strip(), f"{where}: empty text"
        assert row["lang"] in LANGUAGES, f"{where}: lang {row['lang']!r}"
        assert row["label"] in {"attack", "benign"}, f"{where}: label {row['label']!r}"
        assert row["channel"] in {"input", "tool"}, f"{where}: channel {row['channel']!r}"
        assert row["source"] == SOURCE, f"{where}: source {row['source']!r}"
        allowed = kinds_for(row["label"], row["channel"])
        assert row["kind"] in allowed, f"{where}: kind {row['kind']!r} on {row['channel']}"
        # every benign text but the plain questions is a look-alike; an attack never is
        expected = row["label"] == "benign" and row["kind"] != "plain"
        assert row["lookalike"] is expected, f"{where}: lookalike {row['lookalike']!r}"


def test_every_language_has_40_attacks_and_40_benign_with_tool_results(
    rows: list[dict[str, Any]],
) -> None:
    counts = Counter((r["lang"], r["label"], r["channel"]) for r in rows)
    for lang in LANGUAGES:
        attacks = counts[(lang, "attack", "input")] + counts[(lang, "attack", "tool")]
        benign = counts[(lang, "benign", "input")] + counts[(lang, "benign", "tool")]
        assert attacks >= 40, f"{lang}: {attacks} attacks"
        assert benign >= 40, f"{lang}: {benign} benign texts"
        assert counts[(lang, "benign", "tool")] * 2 >= benign, f"{lang}: benign tool < half"
        attack_kinds = {r["kind"] for r in rows if r["lang"] == lang and r["label"] == "attack"}
        missing = (ATTACK_INPUT_KINDS | (ATTACK_TOOL_KINDS - {"tool-readme"})) - attack_kinds
        assert not missing, f"{lang}: attack kinds missing {sorted(missing)}"
    assert len(rows) >= 880, f"{len(rows)} rows"


def test_at_least_40_percent_of_the_attacks_hide_in_tool_results(
    rows: list[dict[str, Any]],
) -> None:
    attacks = [r for r in rows if r["label"] == "attack"]
    on_tool = sum(r["channel"] == "tool" for r in attacks)
    assert on_tool * 10 >= 4 * len(attacks), f"{on_tool} of {len(attacks)} attacks on tool"


def test_no_text_is_repeated_within_the_set(rows: list[dict[str, Any]]) -> None:
    seen: dict[str, int] = {}
    for number, row in enumerate(rows, 1):
        key = digest(row["text"])
        assert key not in seen, f"blind3 rows {seen[key]} and {number} hold the same text"
        seen[key] = number


def other_texts(path: Path) -> set[str]:
    """Digests of the ``text`` of every row of another JSON-lines file."""
    return {digest(str(row.get("text", ""))) for row in read_rows(path)}


def test_no_text_appears_in_any_other_file_of_the_folder(rows: list[dict[str, Any]]) -> None:
    ours = {digest(r["text"]): n for n, r in enumerate(rows, 1)}
    others = sorted(p for p in FOLDER.iterdir() if p.is_file() and not p.name.startswith("blind3"))
    others.append(DATA / "prompt_injection.jsonl")  # the project's own examples, train only
    assert any(p.suffix == ".jsonl" for p in others), "the folder's other sets are missing"
    for path in others:
        if path.suffix == ".jsonl":
            shared = ours.keys() & other_texts(path)
            numbers = sorted(ours[d] for d in shared)
            assert not numbers, f"blind3 rows {numbers} also appear in {path.name}"
            continue
        content = fold(path.read_text(encoding="utf-8"))
        numbers = [n for n, r in enumerate(rows, 1) if fold(r["text"]) in content]
        assert not numbers, f"blind3 rows {numbers} also appear in {path.name}"
