"""BatchParts: text deltas merged into batches, in order, with nothing lost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from procession import Agent, BatchParts, Chunk, ConfigurationError, tool
from procession.memory import Memory
from procession.memory.sqlite import SQLiteStorage
from procession.testing import Reply, ScriptedModel, ToolCallScript


async def _chunks(agent: Agent, **options: Any) -> list[Chunk]:
    return [c async for c in agent.stream("go", **options)]


def _deltas(chunks: list[Chunk]) -> list[str]:
    return [c.payload["text"] for c in chunks if c.type == "text-delta"]


@pytest.mark.asyncio
async def test_deltas_leave_in_batches_and_the_text_end_releases_the_rest(tmp_path: Path) -> None:
    memory = Memory(SQLiteStorage(tmp_path / "m.db"))
    model = ScriptedModel([Reply(text=list("abcdefg"))])
    agent = Agent(id="a", model=model, memory=memory, output_processors=[BatchParts(batch_size=3)])
    chunks = await _chunks(agent, thread_id="t", resource_id="r")
    assert _deltas(chunks) == ["abc", "def", "g"]
    types = [c.type for c in chunks]
    assert types.index("text-end") > max(i for i, t in enumerate(types) if t == "text-delta")
    stored = await memory.storage.list_messages("t", resource_id="r")
    assert stored[-1].text == "abcdefg"
    await memory.storage.close()


@pytest.mark.asyncio
async def test_held_text_is_released_before_a_tool_call_even_when_non_text_is_held() -> None:
    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    model = ScriptedModel(
        [
            Reply(text=["let ", "me ", "check"], tool_calls=[ToolCallScript("ping", {}, "c1")]),
            Reply(text=list("done")),
        ],
        repeat_last=False,
    )
    agent = Agent(
        id="a",
        model=model,
        tools=[ping],
        output_processors=[BatchParts(batch_size=10, emit_on_non_text=False)],
    )
    chunks = await _chunks(agent)
    assert _deltas(chunks) == ["let me check", "done"]
    types = [c.type for c in chunks]
    assert types.index("tool-call") < types.index("tool-result")
    assert len(model.calls) == 2  # the tool ran and its result reached the second call
    assert model.calls[1].prompt[-1]["content"][0]["output"]["value"] == "pong"


def test_max_wait_time_releases_with_the_next_chunk() -> None:
    now = [0.0]
    batcher = BatchParts(batch_size=100, max_wait_time=50, clock=lambda: now[0])
    state: dict[str, Any] = {}
    delta = Chunk("text-delta", {"id": "t", "text": "x"})
    assert batcher.process_output_stream(part=delta, state=state) is None
    now[0] = 0.049
    assert batcher.process_output_stream(part=delta, state=state) is None
    now[0] = 0.051
    out = batcher.process_output_stream(part=delta, state=state)
    assert isinstance(out, list)
    assert [c.payload["text"] for c in out] == ["xxx"]
    assert batcher.flush(state) == []


def test_deltas_of_different_text_parts_are_not_merged() -> None:
    batcher = BatchParts(batch_size=4)
    state: dict[str, Any] = {}
    for text_id, text in (("t1", "a"), ("t1", "b"), ("t2", "c")):
        batcher.process_output_stream(
            part=Chunk("text-delta", {"id": text_id, "text": text}), state=state
        )
    assert [(c.payload["id"], c.payload["text"]) for c in batcher.flush(state)] == [
        ("t1", "ab"),
        ("t2", "c"),
    ]


@settings(max_examples=200)
@given(
    texts=st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=30),
    size=st.integers(1, 8),
    hold_non_text=st.booleans(),
)
def test_any_stream_comes_out_whole_and_in_order(
    texts: list[str], size: int, hold_non_text: bool
) -> None:
    batcher = BatchParts(batch_size=size, emit_on_non_text=not hold_non_text)
    state: dict[str, Any] = {}
    stream = [Chunk("text-start", {"id": "t"})]
    stream += [Chunk("text-delta", {"id": "t", "text": t}) for t in texts]
    stream += [Chunk("text-end", {"id": "t"}), Chunk("finish", {})]
    out: list[Chunk] = []
    for chunk in stream:
        result = batcher.process_output_stream(part=chunk, state=state)
        if isinstance(result, list):
            out.extend(result)
        elif result is not None:
            out.append(result)
    assert "".join(c.payload["text"] for c in out if c.type == "text-delta") == "".join(texts)
    assert [c.type for c in out if c.type != "text-delta"] == ["text-start", "text-end", "finish"]
    assert all(len(c.payload.get("text", "")) for c in out if c.type == "text-delta")
    assert sum(c.type == "text-delta" for c in out) <= len(texts)


def test_options_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="batch_size"):
        BatchParts(batch_size=0)
    with pytest.raises(ConfigurationError, match="max_wait_time"):
        BatchParts(max_wait_time=-1)
    with pytest.raises(ConfigurationError, match="emit_on_non_text"):
        BatchParts(emit_on_non_text=1)  # type: ignore[arg-type]
