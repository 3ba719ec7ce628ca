"""Phone-shaped lists: the cost of number-heavy text through the redactors' stream hook.

Run with ``python bench/bench_phones.py`` (``--runs N``). It builds about 1 MB of each kind
of phone-shaped, number-heavy text from random digits (no real numbers):

- **phone lists**: numbers written the ways people write them (``+33 1 42 68 53 00``,
  ``(11) 96169-1286``, ``07886 724201``, ``+1.415.555.0100``, compact), one a line, in
  comma-separated lists and in table rows;
- **identifier lists**: what must not be read as phones (tracking, order, part, lot, serial
  numbers, ISSNs, prices, dates, versions, postal codes), one a line;

and streams each through ``process_output_stream`` of ``PIIDetector`` and
``RegexFilter(presets=["pii", "secrets", "urls"])`` in 16-character chunks, every number
distinct (validation caches cleared before each run). It prints seconds of CPU time per MB
(median of ``--runs``) and how many phone numbers of the phone lists reached the output.
Target (issue 21): at most 0.5 s per MB.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from collections.abc import Callable
from typing import Any

from procession import PIIDetector, RegexFilter
from procession.chunks import Chunk
from procession.guardrails._redaction.detectors import clear_validation_cache
from procession.guardrails._redaction.redacting import RedactingProcessor

SHAPES = (
    "+33 {1} {2} {2} {2} {2}", "+33.{1}.{2}.{2}.{2}.{2}", "+44 {2} {4} {4}", "0{4} {6}",
    "({2}) 9{4}-{4}", "+55 {2} 9{4}-{4}", "+1 {3}-{3}-{4}", "({3}) {3}-{4}", "+1.{3}.{3}.{4}",
    "+49 {3} {7}", "0{3} {7}", "+81 {2}-{4}-{4}", "0{2}-{4}-{4}", "+86 1{2} {4} {4}",
    "1{10}", "0{9}", "+7 {3} {3}-{2}-{2}", "8 ({3}) {3}-{2}-{2}", "+91 9{4} {5}",
    "+61 4{2} {3} {3}", "+34 6{2} {3} {3}", "+39 3{2} {3} {4}", "+31 6 {8}", "0{3}/{7}",
)  # fmt: skip
IDENTIFIERS = (
    "tracking: 1Z{6}{10}", "Order #{3}-{7}-{7}", "P/N {4}-{4}-{2} rev C", "LOT 20{2}-{4}-B",
    "Serial No. {2}X{8}", "ISSN {4}-{4}", "Total: {4},{2} EUR", "2026-{2}-{2}T{2}:{2}:00Z",
    "Version {2}.{1}.{2}.{4}", "{5} Berlin", "DHL Sendungsnummer {10}", "IMEI: {15}",
    "FedEx tracking: {12}", "Invoice INV-{10} due {2}/12", "ISBN 978-{1}-{5}-{3}-{1}",
)  # fmt: skip
FIELD = re.compile(r"\{(\d+)\}")


def fill(shape: str, rng: random.Random) -> str:
    """``shape`` with each ``{n}`` replaced by ``n`` random digits."""
    return FIELD.sub(lambda m: "".join(rng.choice("0123456789") for _ in range(int(m[1]))), shape)


def phone_lists(rng: random.Random, size: int = 1_000_000) -> tuple[str, list[str]]:
    """About ``size`` characters of phone lists, and the phone numbers in them."""
    out: list[str] = []
    phones: list[str] = []
    total = 0
    while total < size:
        batch = [fill(rng.choice(SHAPES), rng) for _ in range(rng.randint(3, 8))]
        phones.extend(batch)
        layout = rng.random()
        if layout < 0.5:
            text = "\n".join(batch) + "\n"
        elif layout < 0.75:
            text = "Numbers: " + ", ".join(batch) + ".\n"
        else:
            text = "".join(f"| contact {i} | {p} |\n" for i, p in enumerate(batch))
        out.append(text)
        total += len(text)
    return "".join(out), phones


def identifier_lists(rng: random.Random, size: int = 1_000_000) -> str:
    """About ``size`` characters of identifiers, one a line."""
    out: list[str] = []
    total = 0
    while total < size:
        line = fill(rng.choice(IDENTIFIERS), rng) + "\n"
        out.append(line)
        total += len(line)
    return "".join(out)


def stream(processor: RedactingProcessor, text: str, chunk: int = 16) -> tuple[float, str]:
    """CPU seconds to stream ``text`` through the output hook, and the released text."""
    clear_validation_cache()
    state: dict[str, Any] = {}
    released: list[str] = []
    hook: Any = processor.process_output_stream

    def abort(*_: Any, **__: Any) -> None:
        raise RuntimeError("abort")

    parts = [
        Chunk("text-delta", {"id": "t", "text": text[i : i + chunk]})
        for i in range(0, len(text), chunk)
    ]
    parts.append(Chunk("text-end", {"id": "t"}))
    started = time.process_time()
    for part in parts:
        out = hook(part=part, state=state, abort=abort)
        for item in out if isinstance(out, list) else [out]:
            if isinstance(item, Chunk) and item.type == "text-delta":
                released.append(item.payload.get("text", ""))
    return time.process_time() - started, "".join(released)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(21)
    phones_text, phones = phone_lists(rng)
    texts = {"phone lists": phones_text, "identifier lists": identifier_lists(rng)}
    redactors: dict[str, Callable[[], RedactingProcessor]] = {
        "PIIDetector": PIIDetector,
        "RegexFilter": lambda: RegexFilter(presets=["pii", "secrets", "urls"], strategy="redact"),
    }
    print("| text | redactor | s per MB (CPU) | phone numbers reaching the output |")
    print("| --- | --- | --- | --- |")
    for kind, text in texts.items():
        megabytes = len(text.encode("utf-8")) / 1e6
        for name, make in redactors.items():
            samples = [stream(make(), text) for _ in range(args.runs)]
            seconds = statistics.median(s for s, _ in samples) / megabytes
            note = ""
            if kind == "phone lists":
                digits = re.sub(r"[^0-9\n]+", "", samples[0][1].replace("|", "\n"))
                leaked = sum(1 for p in phones if re.sub(r"\D", "", p) in digits)
                note = f"{leaked} of {len(phones)}"
            print(f"| {kind} | {name} | {seconds:.2f} | {note} |")


if __name__ == "__main__":
    main()
