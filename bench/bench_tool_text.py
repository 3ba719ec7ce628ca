"""DEV figures: the injection detector on dev tool results wrapped as structured output.

    PYTHONPATH=src python bench/bench_tool_text.py [--dev PATH] [--limit N]

Every ``channel == "tool"`` row of ``tests/data/injection/dev.jsonl`` (DEV: the split the
head was fitted on, never a held-out file) is wrapped the ways a tool returns text — a JSON
document (``ensure_ascii``: ``\\n`` and ``\\u`` escapes), an HTML page (the text in a hidden
``<div>`` and a comment), an e-mail (quoted-printable), a PDF extraction (lines wrapped at
60 characters, words hyphenated over the breaks) and a CSV row — and scored with the
extraction of decision 0324 and without it (the raw text read as before). Prints recall on
attacks and false alarms on benign rows per wrapping.
"""

from __future__ import annotations

import argparse
import json
import quopri
from collections.abc import Callable
from pathlib import Path

from procession import PromptInjectionDetector
from procession.guardrails._injection.injection_rules import InjectionScan, scan

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "tests" / "data" / "injection" / "dev.jsonl"


def as_json(text: str) -> str:
    """A search tool's JSON answer holding ``text``."""
    doc = {"status": 200, "results": [{"rank": 1, "title": "Result", "snippet": text}]}
    return json.dumps(doc, ensure_ascii=True)


def as_html(text: str) -> str:
    """A page with ``text`` in a hidden element and a comment."""
    half = len(text) // 2
    return (
        "<html><head><title>Shop</title><style>.x{display:none}</style></head><body>"
        f"<h1>Welcome</h1><p>Our offers.</p><div class='x'>{text[:half]}</div>"
        f"<!-- {text[half:]} --></body></html>"
    )


def as_mail(text: str) -> str:
    """An e-mail with ``text`` as its quoted-printable body."""
    body = quopri.encodestring(text.encode("utf-8")).decode("ascii")
    return (
        "From: sender@example.com\nTo: you@example.com\nSubject: Update\n"
        'MIME-Version: 1.0\nContent-Type: text/plain; charset="utf-8"\n'
        f"Content-Transfer-Encoding: quoted-printable\n\n{body}\n"
    )


def as_pdf(text: str) -> str:
    """``text`` wrapped at 60 characters, words cut with a hyphen over the breaks."""
    lines, line = [], ""
    for word in text.split(" "):
        if len(line) + len(word) > 60 and len(word) > 6 and line:
            cut = len(word) // 2
            lines.append(f"{line} {word[:cut]}-")
            line = word[cut:]
        elif len(line) + len(word) > 60:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join([*lines, line])


def as_csv(text: str) -> str:
    """A two-row CSV table with ``text`` in a cell."""
    cell = text.replace('"', '""')
    return f'id,customer,comment\n1,Ada,"Fine, thanks"\n2,Bob,"{cell}"\n'


WRAPS: dict[str, Callable[[str], str]] = {
    "plain": lambda text: text,
    "json": as_json,
    "html": as_html,
    "email": as_mail,
    "pdf": as_pdf,
    "csv": as_csv,
}


class RawDetector(PromptInjectionDetector):
    """The detector as it was before decision 0324: a tool result read as raw text."""

    def _tool_scan(self, text: str) -> tuple[str, InjectionScan]:
        return text, scan(text, "tool", decode=self.decode)


def main() -> None:
    """Print recall and false alarms per wrapping, with and without the extraction."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--dev", type=Path, default=DEV)
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.dev.read_text().split("\n") if line.strip()]
    rows = [row for row in rows if row.get("channel") == "tool"]
    if args.limit:
        rows = rows[: args.limit]
    detectors = {"raw": RawDetector(), "extracted": PromptInjectionDetector()}
    print(f"DEV tool rows: {len(rows)} ({sum(r['label'] == 'attack' for r in rows)} attacks)")
    print(f"{'wrap':8} {'raw recall / FA':>20} {'extracted recall / FA':>24}")
    for name, wrap in WRAPS.items():
        cells = []
        for detector in detectors.values():
            tp = fp = attacks = benign = 0
            for row in rows:
                flagged = detector.detect_offline(wrap(row["text"]), "tool").flagged
                if row["label"] == "attack":
                    attacks, tp = attacks + 1, tp + flagged
                else:
                    benign, fp = benign + 1, fp + flagged
            cells.append(f"{tp / max(attacks, 1):.3f} / {100 * fp / max(benign, 1):4.1f} %")
        print(f"{name:8} {cells[0]:>20} {cells[1]:>24}")


if __name__ == "__main__":
    main()
