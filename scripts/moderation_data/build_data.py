"""Build the offline moderation head's train and dev data (developers only; CI never builds).

    python scripts/moderation_data/build_data.py

Writes ``tests/data/moderation/train.jsonl`` from the hand-written examples in
``handwritten.py`` (the offline rules were written against these) and ``dev.jsonl`` from
``devset.py`` (written after the rules, used only to choose thresholds and whether the heads
join the rules); both the project's own, MIT. Rows:
``text``, ``lang``, ``category`` (``threat``, ``harassment``, ``self-harm`` or ``benign``),
``label`` (``flag`` or ``pass``), ``source``. ``heldout.jsonl`` is read only to leave out
any hand-written text that is also in it; a set written apart from this project is never read.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from devset import DEV  # noqa: E402
from handwritten import ROWS  # noqa: E402

OUT = ROOT / "tests" / "data" / "moderation"


def main() -> None:
    """Write train.jsonl and dev.jsonl."""
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
