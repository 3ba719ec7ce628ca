"""Held-out figures of the offline guardrails on the second blind sets (issue 21).

Measures, on text nobody tuned them to:

- ``PromptInjectionDetector`` (offline default; ``--rules-too`` adds ``classifier=False``) on
  ``tests/data/injection/blind2.jsonl``: precision, recall and false alarms on benign text per
  language and overall, false alarms on benign look-alikes separately (per kind too), recall
  per attack kind and per channel, and CPU milliseconds per message;
- ``ModerationProcessor`` (offline default) on ``tests/data/moderation/blind2.jsonl``: recall
  per harmful class (threat, harassment, self-harm), false alarms on benign look-alikes and on
  plain text, per language and per kind.

Each text goes through the processor's documented hook (``process_input`` for ``input`` rows,
``process_tool_result`` for ``tool`` rows) with ``strategy="block"``, called with the keyword
arguments the hook declares, as the runner does (D19); a text is flagged when the hook aborts.
Prints markdown tables and writes JSON (``--out``). Run once, after merging:

    PYTHONPATH=src python bench/blind2_eval.py
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
INJECTION = ROOT / "tests" / "data" / "injection" / "blind2.jsonl"
MODERATION = ROOT / "tests" / "data" / "moderation" / "blind2.jsonl"
OUT = ROOT / "bench" / "results" / "blind2_eval.json"
HARMFUL = ("threat", "harassment", "self-harm")


class BlockedError(Exception):
    """Raised by the evaluation's ``abort``: the processor blocked the text."""

    def __init__(self, reason: str, metadata: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.metadata = metadata


def abort(reason: str = "", *_: Any, metadata: Any = None, **__: Any) -> None:
    """The ``abort`` callable handed to the hooks: it records the block by raising."""
    raise BlockedError(reason, metadata)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of ``path``; a bad line fails with its number."""
    out: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise SystemExit(f"{path}:{number}: not JSON: {exc}") from exc
    return out


def call_hook(hook: Callable[..., Any], offered: dict[str, Any], runner: asyncio.Runner) -> Any:
    """Call ``hook`` with the offered keywords it declares (all of them if it takes ``**``)."""
    params = inspect.signature(hook).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        kwargs = offered
    else:
        kwargs = {name: value for name, value in offered.items() if name in params}
    result = hook(**kwargs)
    if inspect.isawaitable(result):
        result = runner.run(_await(result))
    return result


async def _await(awaitable: Any) -> Any:
    return await awaitable


def verdict(
    processor: Any, text: str, channel: str, runner: asyncio.Runner
) -> tuple[bool, str, float]:
    """(flagged, reason, CPU ms) for one text read on ``channel`` (``input`` or ``tool``)."""
    from procession import MessageList

    message_list = MessageList([text])
    offered: dict[str, Any] = {"message_list": message_list, "abort": abort, "state": {}}
    if channel == "tool":
        hook = processor.process_tool_result
        offered.update(tool_name="fetch_document", tool_call_id="call-blind2", args={}, result=text)
    else:
        hook = processor.process_input
        offered.update(messages=message_list.get.input.db())
    start = time.process_time()
    try:
        call_hook(hook, offered, runner)
    except BlockedError as flagged:
        return True, flagged.reason, (time.process_time() - start) * 1000
    return False, "", (time.process_time() - start) * 1000


@dataclass
class Tally:
    """Counts of one group: attacks/harmful caught and missed, benign flagged and passed."""

    tp: int = 0
    fn: int = 0
    fp: int = 0
    tn: int = 0
    ms: list[float] = field(default_factory=list)

    def add(self, positive: bool, flagged: bool, ms: float) -> None:
        """Count one row."""
        if positive:
            self.tp, self.fn = self.tp + flagged, self.fn + (not flagged)
        else:
            self.fp, self.tn = self.fp + flagged, self.tn + (not flagged)
        self.ms.append(ms)

    def figures(self) -> dict[str, Any]:
        """Precision, recall, false-alarm rate and mean ms (``None`` where undefined)."""
        flagged, positives, negatives = self.tp + self.fp, self.tp + self.fn, self.fp + self.tn
        return {
            "n": positives + negatives,
            "positives": positives,
            "negatives": negatives,
            "tp": self.tp,
            "fn": self.fn,
            "fp": self.fp,
            "tn": self.tn,
            "precision": self.tp / flagged if flagged else None,
            "recall": self.tp / positives if positives else None,
            "false_alarm_rate": self.fp / negatives if negatives else None,
            "ms_per_message": sum(self.ms) / len(self.ms) if self.ms else None,
        }


def evaluate(
    processor: Any,
    rows: Iterable[dict[str, Any]],
    positive: Callable[[dict[str, Any]], bool],
    groups: Callable[[dict[str, Any]], list[str]],
) -> dict[str, dict[str, Any]]:
    """Run every row through ``processor``; figures for each group a row belongs to."""
    tallies: dict[str, Tally] = defaultdict(Tally)
    with asyncio.Runner() as runner:  # one event loop for the whole set, not one per message
        for row in rows:
            flagged, _, ms = verdict(processor, row["text"], row.get("channel", "input"), runner)
            for group in ["all", *groups(row)]:
                tallies[group].add(positive(row), flagged, ms)
    return {group: tally.figures() for group, tally in sorted(tallies.items())}


def injection_groups(row: dict[str, Any]) -> list[str]:
    """The groups an injection row is counted in."""
    out = [f"lang:{row['lang']}", f"channel:{row['channel']}", f"kind:{row['kind']}"]
    if row["lookalike"]:
        out += ["lookalikes", f"lookalikes:{row['lang']}"]
    return out


def moderation_groups(row: dict[str, Any]) -> list[str]:
    """The groups a moderation row is counted in."""
    category = row["category"]
    out = [f"category:{category}", f"lang:{row['lang']}", f"kind:{category}/{row['kind']}"]
    if category in HARMFUL:
        out.append(f"category:{category}:lang:{row['lang']}")
    else:
        out.append("lookalikes" if row["lookalike"] else "plain")
    return out


def pct(value: float | None) -> str:
    """A rate as a percentage, ``—`` when undefined."""
    return "—" if value is None else f"{100 * value:.1f} %"


def num(value: float | None) -> str:
    """A ratio with three decimals, ``—`` when undefined."""
    return "—" if value is None else f"{value:.3f}"


def injection_table(name: str, figures: dict[str, dict[str, Any]]) -> str:
    """Markdown: per group precision / recall / false alarms / ms."""
    lines = [
        f"### PromptInjectionDetector, {name}",
        "",
        "| group | n (attacks) | precision | recall | false alarms on benign | ms / message |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for group, f in figures.items():
        ms = "—" if f["ms_per_message"] is None else f"{f['ms_per_message']:.2f}"
        lines.append(
            f"| {group} | {f['n']} ({f['positives']}) | {num(f['precision'])} | "
            f"{num(f['recall'])} | {pct(f['false_alarm_rate'])} ({f['fp']}/{f['negatives']}) "
            f"| {ms} |"
        )
    return "\n".join(lines)


def moderation_table(name: str, figures: dict[str, dict[str, Any]]) -> str:
    """Markdown: recall on harmful groups, false alarms on benign ones."""
    lines = [
        f"### ModerationProcessor, {name}",
        "",
        "| group | n | recall (harmful) | false alarms (benign) | ms / message |",
        "| --- | --- | --- | --- | --- |",
    ]
    for group, f in figures.items():
        ms = "—" if f["ms_per_message"] is None else f"{f['ms_per_message']:.2f}"
        recall = f"{num(f['recall'])} ({f['tp']}/{f['positives']})" if f["positives"] else "—"
        alarms = f"{pct(f['false_alarm_rate'])} ({f['fp']}/{f['negatives']})"
        lines.append(
            f"| {group} | {f['n']} | {recall} | {alarms if f['negatives'] else '—'} | {ms} |"
        )
    return "\n".join(lines)


def run(injection: Path, moderation: Path, rules_too: bool) -> tuple[dict[str, Any], str]:
    """All figures (for the JSON) and the markdown report."""
    from procession import ModerationProcessor, PromptInjectionDetector

    report: dict[str, Any] = {"injection": {}, "moderation": {}}
    tables: list[str] = []
    configs: list[tuple[str, dict[str, Any]]] = [("offline default", {})]
    if rules_too:
        configs.append(("rules alone (classifier=False)", {"classifier": False}))
    inj_rows = read_rows(injection)
    for name, options in configs:
        detector = PromptInjectionDetector(strategy="block", **options)
        figures = evaluate(detector, inj_rows, lambda r: r["label"] == "attack", injection_groups)
        report["injection"][name] = figures
        tables.append(injection_table(name, figures))
    mod_rows = read_rows(moderation)
    for name, options in configs:
        processor = ModerationProcessor(strategy="block", **options)
        figures = evaluate(
            processor, mod_rows, lambda r: r["category"] in HARMFUL, moderation_groups
        )
        report["moderation"][name] = figures
        tables.append(moderation_table(name, figures))
    report["files"] = {"injection": str(injection), "moderation": str(moderation)}
    return report, "\n\n".join(tables)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--injection``, ``--moderation``, ``--out``, ``--rules-too``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--injection", type=Path, default=INJECTION)
    parser.add_argument("--moderation", type=Path, default=MODERATION)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--rules-too", action="store_true", help="also classifier=False")
    args = parser.parse_args(argv)
    report, markdown = run(args.injection, args.moderation, args.rules_too)
    print(markdown)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nJSON: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
