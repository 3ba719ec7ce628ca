"""OpenAI Agents SDK on the shared workload and the concurrency batch. Runs inside
``bench/.venvs/openai_agents``.

    bench/.venvs/openai_agents/bin/python bench/peers/openai_agents_bench.py workload
    bench/.venvs/openai_agents/bin/python bench/peers/openai_agents_bench.py concurrency

Scripted model: a ``Model`` subclass streaming the Responses API event sequence. The frame
events (created, in_progress, output_item.added, content_part.added, the done events,
completed) come from the SDK's own ``agents.testing`` event builder and are built once; the
200 ``response.output_text.delta`` events are built per call with ``model_construct`` as the
openai client does. (The SDK's ``ScriptedModel`` streams one content part per delta, ~4 events
per delta, and deep-copies every call's input, so it is not used.) Stateless: the step is the
number of ``function_call_output`` items in the input. Consumer:
``Runner.run_streamed(...).stream_events()``. Tracing is off.

Hooks: (a) ``@input_guardrail(run_in_parallel=False)`` (can trip, cannot modify),
(c) a ``tool_output_guardrail`` on the tool (allow), (d) ``RunConfig.call_model_input_filter``.
(b) No hook sees stream deltas. Concurrency: ``input_guardrail`` + ``output_guardrail``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from agents import (
    Agent,
    GuardrailFunctionOutput,
    RunConfig,
    Runner,
    ToolGuardrailFunctionOutput,
    function_tool,
    input_guardrail,
    output_guardrail,
    set_tracing_disabled,
    tool_output_guardrail,
)
from agents.models.interface import Model
from agents.testing.model import (
    ModelStep,
    _stream_events_for_step,
    assistant_message,
    function_call,
)
from agents.usage import Usage
from openai.types.responses import ResponseTextDeltaEvent

from benchlib import (
    emit,
    env_int,
    run_concurrent,
    shared_workload,
)

set_tracing_disabled(True)

N = env_int("N", 200)
K = env_int("K", 5)
R = env_int("R", 15)
W = env_int("W", 3)

TEXT = [f"t{i} " for i in range(N)]


def _usage(out: int) -> Usage:
    return Usage(requests=1, input_tokens=10, output_tokens=out, total_tokens=10 + out)


def _tool_events(done: int) -> list[Any]:
    step = ModelStep(
        output=[function_call("echo", {"x": done}, call_id=f"call-{done}")],
        usage=_usage(1),
        response_id=f"resp-{done}",
    )
    return list(_stream_events_for_step(step, preserve_raw_usage=False))


def _text_frame() -> tuple[list[Any], list[Any], str]:
    step = ModelStep(
        output=[assistant_message("".join(TEXT), item_id="msg-final")],
        usage=_usage(N),
        response_id="resp-final",
    )
    events = list(_stream_events_for_step(step, preserve_raw_usage=False))
    i = next(i for i, e in enumerate(events) if e.type == "response.output_text.delta")
    return events[:i], events[i + 1 :], events[i].item_id


class WorkloadModel(Model):
    def __init__(self, tool_steps: int) -> None:
        self.tool_steps = tool_steps
        self.calls = 0
        self.tool_events = [_tool_events(d) for d in range(tool_steps)]
        self.head, self.tail, self.item_id = _text_frame()

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("streaming only")

    async def stream_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> AsyncIterator[Any]:
        self.calls += 1
        done = 0
        if isinstance(input, list):
            done = sum(
                1
                for item in input
                if isinstance(item, dict) and item.get("type") == "function_call_output"
            )
        if done < self.tool_steps:
            for event in self.tool_events[done]:
                yield event
            return
        for event in self.head:
            yield event
        seq = len(self.head)
        for text in TEXT:
            yield ResponseTextDeltaEvent.model_construct(
                type="response.output_text.delta",
                item_id=self.item_id,
                output_index=0,
                content_index=0,
                delta=text,
                logprobs=[],
                sequence_number=seq,
            )
            seq += 1
        for event in self.tail:
            yield event


COUNTS = {"input": 0, "chunk": 0, "tool": 0, "step": 0}


@input_guardrail(run_in_parallel=False)
async def input_hook(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
    COUNTS["input"] += 1
    return GuardrailFunctionOutput(output_info=None, tripwire_triggered=False)


@tool_output_guardrail
async def tool_hook(data: Any) -> ToolGuardrailFunctionOutput:
    COUNTS["tool"] += 1
    return ToolGuardrailFunctionOutput.allow()


def step_hook(data: Any) -> Any:
    COUNTS["step"] += 1
    return data.model_data


@function_tool
async def echo(x: int) -> str:
    """Echo x back."""
    return str(x)


@function_tool(tool_output_guardrails=[tool_hook])
async def echo_guarded(x: int) -> str:
    """Echo x back."""
    return str(x)


echo_guarded.name = "echo"


def runner(hooks: bool) -> tuple[Any, dict[str, Any]]:
    model = WorkloadModel(K)
    agent = Agent(
        name="workload",
        instructions="You are a test agent.",
        model=model,
        tools=[echo_guarded if hooks else echo],
        input_guardrails=[input_hook] if hooks else [],
    )
    config = RunConfig(tracing_disabled=True, call_model_input_filter=step_hook if hooks else None)
    last: dict[str, Any] = {}

    async def run() -> None:
        calls0 = model.calls
        before = dict(COUNTS)
        events = texts = tool_results = 0
        result = Runner.run_streamed(agent, "hi", run_config=config, max_turns=K + 2)
        async for ev in result.stream_events():
            events += 1
            if ev.type == "raw_response_event" and ev.data.type == "response.output_text.delta":
                texts += 1
            elif ev.type == "run_item_stream_event" and ev.name == "tool_output":
                tool_results += 1
        if (model.calls - calls0, tool_results, texts) != (K + 1, K, N):
            raise AssertionError(
                f"calls/tool results/texts: {model.calls - calls0}, {tool_results}, {texts}"
            )
        delta = {k: COUNTS[k] - before[k] for k in before}
        if hooks and (delta["input"], delta["tool"], delta["step"]) != (1, K, K + 1):
            raise AssertionError(f"hook calls {delta}")
        last.update(events=events, hookCalls=delta)

    return run, last


async def workload() -> None:
    await shared_workload(
        "openai-agents",
        runner,
        n=N,
        k=K,
        rounds=R,
        warmups=W,
        missing_hooks=["per-chunk (no hook sees stream deltas)"],
    )


@output_guardrail
async def output_hook(ctx: Any, agent: Any, output: Any) -> GuardrailFunctionOutput:
    return GuardrailFunctionOutput(output_info=None, tripwire_triggered=False)


async def concurrency() -> None:
    hooks = env_int("HOOKS", 1)
    model = WorkloadModel(0)
    agent = Agent(
        name="concurrency",
        instructions="You are a test agent.",
        model=model,
        input_guardrails=[input_hook] if hooks else [],
        output_guardrails=[output_hook] if hooks else [],
    )
    config = RunConfig(tracing_disabled=True)

    async def one_run() -> None:
        texts = 0
        result = Runner.run_streamed(agent, "hi", run_config=config)
        async for ev in result.stream_events():
            if ev.type == "raw_response_event" and ev.data.type == "response.output_text.delta":
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
            "framework": "openai-agents",
            "hooks": bool(hooks),
            "hookSet": "input_guardrail, output_guardrail (no per-chunk hook)",
            "chunks": N,
            **out,
        }
    )


if __name__ == "__main__":
    asyncio.run(concurrency() if sys.argv[1:] == ["concurrency"] else workload())
