"""SystemPromptScrubber on disguised leaks: held-out suites, false positives and 1 MB costs.

Run with ``python bench/bench_prompt_leak.py`` (``--cases N`` per class and strategy,
default 400; ``--quick`` for 40). It prints, on the **held-out** seeds of
``tests/guardrails/prompt_leak_suite.py`` only (never tuned on):

- **leaks**: per class (whitespace, format, emphasis, lookalike, mixture) and strategy
  (``redact``, ``block``), the cases where a run of 20 or more characters of the system
  prompt reached the client through an ``Agent`` stream, and the longest such run.
  Target: 0 cases.
- **altered**: ordinary prose that shares words with the prompt (generated, and real
  standard-library documentation), as a share of sentences the scrubber changed. Target:
  at most 1 %.
- **1 MB**: seconds to stream one megabyte of each kind of text (ordinary English, markdown,
  doubled spaces, Cyrillic, CJK, disguised leaks) through ``process_output_stream`` in
  16-character chunks, median CPU time of 3 runs. Target: at most 0.5 s.

Results also go to ``bench/results/prompt_leak.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.guardrails.prompt_leak_suite import (  # noqa: E402
    CLASSES,
    HELD_OUT_SEEDS,
    PLACEHOLDER,
    PROMPTS,
    case,
    client_text,
    documentation,
    longest_leak,
    prose,
)

from procession import SystemPromptScrubber  # noqa: E402
from procession.chunks import Chunk  # noqa: E402
from procession.guardrails.system_prompt import PromptLeakEngine  # noqa: E402
from procession.messages import MessageList  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "prompt_leak.json"


def leaks(count: int) -> dict[str, dict[str, Any]]:
    """Held-out cases with a run of 20+ prompt characters at the client, per class."""
    found: dict[str, dict[str, Any]] = {}
    for cls, strategy in itertools.product(CLASSES, ("redact", "block")):
        runs = []
        for seed in HELD_OUT_SEEDS[:count]:
            leak = case(seed, cls)
            text = asyncio.run(client_text(leak.prompt, leak.chunks, strategy))
            runs.append(longest_leak(leak, text, PLACEHOLDER if strategy == "redact" else ""))
        found[f"{cls}/{strategy}"] = {
            "cases": count,
            "leaked": sum(r >= 20 for r in runs),
            "longest": max(runs),
        }
    return found


def altered(count: int) -> dict[str, dict[str, Any]]:
    """Share of ordinary sentences changed (held-out prose seeds, held-out documentation)."""
    engine = PromptLeakEngine(PROMPTS, 40)
    generated = [prose(seed) for seed in HELD_OUT_SEEDS[: count * 10]]
    docs = documentation(held_out=True)
    return {
        name: {
            "sentences": len(texts),
            "altered_percent": round(
                100 * sum(bool(engine.scan(t)) for t in texts) / len(texts), 2
            ),
        }
        for name, texts in (("generated prose", generated), ("stdlib documentation", docs))
    }


def texts() -> dict[str, str]:
    """One megabyte of each kind of input."""
    rng = random.Random(5)
    words = (
        " ".join(PROMPTS).split()
        + ["the", "a", "of", "to", "and", "in", "is", "it", "for", "on", "with"] * 20
    )
    english = " ".join(rng.choice(words) for _ in range(200_000))
    markdown = " ".join(
        f"**{w}**" if i % 3 == 0 else f"_{w}_" if i % 3 == 1 else w
        for i, w in enumerate(english.split())
    )
    cyrillic = " ".join(
        rng.choice(["привет", "мир", "ассистент", "правила", "никогда", "код"])
        for _ in range(200_000)
    )
    cjk = "".join(
        rng.choice("系统提示词助手规则从不透露代码日本語の文章です") for _ in range(1_000_000)
    )
    disguised = "".join(case(seed, "mixture").answer for seed in range(2_000, 5_000))
    kinds = {
        "ordinary English": english,
        "markdown emphasis": markdown,
        "doubled spaces": english.replace(" ", "  "),
        "Cyrillic": cyrillic,
        "CJK": cjk,
        "disguised leaks (mixture)": disguised,
    }
    return {name: (text * (1 + 1_000_000 // len(text)))[:1_000_000] for name, text in kinds.items()}


def drive(text: str, size: int = 16) -> float:
    """CPU seconds to stream ``text`` through the scrubber's stream hook."""
    scrubber = SystemPromptScrubber()
    message_list = MessageList()
    message_list.add_system(PROMPTS[0])
    state: dict[str, Any] = {}
    parts = [
        Chunk("text-delta", {"id": "t", "text": text[i : i + size]})
        for i in range(0, len(text), size)
    ]
    hook: Any = scrubber.process_output_stream
    cpu = time.process_time()
    for part in parts:
        hook(part=part, state=state, abort=_abort, message_list=message_list)
    hook(part=Chunk("text-end", {"id": "t"}), state=state, abort=_abort, message_list=message_list)
    return time.process_time() - cpu


def _abort(reason: str | None = None, **_: Any) -> None:
    raise RuntimeError(reason)


def main() -> None:
    """Run the three measures and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=400)
    parser.add_argument("--quick", action="store_true", help="40 cases per class")
    args = parser.parse_args()
    count = 40 if args.quick else args.cases
    results: dict[str, Any] = {"python": sys.version.split()[0], "seeds": "held-out"}
    results["leaks"] = leaks(count)
    print(f"held-out leaks (cases with a run of 20+ prompt characters at the client, of {count}):")
    for name, value in results["leaks"].items():
        print(f"  {name:22} {value['leaked']:4}   longest run {value['longest']}")
    results["altered"] = altered(count)
    print("held-out ordinary text altered:")
    for name, value in results["altered"].items():
        print(f"  {name:22} {value['altered_percent']:.2f} % of {value['sentences']}")
    results["megabyte_cpu_seconds"] = {
        name: round(statistics.median(drive(text) for _ in range(3)), 3)
        for name, text in texts().items()
    }
    print("1 MB in 16-character chunks, CPU seconds (median of 3):")
    for name, seconds in results["megabyte_cpu_seconds"].items():
        print(f"  {name:28} {seconds:.3f}")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
