"""``Agent.stream_sync()``: a synchronous stream for scripts (issue 24). Leaving the loop early
cancels the run (D32), readers raise the run's error (D21), and it works inside a running event
loop as ``generate_sync()`` does."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from procession import (
    Agent,
    Chunk,
    Memory,
    ModelSetupError,
    Retracted,
    SyncAgentStream,
    finish_chunk,
)
from procession.memory.sqlite import SQLiteStorage
from procession.models.base import ModelCallOptions, StreamResult
from procession.testing import Reply, ScriptedModel


class EndlessModel:
    """Streams text until its stream is closed (or for very long), and notes the closing and
    the thread it ran on."""

    specification_version = "v2"
    supports_structured_output = False
    provider = "endless"
    model_id = "endless-model"

    def __init__(self) -> None:
        self.sent = 0
        self.closed = False
        self.threads: set[str] = set()

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """An answer that never ends on its own."""
        return StreamResult(stream=self._stream())

    async def _stream(self) -> AsyncIterator[Chunk]:
        try:
            yield Chunk("text-start", {"id": "t"})
            while self.sent < 100_000:  # far beyond what any test reads
                self.threads.add(threading.current_thread().name)
                self.sent += 1
                yield Chunk("text-delta", {"id": "t", "text": f"{self.sent} "})
        finally:
            self.closed = True
        yield finish_chunk("stop", None)


class Picky:
    id = "picky"

    def process_output_step(self, *, abort: Any, retry_count: int, **_: Any) -> None:
        if retry_count == 0:
            abort("again", retry=True)


def test_chunks_text_and_result() -> None:
    agent = Agent(id="a", model=ScriptedModel([Reply(text=["Hel", "lo"])], repeat_last=True))
    stream = agent.stream_sync("hi")
    assert isinstance(stream, SyncAgentStream)
    kinds = [chunk.type for chunk in stream]
    assert kinds[0] == "start"
    assert kinds[-1] == "finish"
    assert stream.result().text == "Hello"
    assert list(agent.stream_sync("hi").text_stream) == ["Hel", "lo"]
    assert agent.stream_sync("hi").text() == "Hello"


def test_live_text_marks_a_retracted_attempt() -> None:  # D2, D31
    model = ScriptedModel([Reply(text=["first"]), Reply(text=["second"])])
    agent = Agent(id="a", model=model, output_processors=[Picky()], max_processor_retries=1)
    items = list(agent.stream_sync("hi").live_text())
    assert items == ["first", Retracted("first", "again", "picky"), "second"]


def test_leaving_the_loop_early_cancels_the_run_and_stores_nothing(tmp_path: Path) -> None:
    # D32
    model = EndlessModel()
    memory = Memory(SQLiteStorage(str(tmp_path / "m.db")))
    agent = Agent(id="a", model=model, memory=memory)
    texts = []
    for text in agent.stream_sync("go", thread_id="t-1", resource_id="ada").text_stream:
        texts.append(text)
        if len(texts) == 3:
            break
    assert model.closed  # the model's stream was closed when the loop was left
    assert texts == ["1 ", "2 ", "3 "]
    sent = model.sent
    assert sent <= 4  # nothing ran on after the break
    assert asyncio.run(memory.list_messages("t-1", resource_id="ada")) == []


def test_close_and_with_cancel_the_run() -> None:  # D32
    model = EndlessModel()
    agent = Agent(id="a", model=model)
    with agent.stream_sync("go") as stream:
        chunks = iter(stream)
        while next(chunks).type != "text-delta":  # the model is streaming
            pass
    assert model.closed
    assert stream.result().finish_reason != "stop"


def test_readers_raise_the_runs_error(monkeypatch: pytest.MonkeyPatch) -> None:  # D21
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    agent = Agent(id="a", model="openai/gpt-5-mini")
    with pytest.raises(ModelSetupError):
        list(agent.stream_sync("hi").text_stream)
    stream = agent.stream_sync("hi")
    assert [chunk.type for chunk in stream][-1] == "error"  # the chunks themselves do not raise
    with pytest.raises(ModelSetupError):
        stream.result()
    assert isinstance(stream.result(raise_error=False).error, ModelSetupError)


def test_a_stream_is_read_once() -> None:
    stream = Agent(id="a", model=ScriptedModel(["x"])).stream_sync("hi")
    list(stream)
    with pytest.raises(RuntimeError, match="read once"):
        list(stream.text_stream)


@pytest.mark.asyncio
async def test_inside_a_running_event_loop_it_runs_on_its_own_loop() -> None:
    model = EndlessModel()
    agent = Agent(id="a", model=model)
    texts = []
    for text in agent.stream_sync("go").text_stream:  # called from async code (a notebook)
        texts.append(text)
        if len(texts) == 2:
            break
    assert model.closed  # D32 there too
    assert model.threads == {"procession-stream-sync"}
    done = Agent(id="b", model=ScriptedModel(["fine"])).stream_sync("hi")
    assert done.text() == "fine"
