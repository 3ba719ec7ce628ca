"""Pydantic AI on the shared workload and the concurrency batch. Runs inside
``bench/.venvs/pydantic_ai``.

    bench/.venvs/pydantic_ai/bin/python bench/peers/pydantic_ai_bench.py workload
    bench/.venvs/pydantic_ai/bin/python bench/peers/pydantic_ai_bench.py concurrency

Scripted model: the built-in ``FunctionModel(stream_function=...)``, stateless (the step is the
number of ``ToolReturnPart``s in the messages). Consumer: ``async with
agent.run_stream_events(...)`` (no debounce on this path). Model requests to real providers are
forbidden (``ALLOW_MODEL_REQUESTS = False``).

Hooks (one ``Hooks`` capability, all ``async def``: plain ``def`` hooks run in a worker thread):
(a) ``on.before_run`` (observe only), (b) ``on.event`` (every event, observer),
(c) ``on.after_tool_execute`` (returns the result), (d) ``on.before_model_request``.
Concurrency: ``before_run``, ``on.event``, ``after_model_request``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pydantic_ai.models
from pydantic_ai import Agent
from pydantic_ai.capabilities import Hooks
from pydantic_ai.messages import (
    FunctionToolResultEvent,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from benchlib import (
    emit,
    env_int,
    run_concurrent,
    shared_workload,
)

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False

N = env_int("N", 200)
K = env_int("K", 5)
R = env_int("R", 15)
W = env_int("W", 3)

CALLS = [0]


def make_stream(tool_steps: int) -> Any:
    async def stream(messages: list[Any], info: AgentInfo) -> Any:
        CALLS[0] += 1
        done = sum(
            1 for m in messages for p in getattr(m, "parts", ()) if isinstance(p, ToolReturnPart)
        )
        if done < tool_steps:
            yield {
                0: DeltaToolCall(
                    name="echo", json_args=f'{{"x": {done}}}', tool_call_id=f"call-{done}"
                )
            }
            return
        for i in range(N):
            yield f"t{i} "

    return stream


async def echo(x: int) -> str:
    """Echo x back."""
    return str(x)


def is_text(ev: Any) -> bool:
    return (isinstance(ev, PartStartEvent) and isinstance(ev.part, TextPart)) or (
        isinstance(ev, PartDeltaEvent) and isinstance(ev.delta, TextPartDelta)
    )


def counting_hooks(counts: dict[str, int]) -> Hooks[Any]:
    hooks: Hooks[Any] = Hooks()

    @hooks.on.before_run
    async def before_run(ctx: Any) -> None:
        counts["input"] += 1

    @hooks.on.event
    async def on_event(ctx: Any, event: Any) -> None:
        counts["chunk"] += 1

    @hooks.on.after_tool_execute
    async def after_tool(ctx: Any, *, call: Any, tool_def: Any, args: Any, result: Any) -> Any:
        counts["tool"] += 1
        return result

    @hooks.on.before_model_request
    async def before_request(ctx: Any, request_context: Any) -> Any:
        counts["step"] += 1
        return request_context

    return hooks


def runner(hooks: bool) -> tuple[Any, dict[str, Any]]:
    counts = {"input": 0, "chunk": 0, "tool": 0, "step": 0}
    agent = Agent(
        FunctionModel(stream_function=make_stream(K)),
        instructions="You are a test agent.",
        tools=[echo],
        capabilities=[counting_hooks(counts)] if hooks else [],
    )
    last: dict[str, Any] = {}

    async def run() -> None:
        calls0 = CALLS[0]
        before = dict(counts)
        events = texts = tool_results = 0
        async with agent.run_stream_events("hi") as stream:
            async for ev in stream:
                events += 1
                if is_text(ev):
                    texts += 1
                elif isinstance(ev, FunctionToolResultEvent):
                    tool_results += 1
        if (CALLS[0] - calls0, tool_results, texts) != (K + 1, K, N):
            raise AssertionError(
                f"calls/tool results/texts: {CALLS[0] - calls0}, {tool_results}, {texts}"
            )
        delta = {k: counts[k] - before[k] for k in before}
        if hooks and (delta["input"], delta["tool"], delta["step"]) != (1, K, K + 1):
            raise AssertionError(f"hook calls {delta}")
        last.update(events=events, hookCalls=delta)

    return run, last


async def workload() -> None:
    await shared_workload("pydantic-ai", runner, n=N, k=K, rounds=R, warmups=W, missing_hooks=[])


async def concurrency() -> None:
    hooks_on = env_int("HOOKS", 1)
    hooks: Hooks[Any] = Hooks()

    @hooks.on.before_run
    async def before_run(ctx: Any) -> None:
        return None

    @hooks.on.event
    async def on_event(ctx: Any, event: Any) -> None:
        return None

    @hooks.on.after_model_request
    async def after_request(ctx: Any, *, request_context: Any, response: Any) -> Any:
        return response

    agent = Agent(
        FunctionModel(stream_function=make_stream(0)),
        instructions="You are a test agent.",
        capabilities=[hooks] if hooks_on else [],
    )

    async def one_run() -> None:
        texts = 0
        async with agent.run_stream_events("hi") as stream:
            async for ev in stream:
                if is_text(ev):
                    texts += 1
        if texts != N:
            raise AssertionError(f"expected {N} text chunks, got {texts}")

    out = await run_concurrent(
        one_run,
        runs=env_int("C", 2000),
        warmup=env_int("WARM", 20),
        cap_seconds=env_int("CAP", 120),
    )
    emit(
        {
            "framework": "pydantic-ai",
            "hooks": bool(hooks_on),
            "hookSet": "before_run, on.event, after_model_request",
            "chunks": N,
            **out,
        }
    )


if __name__ == "__main__":
    asyncio.run(concurrency() if sys.argv[1:] == ["concurrency"] else workload())
