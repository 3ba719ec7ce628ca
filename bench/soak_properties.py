"""Soak: the pipeline invariants of ``tests/reliability/test_properties.py`` over a million
model chunks.

Run: ``.venv/bin/python bench/soak_properties.py [--chunks 1000000] [--seed N]``. Each run is a
random script (tool steps, then a long text answer) through a random lane of one to four
stream processors (pass, copy, upper-case, drop, split, hold; sync or async), in a random
release mode, on a fresh event loop in debug mode (the reliability guard: no pending task, no
open model stream, no running tool call afterwards). Checks that every stream processor
received exactly what the one before it passed on, the first every model chunk, the client
exactly what the last passed on, and ``result.text`` the text that came out. Prints runs,
model chunks, chunk passes checked and violations found (want 0); writes
``bench/results/soak_properties.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the harness lives with the tests

from tests.reliability.harness import (  # noqa: E402
    BEHAVIOURS,
    Guard,
    LaneProbe,
    RecordingModel,
    Tools,
    check_lane,
    texts_of,
)

from procession import Agent  # noqa: E402
from procession.testing import Reply, ToolCallScript  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "soak_properties.json"
WORDS = ("a", "b", "ab", "a b", "~a", "ba~", " ", "abba")


def random_script(rng: random.Random) -> list[Reply]:
    """Up to two tool steps, then a text answer of 50 to 1,500 deltas."""
    replies = [
        Reply(
            text=[rng.choice(WORDS) for _ in range(rng.randint(0, 20))],
            tool_calls=[
                ToolCallScript("echo", {"text": "x"}, f"e{n}"),
                ToolCallScript("wait", {"n": n}, f"w{n}"),
            ][: rng.randint(1, 2)],
        )
        for n in range(rng.randint(0, 2))
    ]
    replies.append(Reply(text=[rng.choice(WORDS) for _ in range(rng.randint(50, 1500))]))
    return replies


def one_run(guard: Guard, rng: random.Random) -> tuple[int, int]:
    """One random run, checked; returns (model chunks, chunk passes checked)."""
    replies = random_script(rng)
    lane = [
        LaneProbe(f"p{i}", rng.choice(sorted(BEHAVIOURS)), rng.choice(("sync", "async")))
        for i in range(rng.randint(1, 4))
    ]
    release = rng.choice(("live", "step"))
    recording = RecordingModel(replies)
    tools = guard.track(Tools())
    checked = 0

    async def body() -> None:
        nonlocal checked
        agent = Agent(
            id="soak",
            model=recording.tracked(guard),
            tools=tools.all(),
            output_processors=lane,
            max_steps=len(replies),
        )
        stream = agent.stream("go", release=release)  # type: ignore[call-overload]
        client = [c async for c in stream]
        result = await stream.result()
        checked = check_lane(lane, recording.chunks, client, step=release == "step")
        shown = "".join(c.payload["text"] for c in lane[-1].out if c.type == "text-delta")
        assert result.text == shown == texts_of(result.messages)

    guard.run(body)
    return len(recording.chunks), checked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    runs = chunks = passes = 0
    violations: list[str] = []
    started = time.perf_counter()
    while chunks < args.chunks:
        guard = Guard()
        try:
            made, checked = one_run(guard, rng)
        except AssertionError as error:
            violations.append(f"run {runs}: {error}"[:300])
            made, checked = 0, 0
        runs += 1
        chunks += made
        passes += checked
        if runs % 100 == 0:
            print(f"  {runs} runs, {chunks:,} model chunks, {len(violations)} violations")
    seconds = time.perf_counter() - started
    out: dict[str, Any] = {
        "seed": args.seed,
        "runs": runs,
        "modelChunks": chunks,
        "chunkPassesChecked": passes,
        "violations": len(violations),
        "firstViolations": violations[:5],
        "seconds": round(seconds, 1),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
