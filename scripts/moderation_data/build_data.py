"""Build the offline moderation head's train and dev data (developers only; CI never builds).

    python scripts/moderation_data/build_data.py
    python scripts/moderation_data/build_data.py --append-more

Writes ``tests/data/moderation/train.jsonl`` from the hand-written examples in
``handwritten.py`` (the offline rules were written against these) and ``dev.jsonl`` from
``devset.py`` (written after the rules, used only to choose thresholds and whether the heads
join the rules); both the project's own, MIT. Rows:
``text``, ``lang``, ``category`` (``threat``, ``harassment``, ``self-harm`` or ``benign``),
``label`` (``flag`` or ``pass``), ``source``. ``heldout.jsonl`` is read only to leave out
any hand-written text that is also in it; a set written apart from this project is never read.
``--append-more`` (re)appends the round-3 rows (``handwritten_more.py`` to train,
``devset_more.py`` to dev) to the round-1/2 rows of the existing files, skipping texts already in
either, and drops every row (old or new) whose folded text (NFKC, case-folded, white space runs as
one space) is that of a row in any held-out or blind file (``heldout*.jsonl``, ``*blind2*``): it
compares SHA-256 digests of the folded texts and prints only how many rows it dropped, so no
held-out text is ever shown.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from devset import DEV  # noqa: E402
from devset_more import DEV_MORE  # noqa: E402
from handwritten import ROWS  # noqa: E402
from handwritten_more import MORE  # noqa: E402

OUT = ROOT / "tests" / "data" / "moderation"


def row(text: str, lang: str, category: str, source: str) -> str:
    """One JSON line."""
    label = "pass" if category == "benign" else "flag"
    item = {"text": text, "lang": lang, "category": category, "label": label, "source": source}
    return json.dumps(item, ensure_ascii=False)


def fold(text: str) -> str:
    """Text compared across files: NFKC, case-folded, white space runs as one space."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def digest(text: str) -> str:
    """The SHA-256 digest of a text's folded form."""
    return hashlib.sha256(fold(text).encode("utf-8")).hexdigest()


def heldout_digests() -> set[str]:
    """Digests of the folded texts of every held-out or blind file (the texts are not kept)."""
    found: set[str] = set()
    for path in sorted(ROOT.joinpath("tests", "data").rglob("*.jsonl")):
        name = path.relative_to(ROOT).as_posix()
        if path.name.startswith("heldout") or "blind2" in name:
            for line in path.read_text(encoding="utf-8").split("\n"):
                if line.strip():
                    found.add(digest(str(json.loads(line)["text"])))
    return found


def append_more() -> None:
    """Re-append the round-3 rows to train.jsonl and dev.jsonl, held-out texts left out."""
    banned, seen, dropped = heldout_digests(), set(), 0
    kept: dict[str, list[str]] = {}
    for name in ("train", "dev"):
        kept[name] = []
        for line in (OUT / f"{name}.jsonl").read_text(encoding="utf-8").split("\n"):
            item = json.loads(line) if line else {"source": "handwritten-3"}
            if item["source"] == "handwritten-3":  # re-appended below
                continue
            if digest(item["text"]) in banned:
                dropped += 1
                continue
            seen.add(fold(item["text"]))
            kept[name].append(line)
    for name, table in (("train", MORE), ("dev", DEV_MORE)):
        lines = []
        for lang, categories in table.items():
            for category, texts in categories.items():
                for text in texts:
                    if digest(text) in banned:
                        dropped += 1
                    elif fold(text) not in seen:
                        seen.add(fold(text))
                        lines.append(row(text, lang, category, "handwritten-3"))
        out = kept[name] + lines
        (OUT / f"{name}.jsonl").write_text("".join(line + "\n" for line in out), "utf-8")
        print(name, "round 3", len(lines), "of", len(out))
    print("dropped (folded text in a held-out or blind file)", dropped)


def main() -> None:
    """Write train.jsonl and dev.jsonl (or, with ``--append-more``, append round 3)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--append-more", action="store_true")
    if parser.parse_args().append_more:
        append_more()
        return
    heldout = {
        json.loads(line)["text"]
        for line in (OUT / "heldout.jsonl").read_text(encoding="utf-8").split("\n")
        if line
    }
    parts: dict[str, list[str]] = {"train": [], "dev": []}
    dropped = 0
    for name, lang, categories in [("train", k, v) for k, v in ROWS.items()] + [
        ("dev", k, v) for k, v in DEV.items()
    ]:
        for category, texts in categories.items():
            for text in texts:
                if text in heldout:  # the held-out set stays out of training, word for word
                    dropped += 1
                    continue
                row = {
                    "text": text,
                    "lang": lang,
                    "category": category,
                    "label": "pass" if category == "benign" else "flag",
                    "source": "handwritten",
                }
                parts[name].append(json.dumps(row, ensure_ascii=False))
    for name, lines in parts.items():
        (OUT / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(name, len(lines))
    print("dropped (in heldout.jsonl)", dropped)


if __name__ == "__main__":
    main()
