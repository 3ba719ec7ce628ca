"""Provider-executed tools: their calls and raw results stream in, and reach
process_tool_result inline (C30); procession never runs them itself."""

from __future__ import annotations

import pytest

from procession import Chunk, ToolInvocationPart
from procession.testing import RecordingProcessor, Reply, ScriptedModel, Trace

from .helpers import agent, collect

SEARCH = [
    Chunk(
        "tool-call",
        {
            "toolCallId": "srv-1",
            "toolName": "web_search",
            "args": {"query": "tea"},
            "providerExecuted": True,
        },
    ),
    Chunk(
        "tool-result",
        {
            "toolCallId": "srv-1",
            "toolName": "web_search",
            "result": [{"url": "https://tea.example", "title": "Tea"}],
            "providerExecuted": True,
        },
    ),
]


@pytest.mark.asyncio
async def test_provider_tool_result_reaches_process_tool_result_with_the_raw_value() -> None:
    trace = Trace()
    seen = RecordingProcessor("seen", ["process_tool_result"], trace=trace)
    model = ScriptedModel([Reply(text=["Tea is a drink."], extra_chunks=SEARCH)])
    stream = agent(model, output_processors=[seen]).stream("What is tea?")
    chunks = await collect(stream)
    (call,) = trace.of("process_tool_result")
    assert call["provider_executed"] is True
    assert call["result"] == [{"url": "https://tea.example", "title": "Tea"}]
    assert [c.type for c in chunks if c.type.startswith("tool-")] == ["tool-call", "tool-result"]
    result = await stream.result()
    assert len(model.calls) == 1  # the provider ran the tool; the loop does not continue
    (invocation,) = [
        p for p in result.messages[0].content.parts if isinstance(p, ToolInvocationPart)
    ]
    assert invocation.tool_invocation.state == "result"
    assert invocation.tool_invocation.result == [{"url": "https://tea.example", "title": "Tea"}]
    assert invocation.provider_executed is True


@pytest.mark.asyncio
async def test_a_provider_tool_result_can_be_blocked() -> None:
    guard = RecordingProcessor(
        "scan", process_tool_result=lambda **kw: kw["abort"]("untrusted search result")
    )
    model = ScriptedModel([Reply(text=["never sent"], extra_chunks=SEARCH)])
    chunks = await collect(agent(model, output_processors=[guard]).stream("What is tea?"))
    assert chunks[-1].type == "tripwire"
    assert not any(c.type == "tool-result" for c in chunks)
