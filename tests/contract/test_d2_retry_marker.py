"""D2 (amended): in live mode a rejected attempt is marked by a ``step-finish`` whose reason is
``retry``, carrying the reason, processor id and metadata; no ``tripwire`` chunk, since the run
goes on; the project's consumers drop it (``text_stream`` here, D31; the CLI in
``tests/cli/test_render.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Agent, Chunk
from procession.testing import Reply, ScriptedModel

from .kit import MODES, processor, run


def _picky(mode: str, attempts: int) -> Any:
    def judge(**kwargs: Any) -> None:
        if kwargs["retry_count"] < attempts:
            kwargs["abort"](
                f"attempt {kwargs['retry_count']}",
                retry=True,
                metadata={"n": kwargs["retry_count"]},
            )

    return processor("picky", mode, {"process_output_step": judge})


def _markers(chunks: list[Chunk]) -> list[dict[str, Any]]:
    return [
        c.payload
        for c in chunks
        if c.type == "step-finish" and c.payload["stepResult"]["reason"] == "retry"
    ]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.asyncio
async def test_each_rejected_attempt_gets_one_marker_with_its_reason(mode: str) -> None:  # D2
    model = ScriptedModel([Reply(text=["one"]), Reply(text=["two"]), Reply(text=["three"])])
    agent = Agent(id="a", model=model, max_processor_retries=2, output_processors=[_picky(mode, 2)])
    done = await run(agent, "live")
    markers = _markers(done.chunks)
    assert [m["stepResult"]["retryReason"] for m in markers] == ["attempt 0", "attempt 1"]
    assert {m["stepResult"]["retryProcessorId"] for m in markers} == {"picky"}
    assert [m["stepResult"]["retryMetadata"] for m in markers] == [{"n": 0}, {"n": 1}]
    assert [m["output"]["text"] for m in markers] == ["one", "two"]
    assert [m["processorRetryCount"] for m in markers] == [1, 2]
    assert "tripwire" not in done.types
    assert done.result.text == "three"


@pytest.mark.asyncio
async def test_a_retry_beyond_the_budget_is_a_tripwire_not_a_marker() -> None:  # D2, D4, D12
    model = ScriptedModel([Reply(text=["one"]), Reply(text=["two"])])
    agent = Agent(
        id="a", model=model, max_processor_retries=1, output_processors=[_picky("sync", 5)]
    )
    done = await run(agent, "live")
    assert len(_markers(done.chunks)) == 1
    assert done.types[-1] == "tripwire"
    assert done.chunks[-1].payload["retry"] is True
    assert done.result.text == ""


@pytest.mark.asyncio
async def test_the_marker_follows_the_rejected_attempts_chunks() -> None:  # D2
    model = ScriptedModel([Reply(text=["bad ", "answer"]), Reply(text=["good"])])
    agent = Agent(
        id="a", model=model, max_processor_retries=1, output_processors=[_picky("sync", 1)]
    )
    done = await run(agent, "live")
    at = done.types.index("step-finish")
    before = "".join(c.payload["text"] for c in done.chunks[:at] if c.type == "text-delta")
    after = "".join(c.payload["text"] for c in done.chunks[at:] if c.type == "text-delta")
    assert (before, after) == ("bad answer", "good")
    stream = agent.stream("again")
    model.replies += [Reply(text=["bad"]), Reply(text=["good"])]
    assert "".join([t async for t in stream.text_stream]) == "good"
