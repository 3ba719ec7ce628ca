"""Redaction speed per kind of input: 1 MB of each input through each redactor's stream hook.

Run with ``python bench/bench_redaction_inputs.py`` (``--runs N``, ``--chunks 16 5``,
``--redactor NAME``, ``--input NAME``). Inputs, each about 1 MB (10**6 characters) of its texts
joined by new lines and repeated:

- ``prose``, ``code``, ``identifiers`` (number-heavy: tracking, order, part and serial numbers),
  ``config-logs``: one category each of the guardrail_eval **dev** ordinary corpus;
- ``ordinary``: the whole dev ordinary corpus;
- ``numbers``: ``tests/data/ordinary_numbers.jsonl`` (a number in every sentence);
- hostile inputs, built here, each 10**6 characters: ``digits`` (digits only, one line),
  ``digits-spaced`` (digit groups and spaces), ``base64`` (no whitespace), ``at-dots`` (one
  line of ``a@b.`` repeats), ``key-eq`` (``key=`` repeats), ``hex`` (one long hex string),
  ``json-escapes`` (JSON with ``\\n`` escapes), ``cjk`` (CJK prose), ``emoji``, and the
  number-heavy shapes: ``digit-list`` (numbers of 1-16 digits in comma lists and lines),
  ``phone-list`` (random numbers in phone shapes, one a line, in lists and table rows),
  ``date-times`` (``2026 1202 1430``, ISO dates and times, ms times), ``table-numbers``
  (markdown tables of digit groups), ``json-numbers`` (JSON with escaped line breaks before
  digit groups) and ``base64-lines`` (76-character base64 lines, as in a PEM body). No input class
  may cost more than linear time: these are the shapes where a held candidate, a backtracking
  pattern or a validator could grow with the line.

The hook is called as the runner calls it (``hook(part=..., state=..., abort=...)``), the
validation caches cleared before each run. Each cell is the median CPU seconds
(``time.process_time``) of ``--runs`` runs. Target: at most 0.5 s for every cell.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from guardrail_eval.harness import load
from procession import PIIDetector, RegexFilter, StreamRedactor, SystemPromptScrubber
from procession.chunks import Chunk
from procession.guardrails._redaction.detectors import clear_validation_cache
from procession.guardrails._redaction.redacting import RedactingProcessor
from procession.messages import MessageList

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
PROMPT = "You are Orbit, the support agent of Acme Corp. Never reveal the discount code ZEBRA-42."

REDACTORS: dict[str, Callable[[], RedactingProcessor]] = {
    "StreamRedactor": StreamRedactor,
    "RegexFilter": lambda: RegexFilter(presets=["pii", "secrets", "urls"], strategy="redact"),
    "PIIDetector": PIIDetector,
    "SystemPromptScrubber": SystemPromptScrubber,
}


def megabyte(texts: list[str]) -> str:
    """About 10**6 characters of ``texts`` joined by new lines and repeated."""
    text = "\n".join(texts)
    return (text * (1 + 1_000_000 // len(text)))[:1_000_000]


def inputs() -> dict[str, str]:
    """Every input by name."""
    ordinary = load("dev", "ordinary")
    out = {
        c: megabyte([i["text"] for i in ordinary if i["category"] == c])
        for c in ("prose", "code", "identifiers", "config-logs")
    }
    out["ordinary"] = megabyte([i["text"] for i in ordinary])
    rows = (DATA / "ordinary_numbers.jsonl").read_text(encoding="utf-8").splitlines()
    out["numbers"] = megabyte([json.loads(r)["text"] for r in rows if r.strip()])
    out.update(hostile())
    return out


def hostile() -> dict[str, str]:
    """The hostile inputs (see the module doc), each exactly 10**6 characters."""
    rng = random.Random(21)
    size = 1_000_000
    digits = "".join(rng.choice("0123456789") for _ in range(size))
    spaced = "".join(c if i % 5 else " " for i, c in enumerate(digits))
    alphabet = string.ascii_letters + string.digits + "+/"
    base64 = "".join(rng.choice(alphabet) for _ in range(size))
    hexdigits = "".join(rng.choice("0123456789abcdef") for _ in range(size))
    record = json.dumps({"log": "line one\nline two\n\tindented: value=42\n", "id": 7})
    prose = "这是一个普通的句子\uff0c没有任何秘密。日本語の文章も含まれています。"
    prose += "한국어 문장입니다. "
    emoji = "Great work 🎉🚀 thanks 👍🏽 see you 😀 ❤️ "
    return {
        "digits": digits,
        "digits-spaced": spaced,
        "base64": base64,
        "at-dots": ("a@b." * size)[:size],
        "key-eq": ("key=" * size)[:size],
        "hex": hexdigits,
        "json-escapes": megabyte([record]),
        "cjk": megabyte([prose]),
        "emoji": megabyte([emoji]),
        **number_shapes(random.Random(22)),
    }


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def number_shapes(rng: random.Random) -> dict[str, str]:
    """The number-heavy hostile inputs: where phone, id and card candidates are densest."""
    shapes = (
        "+{2} {3} {3} {4}", "0{4} {6}", "({2}) 9{4}-{4}", "+{1}.{3}.{3}.{4}", "{3}-{3}-{4}",
        "0{2}-{4}-{4}", "+{2} {2} {4} {4}", "{10}", "0{3}/{7}", "{3} {2} {2} {3}",
    )  # fmt: skip

    def shaped(shape: str) -> str:
        return re.sub(r"\{(\d+)\}", lambda m: _digits(rng, int(m.group(1))), shape)

    phones = [shaped(rng.choice(shapes)) for _ in range(4000)]
    rows = [", ".join(phones[i : i + 4]) for i in range(0, 4000, 4)]
    rows += ["| " + " | ".join(phones[i : i + 3]) + " |" for i in range(0, 3000, 3)]
    numbers = [_digits(rng, rng.randint(1, 16)) for _ in range(20000)]
    dates = []
    for _ in range(5000):
        y, mo, d = rng.randint(2000, 2030), rng.randint(1, 12), rng.randint(1, 28)
        h, mi = rng.randint(0, 23), rng.randint(0, 59)
        forms = [
            f"{y} {mo:02d}{d:02d} {h:02d}{mi:02d}",
            f"{y}-{mo:02d}-{d:02d}",
            f"{y}{mo:02d}{d:02d} {h:02d}{mi:02d}00",
            f"{h:02d}:{mi:02d}",
            str(rng.randint(1_400_000_000_000, 1_900_000_000_000)),
        ]
        dates.append(rng.choice(forms))
    cells = [
        "| " + " | ".join(_digits(rng, rng.randint(2, 5)) for _ in range(6)) + " |"
        for _ in range(3000)
    ]
    record = [
        json.dumps({"note": "row\n" + " ".join(_digits(rng, 4) for _ in range(4)), "n": i})
        for i in range(3000)
    ]
    alphabet = string.ascii_letters + string.digits + "+/"
    pem = ["".join(rng.choice(alphabet) for _ in range(76)) for _ in range(2000)]
    return {
        "digit-list": megabyte([", ".join(numbers[i : i + 12]) for i in range(0, 20000, 12)]),
        "phone-list": megabyte(phones + rows),
        "date-times": megabyte([" ".join(dates[i : i + 5]) for i in range(0, 5000, 5)]),
        "table-numbers": megabyte(cells),
        "json-numbers": megabyte(record),
        "base64-lines": megabyte(pem),
    }


def abort(reason: str | None = None, **_: Any) -> None:
    """The abort the hook is handed: an abort here is a failure of the bench."""
    raise RuntimeError(reason)


def drive(processor: RedactingProcessor, text: str, size: int) -> float:
    """CPU seconds to stream ``text`` in ``size``-character chunks through the hook."""
    clear_validation_cache()
    message_list = MessageList()
    message_list.add_system(PROMPT)
    state: dict[str, Any] = {}
    hook: Any = processor.process_output_stream
    extra: dict[str, Any] = {}
    if isinstance(processor, SystemPromptScrubber):
        extra["message_list"] = message_list
    parts = [
        Chunk("text-delta", {"id": "t", "text": text[i : i + size]})
        for i in range(0, len(text), size)
    ]
    parts.append(Chunk("text-end", {"id": "t"}))
    started = time.process_time()
    for part in parts:
        hook(part=part, state=state, abort=abort, **extra)
    return time.process_time() - started


def main() -> None:
    """Print a table: one row per redactor and chunk size, one column per input."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--chunks", type=int, nargs="+", default=[16, 5])
    parser.add_argument("--redactor", action="append", choices=sorted(REDACTORS))
    parser.add_argument("--input", action="append", default=None)
    args = parser.parse_args()
    texts = inputs()
    names = args.input or list(texts)
    print("| redactor | chunk | " + " | ".join(names) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in names) + " |")
    for redactor in args.redactor or list(REDACTORS):
        make = REDACTORS[redactor]
        for size in args.chunks:
            cells = [
                statistics.median(drive(make(), texts[n], size) for _ in range(args.runs))
                for n in names
            ]
            print(f"| {redactor} | {size} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")


if __name__ == "__main__":
    main()
