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
``--append-more`` appends the round-3 rows (``handwritten_more.py`` to train, ``devset_more.py``
to dev) to the existing files, skipping texts already in either, and reads no held-out file.
"""

from __future__ import annotations

import argparse
import json
import sys
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


def append_more() -> None:
    """Append the round-3 rows to train.jsonl and dev.jsonl (no held-out file is read)."""
    seen = set()
    for name in ("train", "dev"):
        for line in (OUT / f"{name}.jsonl").read_text(encoding="utf-8").split("\n"):
            if line:
                seen.add(json.loads(line)["text"])
    for name, table in (("train", MORE), ("dev", DEV_MORE)):
        lines = []
        for lang, categories in table.items():
            for category, texts in categories.items():
                for text in texts:
                    if text not in seen:
                        seen.add(text)
                        lines.append(row(text, lang, category, "handwritten-3"))
        with (OUT / f"{name}.jsonl").open("a", encoding="utf-8") as out:
            out.write("".join(line + "\n" for line in lines))
        print(name, "appended", len(lines))


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
