"""LangChain v1 (``create_agent`` + ``AgentMiddleware``) on the shared workload and the
concurrency batch. Runs inside ``bench/.venvs/langchain``.

    bench/.venvs/langchain/bin/python bench/peers/langchain_bench.py workload
    bench/.venvs/langchain/bin/python bench/peers/langchain_bench.py concurrency  # HOOKS=0: bare

Scripted model: a ``BaseChatModel`` subclass with a native ``_astream`` yielding
``AIMessageChunk``s (one with a ``tool_call_chunk`` for a tool step, 200 text chunks for the
final step), stateless (the step is the number of ``ToolMessage``s in the prompt).
langchain-core reports each chunk to the ``messages`` stream itself (``on_llm_new_token``).
Consumer: ``agent.astream(..., stream_mode="messages")``.

Hooks (one middleware): (a) ``abefore_agent``, (c) ``awrap_tool_call``, (d) ``abefore_model``.
(b) There is no per-chunk hook on the classic ``astream`` (the only one, a middleware
``StreamTransformer``, runs on the experimental ``astream_events(version="v3")``).
Concurrency hooks: ``abefore_agent``, ``aafter_model`` (no per-chunk hook).
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

os.environ.setdefault("LANGSMITH_TRACING", "false")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, ToolMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.tools import tool

from benchlib import (
    emit,
    env_int,
    run_concurrent,
    shared_workload,
)

N = env_int("N", 200)
K = env_int("K", 5)
R = env_int("R", 15)
W = env_int("W", 3)


class ScriptedChat(BaseChatModel):
    tool_steps: int = K
    chunks: int = N
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: Any, stop: Any = None, **kwargs: Any) -> ChatResult:
        raise NotImplementedError("streaming only")

    async def _astream(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Any:
        self.calls += 1
        done = sum(isinstance(m, ToolMessage) for m in messages)
        if done < self.tool_steps:
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content="",
                    tool_call_chunks=[
                        {
                            "name": "echo",
                            "args": f'{{"x": {done}}}',
                            "id": f"call-{done}",
                            "index": 0,
                        }
                    ],
                )
            )
            return
        for i in range(self.chunks):
            yield ChatGenerationChunk(message=AIMessageChunk(content=f"t{i} "))


@tool
async def echo(x: int) -> str:
    """Echo x back."""
    return str(x)


class Counters(AgentMiddleware):
    def __init__(self) -> None:
        super().__init__()
        self.counts = {"input": 0, "chunk": 0, "tool": 0, "step": 0}

    async def abefore_agent(self, state: Any, runtime: Any) -> None:
        self.counts["input"] += 1

    async def abefore_model(self, state: Any, runtime: Any) -> None:
        self.counts["step"] += 1

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        result = await handler(request)
        self.counts["tool"] += 1
        return result


class ConcurrencyHooks(AgentMiddleware):
    async def abefore_agent(self, state: Any, runtime: Any) -> None:
        return None

    async def aafter_model(self, state: Any, runtime: Any) -> None:
        return None


INPUT = {"messages": [{"role": "user", "content": "hi"}]}


def runner(hooks: bool) -> tuple[Any, dict[str, Any]]:
    model = ScriptedChat()
    counters = Counters()
    agent = create_agent(
        model,
        tools=[echo],
        system_prompt="You are a test agent.",
        middleware=[counters] if hooks else [],
    )
    last: dict[str, Any] = {}

    async def run() -> None:
        calls0 = model.calls
        before = dict(counters.counts)
        events = texts = tool_results = 0
        async for message, _meta in agent.astream(INPUT, stream_mode="messages"):
            events += 1
            if isinstance(message, ToolMessage):
                tool_results += 1
            elif isinstance(message, AIMessageChunk) and message.content:
                texts += 1
        if (model.calls - calls0, tool_results, texts) != (K + 1, K, N):
            raise AssertionError(
                f"calls/tool results/texts: {model.calls - calls0}, {tool_results}, {texts}"
            )
        delta = {k: counters.counts[k] - before[k] for k in before}
        if hooks and (delta["input"], delta["tool"], delta["step"]) != (1, K, K + 1):
            raise AssertionError(f"hook calls {delta}")
        last.update(events=events, hookCalls=delta)

    return run, last


async def workload() -> None:
    await shared_workload(
        "langchain",
        runner,
        n=N,
        k=K,
        rounds=R,
        warmups=W,
        missing_hooks=["per-chunk (classic astream has none)"],
    )


async def concurrency() -> None:
    hooks = env_int("HOOKS", 1)
    model = ScriptedChat(tool_steps=0)
    agent = create_agent(
        model,
        tools=[echo],
        system_prompt="You are a test agent.",
        middleware=[ConcurrencyHooks()] if hooks else [],
    )

    async def one_run() -> None:
        texts = 0
        async for message, _meta in agent.astream(INPUT, stream_mode="messages"):
            if isinstance(message, AIMessageChunk) and message.content:
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
            "framework": "langchain",
            "hooks": bool(hooks),
            "hookSet": "abefore_agent, aafter_model (no per-chunk hook)",
            "chunks": N,
            **out,
        }
    )


if __name__ == "__main__":
    asyncio.run(concurrency() if sys.argv[1:] == ["concurrency"] else workload())
