"""Message-model benchmark: a streamed response, a provider prompt, and validating a history.

Run with ``python bench/bench_messages.py``. Prints the median and p95 of each operation in
microseconds and writes them to ``bench/results/messages.json``. Target: each under 1 ms.
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from procession.messages import (
    Message,
    MessageContent,
    MessageList,
    Part,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
    message_from_dict,
    message_to_dict,
    validate_messages,
)

TARGET_US = 1000.0
RESULTS = Path(__file__).parent / "results" / "messages.json"
DELTAS = [f"tok{i} " for i in range(1000)]


def measure(setup: Callable[[], object], run: Callable[[object], object], reps: int) -> list[float]:
    """Time ``run(setup())`` ``reps`` times (setup excluded); returns microseconds per run."""
    samples: list[float] = []
    for _ in range(reps):
        arg = setup()
        start = time.perf_counter_ns()
        run(arg)
        samples.append((time.perf_counter_ns() - start) / 1000.0)
    return samples


def history_list() -> MessageList:
    """A 200-message history: users and assistants, every fifth assistant turn with a tool."""
    ml = MessageList()
    ml.add_system("You are a helpful assistant.")
    ml.add_system("Remembered: the user likes short answers.", tag="memory")
    for i in range(100):
        ml.add(Message.user(f"question {i}: " + "words " * 20), "memory" if i < 80 else "input")
        parts: list[Part] = []
        if i % 5 == 0:
            call = ToolInvocation(
                state="result",
                tool_call_id=f"call_{i}",
                tool_name="search",
                args={"query": f"q{i}", "limit": 5},
                result={"hits": [{"title": f"hit {j}", "score": j / 10} for j in range(3)]},
            )
            parts.append(ToolInvocationPart(tool_invocation=call))
        parts.append(TextPart(text=f"answer {i}: " + "words " * 40))
        reply = Message(id=f"a{i}", role="assistant", content=MessageContent(parts=parts))
        ml.add(reply, "memory" if i < 80 else "response")
    assert len(ml) == 200
    return ml


def build_response(ml: object) -> None:
    """(a) What the loop does at the end of a text stream: join deltas, make and add a message."""
    assert isinstance(ml, MessageList)
    collected: list[str] = []
    for delta in DELTAS:
        collected.append(delta)
    message = Message(
        id=f"resp_{len(ml)}",
        role="assistant",
        content=MessageContent(parts=[TextPart(text="".join(collected))]),
    )
    ml.add(message, "response")


def build_prompt(ml: object) -> None:
    """(b) Convert the whole history to a provider prompt, as each step does."""
    assert isinstance(ml, MessageList)
    ml.get.all.prompt()


def validate_history(ml: object) -> None:
    """(c) D30: check every message of the history, as the runner does after a hook."""
    assert isinstance(ml, MessageList)
    validate_messages(ml.get.all.db())


def round_trip_history(ml: object) -> None:
    """For comparison with (c): encode and decode every message (storage's own read rules)."""
    assert isinstance(ml, MessageList)
    for message in ml.get.all.db():
        message_from_dict(message_to_dict(message))


def summarize(samples: list[float]) -> dict[str, float]:
    """Median, p95, min and mean of a list of microsecond samples."""
    ordered = sorted(samples)
    return {
        "median_us": round(statistics.median(ordered), 2),
        "p95_us": round(ordered[int(len(ordered) * 0.95) - 1], 2),
        "min_us": round(ordered[0], 2),
        "mean_us": round(statistics.fmean(ordered), 2),
        "reps": len(ordered),
    }


def main() -> int:
    """Run both benchmarks, print a table and write the JSON results."""
    history = history_list()
    prompt = history.get.all.prompt()
    # 2 system messages, 200 messages, and per tool turn a tool message and a second assistant one
    assert len(prompt) == 2 + 200 + 2 * 20
    for _ in range(200):  # warm-up
        build_response(MessageList(["hi"]))
        history.get.all.prompt()
    results = {
        "response_from_1000_deltas": summarize(
            measure(lambda: MessageList(["hi"]), build_response, 5000)
        ),
        "prompt_from_200_messages": summarize(measure(lambda: history, build_prompt, 3000)),
        "validate_200_messages": summarize(measure(lambda: history, validate_history, 3000)),
        "round_trip_200_messages": summarize(measure(lambda: history, round_trip_history, 300)),
    }
    ok = True
    print(f"{'operation':32} {'median us':>10} {'p95 us':>10}  target {TARGET_US:.0f} us")
    for name, stats in results.items():
        met = stats["p95_us"] < TARGET_US and stats["median_us"] < TARGET_US
        if name.startswith("round_trip"):  # a reference figure, not a target
            verdict = "(reference)"
        else:
            ok &= met
            verdict = "ok" if met else "MISSED"
        print(f"{name:32} {stats['median_us']:10.1f} {stats['p95_us']:10.1f}  {verdict}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "target_us": TARGET_US,
        "results": results,
    }
    RESULTS.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
