"""Sub-agents side by side with Mastra's ``agents`` option (D9 nested chunks).

``tests/data/mastra/sub-agent*.json`` were recorded from @mastra/core with the oracle's mock
model (``tests/data/mastra/probe-subagent.mjs``, run from a copy of the oracle): a supervisor
delegates to ``researcher``, which answers (or whose input processor aborts). The same scenario
runs here through the public API, and the chunks are summarised the same way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from procession import Agent, Chunk
from procession.testing import RecordingProcessor, Reply, ScriptedModel, ToolCallScript

DATA = Path(__file__).parents[1] / "data" / "mastra"


def _summary(chunk: Chunk) -> dict[str, Any]:
    """A chunk as the probe summarises Mastra's."""
    if chunk.type == "tool-output":
        inner = chunk.payload["output"]
        output = {"type": inner["type"], "from": inner["from"]}
        for name in ("text", "reason"):
            if name in inner["payload"]:
                output[name] = inner["payload"][name]
        return {
            "type": chunk.type,
            "from": chunk.from_,
            "payloadKeys": sorted(chunk.payload),
            "toolCallId": chunk.payload["toolCallId"],
            "toolName": chunk.payload["toolName"],
            "output": output,
        }
    if chunk.type == "tool-result":
        result = chunk.payload["result"]
        return {
            "type": chunk.type,
            "toolName": chunk.payload["toolName"],
            "resultKeys": sorted(result),
            "text": result["text"],
        }
    return {"type": chunk.type}


async def _run(sub_processors: list[Any]) -> tuple[list[dict[str, Any]], str]:
    sub = Agent(
        id="researcher",
        description="Finds facts.",
        instructions="x",
        model=ScriptedModel([Reply(text=["Paris ", "is the capital."])]),
        input_processors=sub_processors,
    )
    delegate = ToolCallScript("agent-researcher", {"prompt": "Capital of France?"}, "c1")
    parent = Agent(
        id="boss",
        instructions="y",
        agents={"researcher": sub},
        model=ScriptedModel([Reply(tool_calls=[delegate]), Reply(text=["Done."])]),
    )
    stream = parent.stream("go")
    chunks = [_summary(c) async for c in stream]
    return chunks, (await stream.result()).text


@pytest.mark.asyncio
async def test_nested_chunks_match_mastras() -> None:  # D9
    mastra = json.loads((DATA / "sub-agent.json").read_text())
    ours, text = await _run([])
    assert text == mastra["text"]
    nested = [c for c in ours if c["type"] == "tool-output"]
    assert nested == [c for c in mastra["chunks"] if c["type"] == "tool-output"]
    assert [c["type"] for c in ours] == [c["type"] for c in mastra["chunks"]]
    # The result: Mastra adds its sub-thread and sub-resource ids and the sub-run's tool
    # results; procession gives the model the answer alone (decision 0346).
    (theirs,) = [c for c in mastra["chunks"] if c["type"] == "tool-result"]
    (mine,) = [c for c in ours if c["type"] == "tool-result"]
    assert theirs["text"] == mine["text"]
    extra = {"subAgentThreadId", "subAgentResourceId", "subAgentToolResults"}
    assert set(theirs["resultKeys"]) == {"text"} | extra
    assert mine["resultKeys"] == ["text"]


@pytest.mark.asyncio
async def test_a_sub_agent_tripwire_nests_as_mastras_and_is_a_tool_error() -> None:  # D9, D12
    mastra = json.loads((DATA / "sub-agent-tripwire.json").read_text())
    guard = RecordingProcessor("guard", process_input=lambda **kw: kw["abort"]("off topic"))
    ours, text = await _run([guard])
    assert text == mastra["text"]
    nested = [c for c in ours if c["type"] == "tool-output"]
    assert nested == [c for c in mastra["chunks"] if c["type"] == "tool-output"]
    # Mastra reports the blocked sub-run as a result with empty text; procession as a tool
    # error naming the processor and its reason (decision 0347). Everything else matches.
    theirs = [c["type"] for c in mastra["chunks"]]
    mine = [c["type"] for c in ours]
    assert mine == ["tool-error" if t == "tool-result" else t for t in theirs]
