"""When the client sees a step: ``release="live"`` and ``release="step"`` (D31, D2)."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Chunk, Processor, TextPart
from procession.testing import Reply, ScriptedModel

from .helpers import agent, collect, texts


class RejectFirst(Processor):
    """Asks for a retry of the first attempt only."""

    id = "reject-first"

    def process_output_step(self, *, retry_count: int, abort: Any, **_: Any) -> None:
        if retry_count == 0:
            abort("Try again.", retry=True)


class Shout(Processor):
    """Edits the step's text in place once the step is done."""

    id = "shout"

    def process_output_step(self, *, messages: list[Any], **_: Any) -> None:
        for part in messages[-1].content.parts:
            if isinstance(part, TextPart):
                part.text = part.text.upper()


class Progress(Processor):
    """Writes a transient data chunk when the first text delta passes; notes when the step's
    ``process_output_step`` ran (the step is accepted only after it)."""

    id = "progress"

    def __init__(self) -> None:
        self.step_checked = False

    def process_output_step(self, **_: Any) -> None:
        self.step_checked = True

    def process_output_stream(self, *, part: Chunk, writer: Any, state: dict[str, Any]) -> Chunk:
        if part.type == "text-delta" and not state.get("sent"):
            state["sent"] = True
            writer.custom({"type": "data-progress", "data": {"pct": 50}, "transient": True})
        return part


def _retry_markers(chunks: list[Chunk]) -> list[Chunk]:
    return [
        c
        for c in chunks
        if c.type == "step-finish" and c.payload["stepResult"]["reason"] == "retry"
    ]


def _model() -> ScriptedModel:
    return ScriptedModel([Reply(text=["rejected ", "text"]), Reply(text=["accepted"])])


@pytest.mark.asyncio
async def test_live_mode_sends_the_rejected_attempt_and_marks_it() -> None:  # D31, D2
    stream = agent(_model(), output_processors=[RejectFirst()], max_processor_retries=1).stream("x")
    chunks = await collect(stream)
    assert texts(chunks) == "rejected textaccepted"
    assert len(_retry_markers(chunks)) == 1
    assert (await stream.result()).text == "accepted"


@pytest.mark.asyncio
async def test_step_mode_never_sends_a_rejected_attempt() -> None:  # D31
    lane = [RejectFirst()]
    stream = agent(_model(), output_processors=lane, max_processor_retries=1).stream(
        "x", release="step"
    )
    chunks = await collect(stream)
    assert texts(chunks) == "accepted"
    assert _retry_markers(chunks) == []
    assert (await stream.result()).text == "accepted"


@pytest.mark.asyncio
async def test_step_mode_sends_the_text_a_hook_left_in_the_message() -> None:  # D31, D23
    model = ScriptedModel([Reply(text=["quiet ", "words"])])
    stream = agent(model, output_processors=[Shout()]).stream("x", release="step")
    chunks = await collect(stream)
    assert texts(chunks) == "QUIET WORDS"
    assert (await stream.result()).text == "QUIET WORDS"


@pytest.mark.asyncio
async def test_step_mode_sends_transient_data_chunks_at_once() -> None:  # D31
    progress = Progress()
    model = ScriptedModel([Reply(text=["a", "b"])])
    stream = agent(model, output_processors=[progress]).stream("x", release="step")
    kinds: list[str] = []
    async for chunk in stream:
        kinds.append(chunk.type)
        if chunk.type == "data-progress":
            assert not progress.step_checked  # sent before the step was accepted
        if chunk.type == "text-delta":
            assert progress.step_checked  # held until it was
    assert kinds.index("data-progress") < kinds.index("text-delta")
