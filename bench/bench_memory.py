"""What memory adds to a run, beside the real Mastra memory in the same invocation.

    .venv/bin/python bench/bench_memory.py              # 5 sittings each, 100 runs per case
    .venv/bin/python bench/bench_memory.py --quick      # 2 sittings, 30 runs (a smoke test)
    .venv/bin/python bench/bench_memory.py --no-mastra  # procession only (no Node needed)

Each run is one ``generate()`` against a scripted model (five text deltas), so the figures are
the runtime's and memory's own cost. Every memory case has its own thread in a SQLite file,
filled with 100 messages before timing; each run loads the last 100 (``last_messages=100``,
Mastra's ``lastMessages: 100``) and stores its turn. Cases: no memory; history; history and
working memory; history and semantic recall with a lexical hash embedder (procession's
``HashEmbedder``, a 256-dimension word hash in Mastra's script: Mastra ships no offline
embedding model, so MiniLM recall is measured for procession only).

Mastra is ``@mastra/memory`` 1.31.0 on ``@mastra/libsql`` 1.23.1 with ``@mastra/core``
1.71.0 (``bench/mastra/memory/``, installed with ``npm ci`` into ``bench/.mastra-memory/`` on
first use; its Node 22 comes from the ``node`` package). Its script runs as one long-lived
process, and the two sides take turns: a sitting of procession (every case, in rotated order,
``--rounds`` runs each), then a sitting of Mastra, the first side alternating from one sitting
to the next. Per case: the median of each sitting's runs; reported: the median over sittings
and their range, what memory adds (the case minus no memory, per side), and Mastra's added
cost over procession's. Then procession's MiniLM recall and the embedder's latency. Writes
``bench/results/memory.json``. Not part of CI or pytest.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # MiniLM on a shared machine (memory.md)

from procession import Agent
from procession.memory import (
    HashEmbedder,
    Memory,
    MiniLMEmbedder,
    SemanticRecallConfig,
    SQLiteStorage,
)
from procession.testing import Reply, ScriptedModel

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = ROOT / "bench" / "results" / "memory.json"
MASTRA_SOURCE = HERE / "mastra" / "memory"
MASTRA_DIR = HERE / ".mastra-memory"
MASTRA_FILES = ("package.json", "package-lock.json", ".npmrc", "memory.mjs")
HISTORY = 100
CASES = ("no_memory", "history", "history_working_memory", "history_recall_hash")
ANSWER = ["Sure, ", "here ", "is ", "the ", "answer."]

Run = Callable[[], Awaitable[None]]


def log(message: str) -> None:
    """A progress line on stderr."""
    sys.stderr.write(f"[bench_memory] {message}\n")
    sys.stderr.flush()


# ---------------------------------------------------------------------------
# procession's side


def _memory(case: str, storage: SQLiteStorage) -> Memory | None:
    if case == "no_memory":
        return None
    if case == "history_working_memory":
        return Memory(storage, last_messages=HISTORY, working_memory=True)
    if case.startswith("history_recall"):
        embedder = MiniLMEmbedder() if case.endswith("minilm") else HashEmbedder()
        recall = SemanticRecallConfig(embedder=embedder, top_k=4, message_range=1)
        return Memory(storage, last_messages=HISTORY, semantic_recall=recall)
    return Memory(storage, last_messages=HISTORY)


async def procession_case(case: str, storage: SQLiteStorage) -> Run:
    """One case's run, its thread filled with ``HISTORY`` messages and warmed up."""
    model = ScriptedModel([Reply(text=ANSWER)], repeat_last=True)
    memory = _memory(case, storage)
    agent = Agent(id=f"bench-{case}", model=model, memory=memory, instructions="Be brief.")
    thread = f"thread-{case}" if memory is not None else None
    resource = f"bench-{case}" if memory is not None else None
    counter = iter(range(1_000_000))

    async def run() -> None:
        question = f"question {next(counter)} about the weather in Oslo"
        result = await agent.generate(question, thread_id=thread, resource_id=resource)
        if result.text != "".join(ANSWER):
            raise RuntimeError(f"unexpected answer: {result.text!r}")

    if memory is not None:
        for _ in range(HISTORY // 2):  # each run stores two messages
            await run()
    for _ in range(5):  # warm up
        await run()
    return run


async def procession_sitting(runs: dict[str, Run], rounds: int, turn: int) -> dict[str, float]:
    """The median ms of ``rounds`` runs of each case, the cases in rotated order: wall time
    under the case's name, the process's CPU time (every thread) under ``<case>.cpu``."""
    names = list(runs)
    order = names[turn % len(names) :] + names[: turn % len(names)]
    gc.collect()
    medians: dict[str, float] = {}
    for name in order:
        wall, cpu = [], []
        for _ in range(rounds):
            started, used = time.perf_counter(), time.process_time()
            await runs[name]()
            wall.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - used) * 1000)
        medians[name] = round(statistics.median(wall), 3)
        medians[f"{name}.cpu"] = round(statistics.median(cpu), 3)
    return medians


