"""Soak: fault injection at every chunk index of long streams.

Run: ``.venv/bin/python bench/soak_faults.py [--deltas 300]``. A two-step tool run whose
answer streams ``--deltas`` text deltas, with memory on SQLite, is broken at every chunk index
of both model calls: the provider raising from the stream or sending an ``error`` chunk, with
no error processor (the run must fail closed: an error chunk, nothing stored) and with one
that retries (the run must end as a clean run, the whole turn stored); and a stream processor
(sync and async) raises at every chunk it receives (fail closed, nothing stored). Each in live
and step mode, each under the reliability guard. Prints faults injected, runs that failed
open, half-written turns, leaks (want 0 of each); writes ``bench/results/soak_faults.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.contract.kit import processor  # noqa: E402
from tests.reliability.harness import (  # noqa: E402
    FaultyModel,
    Guard,
    Release,
    Tools,
    sqlite_memory,
    stored,
    streamed,
    texts_of,
)

from procession import Agent, APICallError, ProcessorError  # noqa: E402
from procession.testing import Reply, ScriptedModel, ToolCallScript  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "soak_faults.json"


class Retrier:
    id = "retrier"

    def process_api_error(self, **_: Any) -> dict[str, bool]:
        return {"retry": True}


def script(deltas: int) -> list[Reply]:
    return [
        Reply(
            text=["Checking ", "the order."],
            tool_calls=[ToolCallScript("echo", {"text": "x"}), ToolCallScript("wait", {"n": 1})],
        ),
        Reply(text=[f"w{i} " for i in range(deltas)]),
    ]


def chunk_counts(replies: list[Reply]) -> list[int]:
    """How many chunks each scripted call streams."""
    return [1 + (2 + len(r.text) if r.text else 0) + len(r.tool_calls) + 1 for r in replies]


def provider_case(
    tally: Counter[str],
    replies: list[Reply],
    call: int,
    at: int,
    kind: str,
    retry: bool,
    release: Release,
    clean: str,
) -> None:
    guard = Guard()
    faulty = FaultyModel(replies, call=call, at=at, kind=kind)
    model = guard.model(faulty)
    tools = guard.track(Tools())
    memory = sqlite_memory()

    async def body() -> None:
        try:
            agent = Agent(
                id="a",
                model=model,
                tools=tools.all(),
                memory=memory,
                max_retries=0,
                error_processors=[Retrier()] if retry else None,
            )
            chunks, result = await streamed(agent, release)
            kept = texts_of(await stored(memory))
            tally["faults"] += faulty.faults
            if retry:
                tally["fail open"] += result.text != clean or chunks[-1].type != "finish"
                tally["half-written"] += kept != "go" + clean
            else:
                tally["fail open"] += chunks[-1].type != "error" or not isinstance(
                    result.error, APICallError
                )
                tally["half-written"] += kept != ""
        finally:
            await memory.storage.close()

    try:
        guard.run(body)
    except AssertionError:
        tally["leaks"] += 1
    tally["runs"] += 1


def processor_case(
    tally: Counter[str], replies: list[Reply], at: int, mode: str, release: Release
) -> bool:
    """A stream processor failing at its ``at``-th chunk; False once ``at`` is past the end."""
    guard = Guard()
    model = guard.model(ScriptedModel(list(replies)))
    tools = guard.track(Tools())
    memory = sqlite_memory()
    seen: list[str] = []

    def fail_at(**kwargs: Any) -> Any:
        seen.append(kwargs["part"].type)
        if len(seen) == at + 1:
            raise RuntimeError("processor bug")
        return kwargs["part"]

    reached = True

    async def body() -> None:
        nonlocal reached
        try:
            agent = Agent(
                id="a",
                model=model,
                tools=tools.all(),
                memory=memory,
                output_processors=[processor("f", mode, {"process_output_stream": fail_at})],
            )
            chunks, result = await streamed(agent, release)
            if chunks[-1].type == "finish":
                reached = False  # ``at`` is past the run's last chunk
                return
            tally["faults"] += 1
            tally["fail open"] += not isinstance(result.error, ProcessorError)
            tally["half-written"] += bool(await stored(memory))
        finally:
            await memory.storage.close()

    try:
        guard.run(body)
    except AssertionError:
        # a failure on the step-start chunk leaves the model stream open: a known loop gap,
        # pinned by tests/reliability/test_faults.py (STEP_START_LEAK)
        known = seen[-1:] == ["step-start"]
        tally["leaks on step-start (known gap)" if known else "leaks"] += 1
    tally["runs"] += 1
    return reached


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deltas", type=int, default=300)
    args = parser.parse_args()
    replies = script(args.deltas)
    counts = chunk_counts(replies)
    clean = "Checking the order." + "".join(f"w{i} " for i in range(args.deltas))
    tally: Counter[str] = Counter({"faults": 0, "fail open": 0, "half-written": 0, "leaks": 0})
    started = time.perf_counter()
    releases: tuple[Release, ...] = ("live", "step")
    for release in releases:
        for retry in (False, True):
            for kind in ("raise", "chunk"):
                for call, count in enumerate(counts):
                    for at in range(count):
                        provider_case(tally, replies, call, at, kind, retry, release, clean)
            print(f"  provider faults, {release}, retry={retry}: {dict(tally)}")
        for mode in ("sync", "async"):
            at = 0
            while processor_case(tally, replies, at, mode, release):
                at += 1
            print(f"  processor faults, {release}, {mode}: {dict(tally)}")
    out: dict[str, Any] = {
        "deltas": args.deltas,
        "chunksPerCall": counts,
        **dict(tally.items()),
        "seconds": round(time.perf_counter() - started, 1),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
