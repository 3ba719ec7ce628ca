"""procession on the shared peer workload: 5 tool steps, then 200 streamed chunks.

    python bench/procession_workload.py

The workload and protocol of the research baselines (same as the peer scripts in
``bench/peers/`` and ``bench/mastra/workload.mjs``): a stateless scripted model answers the
first 5 calls with one ``echo(x)`` tool call each (an async tool returning ``str(x)``) and the
6th with a text answer streamed as 200 chunks ("t0 ", "t1 ", ...); the step is decided from the
number of tool results in the prompt. System prompt "You are a test agent.", user message "hi".
The consumer reads ``agent.stream()`` to the end.

Hooks, each only bumps a counter: (a) ``process_input`` (once), (b) ``process_output_stream``
(every chunk), (c) ``process_tool_result``, (d) ``process_input_step`` (before each model call).
"bare" registers nothing. W (3) warm-up runs per configuration, then R (15) rounds running
every configuration once in rotated order, a full collection before each timed run. Every run
is checked: 6 model calls, 5 tool results, 200 text chunks, the expected hook calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from benchlib import env_int, shared_workload
from procession import Agent, Chunk, tool
from procession.models.base import ModelCallOptions, StreamResult
from procession.testing import Reply, ScriptedModel, ToolCallScript

N = env_int("N", 200)
K = env_int("K", 5)
R = env_int("R", 15)
W = env_int("W", 3)

FINAL = Reply(text=[f"t{i} " for i in range(N)])


def tool_results_in(prompt: list[dict[str, Any]]) -> int:
    count = 0
    for message in prompt:
        if message.get("role") == "tool":
            count += sum(1 for p in message["content"] if p.get("type") == "tool-result")
    return count


class WorkloadModel(ScriptedModel):
    """Stateless: the reply depends only on how many tool results the prompt holds."""

    def __init__(self) -> None:
        super().__init__(model_id="workload-model")
        self.count = 0

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        self.count += 1
        done = tool_results_in(options.prompt)
        if done < K:
            reply = Reply(tool_calls=[ToolCallScript("echo", {"x": done}, f"call-{done}")])
        else:
            reply = FINAL
        stream: AsyncIterator[Chunk] = self._stream(reply, done, options)
        return StreamResult(stream=stream)


@tool
async def echo(x: int) -> str:
    """Echo x back."""
    return str(x)


class Counters:
    """One processor (both lanes) implementing the four hooks; each bumps a counter."""

    id = "counters"

    def __init__(self) -> None:
        self.counts = {"input": 0, "chunk": 0, "tool": 0, "step": 0}

    async def process_input(self, **_: Any) -> None:
        self.counts["input"] += 1

    async def process_output_stream(self, *, part: Chunk, **_: Any) -> Chunk:
        self.counts["chunk"] += 1
        return part

    async def process_tool_result(self, **_: Any) -> None:
        self.counts["tool"] += 1

    async def process_input_step(self, **_: Any) -> None:
        self.counts["step"] += 1


def runner(hooks: bool) -> tuple[Any, dict[str, Any]]:
    model = WorkloadModel()
    counters = Counters()
    agent = Agent(
        id="workload",
        instructions="You are a test agent.",
        model=model,
        tools=[echo],
        max_steps=K + 1,
        input_processors=[counters] if hooks else None,
        output_processors=[counters] if hooks else None,
    )
    last: dict[str, Any] = {}

    async def run() -> None:
        calls0 = model.count
        before = dict(counters.counts)
        events = texts = tool_results = 0
        async for c in agent.stream("hi"):
            events += 1
            if c.type == "text-delta":
                texts += 1
            elif c.type == "tool-result":
                tool_results += 1
        if (model.count - calls0, tool_results, texts) != (K + 1, K, N):
            raise AssertionError(
                f"calls/tool results/texts: {model.count - calls0}, {tool_results}, {texts}"
            )
        delta = {k: counters.counts[k] - before[k] for k in before}
        if hooks and (delta["input"], delta["tool"], delta["step"]) != (1, K, K + 1):
            raise AssertionError(f"hook calls {delta}")
        last.update(events=events, hookCalls=delta)

    return run, last


async def main() -> None:
    await shared_workload("procession", runner, n=N, k=K, rounds=R, warmups=W, missing_hooks=[])


if __name__ == "__main__":
    asyncio.run(main())