# ---------------------------------------------------------------------------
# Mastra's side


def mastra_node() -> tuple[Path | None, str]:
    """Node 22 in ``bench/.mastra-memory`` (copied and installed on first use), or why not."""
    node = MASTRA_DIR / "node_modules" / ".bin" / "node"
    MASTRA_DIR.mkdir(exist_ok=True)
    changed = False
    for name in MASTRA_FILES:
        source, target = MASTRA_SOURCE / name, MASTRA_DIR / name
        if not target.exists() or target.read_bytes() != source.read_bytes():
            shutil.copyfile(source, target)
            changed = changed or name != "memory.mjs"
    if node.exists() and not changed:
        return node, ""
    npm = shutil.which("npm")
    if npm is None:
        return None, "npm not found: cannot install Mastra's memory"
    log(f"npm ci in {MASTRA_DIR}")
    proc = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund"],
        cwd=MASTRA_DIR,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if proc.returncode != 0 or not node.exists():
        return None, f"npm ci failed in {MASTRA_DIR}: {proc.stderr[-500:]}"
    return node, ""


class MastraMemory:
    """The long-lived ``memory.mjs --serve`` process: one sitting per request."""

    def __init__(self, node: Path, rounds: int) -> None:
        env = {**os.environ, "R": str(rounds), "HISTORY": str(HISTORY)}
        self.proc = subprocess.Popen(
            [str(node), "--expose-gc", "memory.mjs", "--serve"],
            cwd=MASTRA_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        ready = self._read()
        if not ready.get("ready"):
            raise RuntimeError(f"Mastra's memory script did not start: {ready}")

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"Mastra's memory script ended (exit {self.proc.wait()})")
        value: dict[str, Any] = json.loads(line)
        return value

    def sitting(self) -> dict[str, float]:
        """One sitting of every case: the median ms per case."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("sit\n")
        self.proc.stdin.flush()
        return {name: float(value) for name, value in self._read().items()}

    def close(self) -> None:
        """Ask the process to end, and wait for it."""
        if self.proc.stdin is not None:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


# ---------------------------------------------------------------------------
# figures


def summary(sittings: list[dict[str, float]], suffix: str = "") -> dict[str, dict[str, Any]]:
    """Per case: the median over sittings, their range, and what memory adds (the case's
    median minus no memory's, per sitting, then the median of that). ``suffix=".cpu"``: the
    same of CPU time."""
    out: dict[str, dict[str, Any]] = {}
    for case in CASES:
        key = f"{case}{suffix}"
        values = [s[key] for s in sittings if key in s]
        added = [s[key] - s[f"no_memory{suffix}"] for s in sittings if key in s]
        out[case] = {
            "median_ms": round(statistics.median(values), 3),
            "range_ms": [round(min(values), 3), round(max(values), 3)],
            "added_ms": round(statistics.median(added), 3),
            "added_range_ms": [round(min(added), 3), round(max(added), 3)],
            "sittings": values,
        }
    return out


def report(results: dict[str, Any], what: str = "") -> None:
    """Print one line per case, side by side (``what="_cpu"``: CPU time)."""
    ours, theirs = results[f"procession{what}"], results.get(f"mastra{what}")
    print("wall time, median of sittings" if not what else "CPU time, median of sittings")
    for case in CASES:
        mine = ours[case]
        line = (
            f"{case:24} procession {mine['median_ms']:7.3f} ms (adds {mine['added_ms']:6.3f},"
            f" {mine['added_range_ms'][0]:.3f}-{mine['added_range_ms'][1]:.3f})"
        )
        if theirs is not None:
            other = theirs[case]
            line += (
                f"  mastra {other['median_ms']:8.3f} ms (adds {other['added_ms']:7.3f},"
                f" {other['added_range_ms'][0]:.3f}-{other['added_range_ms'][1]:.3f})"
            )
            if case != "no_memory" and mine["added_ms"] > 0:
                line += f"  {other['added_ms'] / mine['added_ms']:5.1f}x"
        print(line)


async def _minilm(storage: SQLiteStorage, rounds: int) -> dict[str, Any]:
    """procession's MiniLM recall (its own thread) and the embedder's latency."""
    minilm = MiniLMEmbedder()
    started = time.perf_counter()
    minilm.load()
    load_ms = (time.perf_counter() - started) * 1000

    async def embed_one() -> None:
        await minilm.embed(["What is my favourite colour?"])

    samples = []
    for _ in range(rounds):
        t = time.perf_counter()
        await embed_one()
        samples.append((time.perf_counter() - t) * 1000)
    baseline = await procession_case("no_memory", storage)
    recall = await procession_case("history_recall_minilm", storage)
    figures = await procession_sitting(
        {"no_memory": baseline, "history_recall_minilm": recall}, rounds, 0
    )
    return {
        "minilm_load_ms": round(load_ms, 1),
        "minilm_one_sentence_ms": round(statistics.median(samples), 3),
        "history_recall_minilm_ms": figures["history_recall_minilm"],
        "history_recall_minilm_added_ms": round(
            figures["history_recall_minilm"] - figures["no_memory"], 3
        ),
    }


async def main() -> None:
    """Run both sides in alternating sittings and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 sittings of 30 runs")
    parser.add_argument("--no-mastra", action="store_true", help="procession only")
    parser.add_argument("--sittings", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--no-minilm", action="store_true", help="skip MiniLM recall")
    args = parser.parse_args()
    sittings = args.sittings or (2 if args.quick else 5)
    rounds = args.rounds or (30 if args.quick else 100)
    results: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "history_messages": HISTORY,
        "rounds": rounds,
        "sittings": sittings,
    }
    mastra: MastraMemory | None = None
    if not args.no_mastra:
        node, why = mastra_node()
        if node is None:
            log(f"Mastra skipped: {why}")
            results["mastra_skipped"] = why
        else:
            log("starting Mastra's memory (fills its threads)")
            mastra = MastraMemory(node, rounds)
    with tempfile.TemporaryDirectory() as folder:
        storage = SQLiteStorage(Path(folder) / "bench.db")
        try:
            runs = {case: await procession_case(case, storage) for case in CASES}
            ours: list[dict[str, float]] = []
            theirs: list[dict[str, float]] = []
            for turn in range(sittings):
                log(f"sitting {turn + 1} of {sittings}")
                if mastra is not None and turn % 2:
                    theirs.append(mastra.sitting())
                ours.append(await procession_sitting(runs, rounds, turn))
                if mastra is not None and not turn % 2:
                    theirs.append(mastra.sitting())
            results["procession"] = summary(ours)
            results["procession_cpu"] = summary(ours, ".cpu")
            if mastra is not None:
                results["mastra"] = summary(theirs)
                results["mastra_cpu"] = summary(theirs, ".cpu")
            if not args.no_minilm:
                results["minilm"] = await _minilm(storage, max(10, rounds // 3))
        finally:
            await storage.close()
            if mastra is not None:
                mastra.close()
    report(results)
    report(results, "_cpu")
    if "minilm" in results:
        minilm = results["minilm"]
        print(
            f"MiniLM recall (procession): {minilm['history_recall_minilm_ms']} ms a run, adds "
            f"{minilm['history_recall_minilm_added_ms']} ms; one sentence "
            f"{minilm['minilm_one_sentence_ms']} ms; load {minilm['minilm_load_ms']} ms"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    asyncio.run(main())
